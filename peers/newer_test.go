package peers

import (
	"math"
	"strings"
	"testing"
	"time"

	"speedmatrix/schema"
)

// meta returns the value of a run metadata field ("" when absent).
func meta(m *schema.Matrix, section, key string) string {
	for _, f := range m.Run.Metadata {
		if f.Section == section && f.Key == key {
			return f.Value
		}
	}
	return ""
}

// fieldCheck is one figure of a fixture and the source value it must hold.
type fieldCheck struct {
	what string
	got  *float64
	want float64
}

// checkFields reports every figure that does not hold its source value.
func checkFields(t *testing.T, checks []fieldCheck) {
	t.Helper()
	for _, c := range checks {
		if !near(c.got, c.want) {
			if c.got == nil {
				t.Errorf("%s: null, want %v", c.what, c.want)
			} else {
				t.Errorf("%s: %v, want %v", c.what, *c.got, c.want)
			}
		}
	}
}

// metaCheck is a run metadata field and the value it must hold.
type metaCheck struct{ section, key, want string }

// checkMeta reports every metadata field that does not hold its value.
func checkMeta(t *testing.T, m *schema.Matrix, checks []metaCheck) {
	t.Helper()
	for _, w := range checks {
		if got := meta(m, w.section, w.key); got != w.want {
			t.Errorf("metadata %s/%s = %q, want %q", w.section, w.key, got, w.want)
		}
	}
}

// fp returns a pointer to v, converting counts.
func fp[T int32 | int64 | float64](p *T) *float64 {
	if p == nil {
		return nil
	}
	v := float64(*p)
	return &v
}

// TestVLLMSpecDecodeDetailed reads a `vllm bench serve` result of the
// newer releases with speculative decoding figures, --percentile-metrics
// with p95, --goodput and --save-detailed's per-request arrays (one
// request failed): every figure against the file, the per-position
// acceptance rates and the error message kept, nothing unit-less.
func TestVLLMSpecDecodeDetailed(t *testing.T) {
	m, err := readPeer(t, "vllm/spec-decode-detailed.json")
	if err != nil {
		t.Fatal(err)
	}
	if m.Run.ModelID != "Qwen/Qwen3-32B" || m.Run.SourceFormat != FormatVLLMBench {
		t.Errorf("model %q format %q", m.Run.ModelID, m.Run.SourceFormat)
	}
	c := &m.Measurements[0]
	checkFields(t, []fieldCheck{
		{"concurrency", fp(c.Concurrency), 4},
		{"request rate inf", c.RequestRate, math.Inf(1)},
		{"completed", fp(c.CompletedRequests), 3},
		{"failed", fp(c.ErroredRequests), 1},
		{"goodput", c.GoodputReqS, 0.32},
		{"ttft median", c.TTFTMs, 198.25},
		{"ttft mean", c.TTFTMeanMs, 212.5},
		{"ttft p90", c.TTFTP90Ms, 251.5},
		{"ttft p99", c.TTFTP99Ms, 260.05},
		{"ttft p95 kept", extra(c, "p95_ttft_ms"), 256.25},
		{"tbt = tpot median", c.TBTMs, 22.25},
		{"tbt p99", c.TBTP99Ms, 24.2},
		{"chunk gap = itl median", c.ChunkGapP50Ms, 63.75},
		{"itl p95 kept", extra(c, "p95_itl_ms"), 86.5},
		{"e2e p50", c.E2EP50Ms, 5925.5},
		{"e2e p99", c.E2EP99Ms, 6041.9},
		{"output tok/s", c.TotalTokS, 122.88},
		{"total tok/s kept", extra(c, "total_token_throughput"), 614.4},
		{"spec acceptance as a fraction", c.ServerSpecAcceptRate, 0.645},
		{"spec acceptance in percent kept", extra(c, "spec_decode_acceptance_rate_pct"), 64.5},
		{"acceptance length", extra(c, "spec_decode_acceptance_length"), 2.935},
		{"accepted tokens", extra(c, "spec_decode_accepted_tokens"), 507},
		{"draft tokens", extra(c, "spec_decode_draft_tokens"), 786},
		{"acceptance position 1", extra(c, "spec_decode_acceptance_rate_pos1"), 0.82},
		{"acceptance position 3", extra(c, "spec_decode_acceptance_rate_pos3"), 0.47},
		{"peak concurrent requests kept", extra(c, "max_concurrent_requests"), 4},
		{"requests with an error", extra(c, "errors_reported"), 1},
		{"per-request ttfts counted", extra(c, "ttfts_count"), 4},
		{"per-request start times counted", extra(c, "start_times_count"), 4},
	})
	if v := extra(c, "spec_decode_acceptance_rate"); v != nil {
		t.Errorf("the percentage is kept under a name without its unit: %v", *v)
	}
	if got := meta(m, "Errors", "line 1"); !strings.Contains(got, "1× Bad Request: This model's maximum context length") {
		t.Errorf("error message not kept: %q", got)
	}
}

// TestAIPerfGoodputAndSweepRun reads an AIPerf 0.11 export of one run of
// a --concurrency sweep with --goodput: goodput in its column, the SLOs,
// the variation and the command in the run's metadata, the error summary
// kept; and a real AIPerf 0.8 export whose command sits in
// input_config.artifacts.
func TestAIPerfGoodputAndSweepRun(t *testing.T) {
	m, err := readPeer(t, "aiperf/profile_export_aiperf-0.11-goodput-sweep-run.json")
	if err != nil {
		t.Fatal(err)
	}
	c := &m.Measurements[0]
	checkFields(t, []fieldCheck{
		{"concurrency", fp(c.Concurrency), 32},
		{"goodput", c.GoodputReqS, 2.9},
		{"request throughput", c.RequestThroughput, 3.25},
		{"completed", fp(c.CompletedRequests), 975},
		{"errors", fp(c.ErroredRequests), 5},
		{"ttft p50", c.TTFTMs, 388.5},
		{"ttft p99", c.TTFTP99Ms, 1720.5},
		{"tbt = itl p50", c.TBTMs, 15.5},
		{"chunk gap p99", c.ChunkGapP99Ms, 24.5},
		{"e2e p90", c.E2EP90Ms, 6120.75},
		{"output tok/s", c.TotalTokS, 840.5},
		{"per user p50", c.PerRequestTokS, 64.5},
		{"duration", c.MeasuredS, 300.02},
		{"output tokens", fp(c.OutputTokens), 252037},
		{"good requests kept", extra(c, "good_request_count_avg"), 870},
		{"good fraction kept", extra(c, "good_request_fraction_avg"), 0.8923076923076924},
	})
	if v := extra(c, "goodput_avg"); v != nil {
		t.Errorf("goodput also in extra: %v", *v)
	}
	checkMeta(t, m, []metaCheck{
		{"SLO", "time_to_first_token", "1000"},
		{"SLO", "inter_token_latency", "25"},
		{"Run", "Variation", "phases.profiling.concurrency=32"},
		{"Run", "Sweep id", "7d0c4b1e-2f3a-4c5d-9e8f-1a2b3c4d5e6f"},
		{"Errors", "400 Bad Request", "5× maximum context length exceeded"},
	})
	if got := meta(m, "Run", "Command"); !strings.HasPrefix(got, "aiperf profile --model 'qwen3-8b'") {
		t.Errorf("command %q", got)
	}

	// ai-dynamo/aiperf's own audit artifact (AIPerf 0.8.0, a
	// non-streaming chat run against its mock server).
	m, err = readPeer(t, "aiperf/aiperf-0.8.0-audit-baseline-chat-bare.json")
	if err != nil {
		t.Fatal(err)
	}
	c = &m.Measurements[0]
	checkFields(t, []fieldCheck{
		{"concurrency", fp(c.Concurrency), 4},
		{"context: the requested isl", fp(c.ContextTokens), 550},
		{"prompt tokens", fp(c.PromptTokens), 550},
		{"input tokens", fp(c.InputTokensTotal), 35200},
		{"output tokens = total_osl", fp(c.OutputTokens), 35277},
		{"completed", fp(c.CompletedRequests), 64},
		{"request throughput", c.RequestThroughput, 1854.929714829192},
		{"output tok/s", c.TotalTokS, 1022443.0554692096},
		{"e2e p50", c.E2EP50Ms, 0.6734304999999999},
		{"e2e mean", c.E2EMeanMs, 1.516322453125},
		{"e2e p99", c.E2EP99Ms, 15.14387014},
		{"e2e p95 kept", extra(c, "request_latency_p95_ms"), 10.865638499999939},
		{"duration s", c.MeasuredS, 0.034502655},
		{"usage diff in percent", extra(c, "usage_prompt_tokens_diff_pct_avg"), 3.6107954545454546},
		{"usage discrepancies", extra(c, "usage_discrepancy_count_avg"), 2},
		{"total tok/s kept", extra(c, "total_token_throughput_avg"), 2042654.398625265},
	})
	if c.TTFTMs != nil || c.TBTMs != nil {
		t.Errorf("a run without token timing has ttft %v, tbt %v", c.TTFTMs, c.TBTMs)
	}
	if got := meta(m, "Run", "Command"); !strings.Contains(got, "--concurrency 4 --request-count 64") {
		t.Errorf("command %q", got)
	}
}

// TestAIPerfAggregates reads AIPerf's aggregates across runs, rejected
// before as JSON of no known tool: a --concurrency sweep of one trial per
// value (profile_export_aiperf_sweep.json, whole metric blocks: the
// requests' statistics beside the runs') and the confidence report of
// repeated runs (profile_export_aiperf_aggregate.json, flat
// "<metric>_<stat>" keys whose mean is the value).
func TestAIPerfAggregates(t *testing.T) {
	m, err := readPeer(t, "aiperf/profile_export_aiperf_sweep-one-trial.json")
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Measurements) != 2 || m.Run.SourceFormat != FormatAIPerf || meta(m, "Aggregate", "Type") != "sweep" {
		t.Fatalf("%d cells, format %q, type %q", len(m.Measurements), m.Run.SourceFormat, meta(m, "Aggregate", "Type"))
	}
	c0, c1 := &m.Measurements[0], &m.Measurements[1]
	checkFields(t, []fieldCheck{
		{"combination 1 concurrency", fp(c0.Concurrency), 16},
		{"combination 2 concurrency", fp(c1.Concurrency), 64},
		{"ttft p50", c0.TTFTMs, 28.5},
		{"ttft avg", c0.TTFTMeanMs, 30.25},
		{"ttft p99", c1.TTFTP99Ms, 420.75},
		{"ttft min of the requests", extra(c1, "time_to_first_token_min_ms"), 30.5},
		{"tbt = itl p50", c1.TBTMs, 13.25},
		{"e2e p90", c1.E2EP90Ms, 6800.25},
		{"output tok/s", c1.TotalTokS, 4800.5},
		{"request throughput", c1.RequestThroughput, 18.25},
		{"goodput", c1.GoodputReqS, 16.75},
		{"completed", fp(c1.CompletedRequests), 5475},
		{"duration s", c1.MeasuredS, 300},
		{"spread across runs, in ms", extra(c1, "time_to_first_token_trials_std_ms"), 0},
		{"confidence bound", extra(c1, "output_token_throughput_trials_ci_high"), 4800.5},
		{"runs", extra(c1, "aggregate_runs"), 2},
		{"trials per value", extra(c1, "aggregate_trials_per_value"), 1},
	})

	m, err = readPeer(t, "aiperf/profile_export_aiperf_aggregate-confidence.json")
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Measurements) != 1 || m.Run.BenchVersion != "0.8.0" {
		t.Fatalf("%d cells, version %q", len(m.Measurements), m.Run.BenchVersion)
	}
	c := &m.Measurements[0]
	checkFields(t, []fieldCheck{
		{"concurrency from variation_values", fp(c.Concurrency), 64},
		{"request throughput: mean of the runs", c.RequestThroughput, 18.5},
		{"output tok/s", c.TotalTokS, 4750.25},
		{"completed", fp(c.CompletedRequests), 5550},
		{"ttft p50", c.TTFTMs, 82.25},
		{"ttft avg", c.TTFTMeanMs, 97.5},
		{"ttft p99", c.TTFTP99Ms, 430.5},
		{"tbt p50", c.TBTMs, 13.25},
		{"e2e p99", c.E2EP99Ms, 9950.5},
		{"per user p50", c.PerRequestTokS, 75.5},
		{"ttft p99 spread in ms", extra(c, "time_to_first_token_p99_trials_std_ms"), 12.75},
		{"ttft p99 lowest run in ms", extra(c, "time_to_first_token_p99_trials_min_ms"), 417.75},
		{"ttft p99 interval low", extra(c, "time_to_first_token_p99_trials_ci_low_ms"), 398.625},
		{"throughput cv", extra(c, "request_throughput_avg_trials_cv"), 0.013514},
		{"t critical", extra(c, "request_throughput_avg_trials_t_critical"), 4.303},
		{"successful runs", extra(c, "aggregate_successful_runs"), 3},
		{"confidence level", extra(c, "aggregate_confidence_level"), 0.95},
	})
	if got := meta(m, "Aggregate", "Runs"); got != "run_0001, run_0002, run_0003" {
		t.Errorf("runs %q", got)
	}
}

// TestLLMBench0429Settings reads an llm_decode_bench.py 0.4.29 file in
// the shape of a real one (sjug/rtx6kpro), with 0.7's loop_detection
// settings object: the timestamp with its zone offset, the engine version
// from the event log, the harness's run_metadata and the metadata
// settings kept; the cell's figures against the file.
func TestLLMBench0429Settings(t *testing.T) {
	m, err := readPeer(t, "llm-inference-bench/v0.4.29-run-metadata.json")
	if err != nil {
		t.Fatal(err)
	}
	if m.Run.StartedAt == nil || !m.Run.StartedAt.Equal(time.Date(2026, 10, 1, 14, 16, 2, 125e6, time.UTC)) {
		t.Errorf("started at %v, want 2026-10-01T14:16:02.125Z", m.Run.StartedAt)
	}
	if m.Run.Engine != "vllm" || m.Run.EngineVersion != "0.11.2rc1.dev7+gabc1234" || m.Run.BenchVersion != "0.4.29" {
		t.Errorf("engine %q %q, tool version %q", m.Run.Engine, m.Run.EngineVersion, m.Run.BenchVersion)
	}
	checkMeta(t, m, []metaCheck{
		{"run_metadata", "variant_id", "baseline-c2"},
		{"run_metadata", "repetition", "2"},
		{"Settings", "decode_mode", "duration"},
		{"Settings", "prefill_mode", "skipped"},
		{"Settings", "ignore_eos", "true"},
		{"Settings", "decode_warmup_seconds", "3.0"},
		{"Settings", "loop_detection.confirmed_min_chars", "4096"},
		{"Settings", "loop_detection.enabled", "true"},
		{"Cells", "aggregate_source", "openai_continuous_usage"},
		{"Cells", "ready_reason", "running_reqs=1/1, queue_reqs=0, active_streams=1/1, stable=3.0s"},
	})
	c := &m.Measurements[0]
	checkFields(t, []fieldCheck{
		{"concurrency", fp(c.Concurrency), 2},
		{"aggregate tok/s", c.TotalTokS, 98.5},
		{"per request", c.PerRequestTokS, 49.25},
		{"ttft p50 s to ms", c.TTFTMs, 60},
		{"ttft p99", c.TTFTP99Ms, 75},
		{"tbt = inter token latency p50", c.TBTMs, 20},
		{"chunk gap p90", c.ChunkGapP90Ms, 57.5},
		{"completed: none finished in the window", fp(c.CompletedRequests), 0},
		{"streams kept", extra(c, "num_completed"), 2},
		{"spec acceptance", c.ServerSpecAcceptRate, 0.5725},
		{"acceptance position 2", extra(c, "server_spec_pos_accept_2"), 0.57},
		{"steps per second", extra(c, "server_steps_per_s"), 36.25},
		{"ttst p99 in ms", extra(c, "time_to_second_token_p99_ms"), 72.5},
		{"measured s", c.MeasuredS, 30},
		{"flag false", extra(c, "capacity_limited_flag"), 0},
		{"flag false", extra(c, "warmup_timed_out_flag"), 0},
	})
}

// TestSGLangTraceReplay reads a line of SGLang's newest bench_serving
// replaying a trace (request_rate "trace", rejected before as "not a
// number") with --output-details: no rate or concurrency as the load, the
// word kept in the run's metadata, the per-request arrays counted and
// the error message kept, every figure against the file.
func TestSGLangTraceReplay(t *testing.T) {
	m, err := readPeer(t, "sglang/trace-replay-output-details.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if m.Run.ModelID != "Qwen/Qwen3-8B" || m.Run.EngineVersion != "0.5.4" || meta(m, "Metadata", "request_rate") != "trace" {
		t.Errorf("model %q version %q request_rate %q", m.Run.ModelID, m.Run.EngineVersion, meta(m, "Metadata", "request_rate"))
	}
	c := &m.Measurements[0]
	if c.RequestRate != nil || c.Concurrency != nil {
		t.Errorf("trace replay stored with rate %v concurrency %v", c.RequestRate, c.Concurrency)
	}
	checkFields(t, []fieldCheck{
		{"measured concurrency", c.AvgActiveRequests, 0.22},
		{"completed", fp(c.CompletedRequests), 3},
		{"ttft p50", c.TTFTMs, 700.25},
		{"tbt = tpot p50", c.TBTMs, 31.25},
		{"chunk gap p99", c.ChunkGapP99Ms, 80.25},
		{"itl p95 kept", extra(c, "p95_itl_ms"), 55.5},
		{"e2e p90", c.E2EP90Ms, 12000.5},
		{"output tok/s", c.TotalTokS, 6.22},
		{"input tok/s", c.InputTokS, 49.79},
		{"acceptance length", extra(c, "accept_length"), 2.45},
		{"vision tokens", extra(c, "total_input_vision_tokens"), 0},
		{"requests with an error", extra(c, "errors_reported"), 1},
		{"failed: the requests with an error", fp(c.ErroredRequests), 1},
		{"per-request itls counted", extra(c, "itls_count"), 4},
	})
	if got := meta(m, "Errors", "line 1"); got != "1× ClientConnectorError: Cannot connect to host 127.0.0.1:30000" {
		t.Errorf("errors %q", got)
	}
}

// TestVLLMRampUp reads a `vllm bench serve --ramp-up-strategy linear`
// result: its request_rate is the unused default "inf", not the load (it
// was stored as an unbounded rate); the ramp's bounds stay in extra, the
// strategy and a derivative's boolean setting in the run's metadata.
func TestVLLMRampUp(t *testing.T) {
	m, err := readPeer(t, "vllm/ramp-up-linear.json")
	if err != nil {
		t.Fatal(err)
	}
	c := &m.Measurements[0]
	if c.RequestRate != nil || c.Concurrency != nil {
		t.Errorf("a ramp stored with rate %v, concurrency %v", c.RequestRate, c.Concurrency)
	}
	checkFields(t, []fieldCheck{
		{"ramp start", extra(c, "ramp_up_start_rps"), 2},
		{"ramp end", extra(c, "ramp_up_end_rps"), 20},
		{"completed", fp(c.CompletedRequests), 598},
		{"failed", fp(c.ErroredRequests), 2},
		{"ttft p50", c.TTFTMs, 82.5},
		{"tbt p99", c.TBTP99Ms, 29.5},
		{"e2e p99", c.E2EP99Ms, 3810.75},
		{"request throughput", c.RequestThroughput, 9.723577235772358},
		{"peak concurrent requests", extra(c, "max_concurrent_requests"), 87},
	})
	for k, want := range map[string]string{"ramp_up_strategy": "linear", "ignore_eos": "true"} {
		if got := meta(m, "Metadata", k); got != want {
			t.Errorf("metadata %s = %q, want %q", k, got, want)
		}
	}
}
