package peers

import (
	"math"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"speedmatrix/schema"
)

// TestAIPerfFiles reads the fixtures of AIPerf under aiperf/ and checks
// their format, model, cells and figures.
func TestAIPerfFiles(t *testing.T) {
	checkFiles(t, []fileCase{
		// An AIPerf run in which every request failed writes zeros for
		// every statistic: an error cell, figures null, never zero.
		{"aiperf/profile_export_aiperf-nothing-completed.json", FormatAIPerf, "mistral-7b", 1, []check{
			{"failed requests", func(m *schema.Matrix) *float64 { return i64(m.Measurements[0].ErroredRequests) }, 16},
			{"no figure", func(m *schema.Matrix) *float64 {
				c := m.Measurements[0]
				return set(c.TotalTokS, c.RequestThroughput, c.TTFTMs, c.TBTMs, c.E2EMeanMs, c.E2EP99Ms)
			}, 0},
			{"error status", func(m *schema.Matrix) *float64 {
				c := m.Measurements[0]
				if c.Status == schema.StatusError && c.StatusReason == "no request completed (16 failed)" {
					return f64(1)
				}
				return f64(0)
			}, 1},
			{"concurrency kept", func(m *schema.Matrix) *float64 { return i32p(m.Measurements[0].Concurrency) }, 16},
		}},
		// AIPerf 0.10 (schema 1.3): a Poisson phase's rate, the requested
		// prompt length of datasets[].prompts.isl (0.8 and later), the
		// trial of run_info, sizes with their unit.
		{"aiperf/profile_export_aiperf-v0.10-http.json", FormatAIPerf, "model-nvfp4", 1, []check{
			{"rate of the measured phase", func(m *schema.Matrix) *float64 { return m.Measurements[0].RequestRate }, 0.8},
			{"no concurrency", func(m *schema.Matrix) *float64 { return set(i32p(m.Measurements[0].Concurrency)) }, 0},
			{"requested prompt length names the context", func(m *schema.Matrix) *float64 { return i64(m.Measurements[0].ContextTokens) }, 512},
			{"measured prompt length kept", func(m *schema.Matrix) *float64 { return i64(m.Measurements[0].PromptTokens) }, 581},
			{"size with its unit", func(m *schema.Matrix) *float64 { return extra(&m.Measurements[0], "http_req_data_received_p90_kb") }, 102.71},
			{"trial", func(m *schema.Matrix) *float64 {
				for _, kv := range m.Run.Metadata {
					if kv.Key == "Trial" {
						v, _ := strconv.ParseFloat(kv.Value, 64)
						return &v
					}
				}
				return nil
			}, 1},
		}},
		{"aiperf/profile_export_aiperf.json", FormatAIPerf, "Qwen3-0.6B", 1, []check{
			{"concurrency", func(m *schema.Matrix) *float64 { return i32p(m.Measurements[0].Concurrency) }, 20},
			{"tbt = AIPerf ITL", func(m *schema.Matrix) *float64 { return m.Measurements[0].TBTMs }, 18},
			{"per user p50", func(m *schema.Matrix) *float64 { return m.Measurements[0].PerRequestTokS }, 55.6},
			{"errors", func(m *schema.Matrix) *float64 { return i64(m.Measurements[0].ErroredRequests) }, 2},
		}},
		{"aiperf/profile_export_aiperf.csv", FormatAIPerfCSV, "", 1, []check{
			{"ttft p50", func(m *schema.Matrix) *float64 { return m.Measurements[0].TTFTMs }, 145},
			{"e2e with thousands separators", func(m *schema.Matrix) *float64 { return m.Measurements[0].E2EMeanMs }, 2000},
			{"throughput section", func(m *schema.Matrix) *float64 { return m.Measurements[0].TotalTokS }, 1150.92},
			{"request count", func(m *schema.Matrix) *float64 { return i64(m.Measurements[0].CompletedRequests) }, 1000},
		}},
		// AIPerf 0.10: the model in models.items, the load in the phase
		// not excluded from results (the warm-up ran at another rate).
		{"aiperf/profile_export_aiperf-v0.10-phases.json", FormatAIPerf, "model-nvfp4", 1, []check{
			{"rate of the measured phase", func(m *schema.Matrix) *float64 { return m.Measurements[0].RequestRate }, 0.8},
			{"input tokens", func(m *schema.Matrix) *float64 { return i64(m.Measurements[0].InputTokensTotal) }, 285000},
			{"duration in sec", func(m *schema.Matrix) *float64 { return m.Measurements[0].MeasuredS }, 124.125},
			{"output tokens with reasoning (total_osl)", func(m *schema.Matrix) *float64 { return i64(m.Measurements[0].OutputTokens) }, 42800},
			{"answer tokens kept", func(m *schema.Matrix) *float64 { return extra(&m.Measurements[0], "total_output_tokens_avg") }, 42744},
			{"time to first content", func(m *schema.Matrix) *float64 { return m.Measurements[0].TTFCMs }, 150.75},
			{"every other statistic kept", func(m *schema.Matrix) *float64 { return extra(&m.Measurements[0], "request_latency_max_ms") }, 10511},
			{"GPU 1 power, named as in the CSV", func(m *schema.Matrix) *float64 { return extra(&m.Measurements[0], "gpu1_gpu_power_usage_w_avg") }, 398.75},
			{"GPU 0 temperature", func(m *schema.Matrix) *float64 { return extra(&m.Measurements[0], "gpu0_gpu_temperature_c_avg") }, 61.5},
			{"GPU 0 utilization", func(m *schema.Matrix) *float64 { return extra(&m.Measurements[0], "gpu0_gpu_utilization_avg") }, 91.25},
			{"averages only", func(m *schema.Matrix) *float64 {
				return set(extra(&m.Measurements[0], "gpu0_gpu_power_usage_w_max"), extra(&m.Measurements[0], "telemetry_data_avg"))
			}, 0},
			{"start time", func(m *schema.Matrix) *float64 {
				if m.Run.StartedAt == nil || m.Run.FinishedAt == nil {
					return nil
				}
				return f64(float64(m.Run.StartedAt.Unix()))
			}, float64(time.Date(2026, 7, 3, 5, 24, 2, 0, time.UTC).Unix())},
		}},
		// AIPerf 0.1.1 (bug class 5): blocks under "records", ttft/ttst.
		{"aiperf/aiperf-0.1.1-example-run1-profile_export_aiperf.json", FormatAIPerf, "gpt-oss-20b", 1, []check{
			{"concurrency", func(m *schema.Matrix) *float64 { return i32p(m.Measurements[0].Concurrency) }, 100},
			{"ttft p50 (tag ttft)", func(m *schema.Matrix) *float64 { return m.Measurements[0].TTFTMs }, 2369.317693},
			{"ttft p99", func(m *schema.Matrix) *float64 { return m.Measurements[0].TTFTP99Ms }, 3833.3894000399996},
			{"tbt mean", func(m *schema.Matrix) *float64 { return m.Measurements[0].TBTMeanMs }, 27.763065454471807},
			{"chunk gap p99", func(m *schema.Matrix) *float64 { return m.Measurements[0].ChunkGapP99Ms }, 140.53429476},
			{"e2e p90", func(m *schema.Matrix) *float64 { return m.Measurements[0].E2EP90Ms }, 9277.5984794},
			{"total tok/s", func(m *schema.Matrix) *float64 { return m.Measurements[0].TotalTokS }, 2320.7222350404572},
			{"request throughput", func(m *schema.Matrix) *float64 { return m.Measurements[0].RequestThroughput }, 9.551622221540914},
			{"per user p50", func(m *schema.Matrix) *float64 { return m.Measurements[0].PerRequestTokS }, 36.21203256049328},
			{"completed", func(m *schema.Matrix) *float64 { return i64(m.Measurements[0].CompletedRequests) }, 89},
			{"errored", func(m *schema.Matrix) *float64 { return i64(m.Measurements[0].ErroredRequests) }, 11},
			{"output tokens (total_osl)", func(m *schema.Matrix) *float64 { return i64(m.Measurements[0].OutputTokens) }, 21624},
			{"input tokens (total_isl)", func(m *schema.Matrix) *float64 { return i64(m.Measurements[0].InputTokensTotal) }, 48950},
			{"duration", func(m *schema.Matrix) *float64 { return m.Measurements[0].MeasuredS }, 9.317788951},
			{"time to second token (tag ttst) kept", func(m *schema.Matrix) *float64 { return extra(&m.Measurements[0], "time_to_second_token_avg_ms") }, 120.16625153932584},
		}},
		// AIPerf's CSV with CRLF lines and its GPU telemetry section.
		{"aiperf/profile_export_aiperf-gpu.csv", FormatAIPerfCSV, "", 1, []check{
			{"ttft p50", func(m *schema.Matrix) *float64 { return m.Measurements[0].TTFTMs }, 240.5},
			{"errors", func(m *schema.Matrix) *float64 { return i64(m.Measurements[0].ErroredRequests) }, 10},
			{"output tokens", func(m *schema.Matrix) *float64 { return i64(m.Measurements[0].OutputTokens) }, 110},
			{"GPU 1 power", func(m *schema.Matrix) *float64 { return extra(&m.Measurements[0], "gpu1_gpu_power_usage_w_avg") }, 395.25},
			{"a label with parentheses", func(m *schema.Matrix) *float64 { return extra(&m.Measurements[0], "http_req_duration_avg_ms") }, 640.5},
		}},
	})
}

// TestGenAIPerfFiles reads the fixtures of GenAI-Perf under genai-perf/ and checks
// their format, model, cells and figures.
func TestGenAIPerfFiles(t *testing.T) {
	checkFiles(t, []fileCase{
		// GenAI-Perf of the command-line era: endpoint is the path, u the
		// URL, and the per-user rate has its older name.
		{"genai-perf/profile_export_genai_perf-cli.json", FormatGenAIPerf, "model-20b", 1, []check{
			{"concurrency", func(m *schema.Matrix) *float64 { return i32p(m.Measurements[0].Concurrency) }, 1},
			// Output tokens / request latency (first token included): by
			// formula in extra, not a decode rate.
			{"per request rate kept apart", func(m *schema.Matrix) *float64 { return extra(&m.Measurements[0], "request_output_tok_s_p50") }, 40.5},
			{"no per-request decode rate", func(m *schema.Matrix) *float64 { return set(m.Measurements[0].PerRequestTokS) }, 0},
			{"tbt", func(m *schema.Matrix) *float64 { return m.Measurements[0].TBTMs }, 7.0625},
		}},
		// GenAI-Perf of the config-file era: model_names and
		// perf_analyzer.stimulus.
		{"genai-perf/profile_export_genai_perf-config.json", FormatGenAIPerf, "model-20b", 1, []check{
			{"request rate", func(m *schema.Matrix) *float64 { return m.Measurements[0].RequestRate }, 4},
			{"ttft p50", func(m *schema.Matrix) *float64 { return m.Measurements[0].TTFTMs }, 90.25},
		}},
		// GenAI-Perf without streaming writes the request latency as TTFT
		// and zeros as ITL: token timing is left out.
		{"genai-perf/profile_export_genai_perf-nonstreaming.json", FormatGenAIPerf, "gpt-4o-mini", 1, []check{
			{"no ttft, tbt or decode rate", func(m *schema.Matrix) *float64 {
				c := m.Measurements[0]
				return set(c.TTFTMs, c.TBTMs, c.PerRequestTokS, extra(&c, "time_to_first_token_p50_ms"), extra(&c, "inter_token_latency_avg_ms"))
			}, 0},
			{"e2e p50", func(m *schema.Matrix) *float64 { return m.Measurements[0].E2EP50Ms }, 2090.25},
			{"e2e p95 kept", func(m *schema.Matrix) *float64 { return extra(&m.Measurements[0], "request_latency_p95_ms") }, 4890.25},
		}},
		// GenAI-Perf's CSV: "(per sec)" rates, p25–p99 columns, CRLF.
		{"genai-perf/profile_export_genai_perf.csv", FormatGenAIPerfCSV, "", 1, []check{
			{"total tok/s", func(m *schema.Matrix) *float64 { return m.Measurements[0].TotalTokS }, 55.5},
			{"e2e p50", func(m *schema.Matrix) *float64 { return m.Measurements[0].E2EP50Ms }, 2613.75},
			{"e2e p25 kept", func(m *schema.Matrix) *float64 { return extra(&m.Measurements[0], "request_latency_p25_ms") }, 1250.5},
			{"requests", func(m *schema.Matrix) *float64 { return i64(m.Measurements[0].CompletedRequests) }, 39},
		}},
		{"genai-perf/profile_export_genai_perf.json", FormatGenAIPerf, "gpt2", 1, []check{
			{"concurrency", func(m *schema.Matrix) *float64 { return i32p(m.Measurements[0].Concurrency) }, 10},
			{"ttft p99", func(m *schema.Matrix) *float64 { return m.Measurements[0].TTFTP99Ms }, 510},
		}},
	})
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

// TestAIPerfExportsAgree reads the JSON and the CSV export of one AIPerf
// run: every figure of the CSV lands under the same name as the JSON's
// (http_req_blocked, not http_blocked; ms with its unit in the name), to
// the two decimals the CSV prints.
// The 0.10 pair adds sizes (HTTP Data Sent in KB: _kb in the name, as in
// the JSON) and a label with "%" (OSL Mismatch Diff %: the JSON's
// osl_mismatch_diff_pct); the newer-metrics pair labels whose JSON tag
// is another name.
func TestAIPerfExportsAgree(t *testing.T) {
	for _, pair := range []struct {
		json, csv string
		min       int
		names     []string
	}{
		{"aiperf/aiperf-0.1.1-example-run1-profile_export_aiperf.json", "aiperf/aiperf-0.1.1-example-run1-profile_export_aiperf.csv", 60, nil},
		{"aiperf/profile_export_aiperf-v0.10-http.json", "aiperf/profile_export_aiperf-v0.10-http.csv", 40,
			[]string{"http_req_data_sent_avg_kb", "http_req_data_received_p99_kb", "osl_mismatch_diff_pct_avg", "time_to_second_token_p90_ms"}},
		// Newer metrics whose CSV label is not the JSON tag in snake case
		// (issue 27): "Completed Requests (Success + Error)" is
		// completed_request_count, "… Error Adjusted" adj_…, "Effective
		// Latency (CO-aware)" effective_latency.
		{"aiperf/profile_export_aiperf-newer-metrics.json", "aiperf/profile_export_aiperf-newer-metrics.csv", 40,
			[]string{"completed_request_count_avg", "adj_output_token_throughput_avg", "effective_latency_p99_ms", "effective_latency_avg_ms"}},
	} {
		t.Run(filepath.Base(pair.csv), func(t *testing.T) { aiperfExportsAgree(t, pair.json, pair.csv, pair.min, pair.names) })
	}
}

// aiperfExportsAgree checks one JSON/CSV pair of an AIPerf run (see
// TestAIPerfExportsAgree); names must be among the CSV's figures.
func aiperfExportsAgree(t *testing.T, jsonPath, csvPath string, min int, names []string) {
	js, err := readPeer(t, jsonPath)
	if err != nil {
		t.Fatal(err)
	}
	csv, err := readPeer(t, csvPath)
	if err != nil {
		t.Fatal(err)
	}
	j, c := &js.Measurements[0], &csv.Measurements[0]
	if len(c.Extra) < min {
		t.Fatalf("only %d extra figures from the CSV", len(c.Extra))
	}
	for _, n := range names {
		if extra(c, n) == nil {
			t.Errorf("CSV has no figure %s", n)
		}
	}
	for _, e := range c.Extra {
		got := extra(j, e.Name)
		if got == nil {
			t.Errorf("CSV figure %s has no JSON figure of that name", e.Name)
			continue
		}
		if math.Abs(*got-e.Value) > 0.0051+1e-9*math.Abs(e.Value) {
			t.Errorf("%s: JSON %v, CSV %v", e.Name, *got, e.Value)
		}
	}
	for _, p := range [][2]*float64{{j.TTFTMs, c.TTFTMs}, {j.E2EP99Ms, c.E2EP99Ms}, {j.TotalTokS, c.TotalTokS}, {j.MeasuredS, c.MeasuredS}} {
		if p[0] == nil || p[1] == nil || math.Abs(*p[0]-*p[1]) > 0.0051 {
			t.Errorf("column: JSON %v, CSV %v", p[0], p[1])
		}
	}
}

// genAIPerfEarlyJSON has the shape of GenAI-Perf's first JSON export
// (2024): values as strings, ns units, "request per sec", and the
// sequence lengths named num_input_token and num_output_token. The
// figures are made up.
const genAIPerfEarlyJSON = `{
  "request_throughput": {"unit": "request per sec", "avg": "4.5"},
  "request_latency": {"unit": "ns", "avg": "90000000.0", "p99": "120000000.0", "p90": "110000000.0", "p50": "88000000.0", "max": "130000000", "min": "60000000"},
  "time_to_first_token": {"unit": "ns", "avg": "21000000.0", "p99": "30000000.0", "p90": "26000000.0", "p50": "20000000.0"},
  "inter_token_latency": {"unit": "ns", "avg": "4000000.0", "p99": "5500000.0", "p90": "5000000.0", "p50": "3900000.0"},
  "output_token_throughput": {"unit": "tokens per sec", "avg": "180.5"},
  "output_token_throughput_per_request": {"unit": "tokens per sec", "avg": "200.25", "p50": "199.5"},
  "num_output_token": {"unit": "tokens", "avg": "17.5", "p50": "18.0", "max": "25", "min": "3"},
  "num_input_token": {"unit": "tokens", "avg": "550.25", "p50": "550.0", "max": "553", "min": "550"},
  "input_config": {"model": "gpt2_vllm", "backend": "vllm", "service_kind": "triton", "streaming": true, "concurrency": 2}
}
`

// genAIPerfEarlyCSV has the shape of GenAI-Perf's first CSV export: the
// rows "Num Output Token" and "Num Input Token". The figures are made up.
const genAIPerfEarlyCSV = "Metric,avg,min,max,p99,p95,p90,p75,p50,p25\r\n" +
	"Time To First Token (ms),20.50,10.00,40.00,30.00,28.00,26.00,22.00,20.00,18.00\r\n" +
	"Inter Token Latency (ms),4.00,1.00,9.00,5.50,5.25,5.00,4.25,3.90,3.75\r\n" +
	"Request Latency (ms),90.00,60.00,130.00,120.00,115.00,110.00,95.00,88.00,80.00\r\n" +
	"Num Output Token,17.50,3.00,25.00,22.00,20.00,20.00,19.00,18.00,17.00\r\n" +
	"Num Input Token,550.25,550.00,553.00,552.00,550.00,550.00,550.00,550.00,550.00\r\n" +
	"\r\n" +
	"Metric,Value\r\n" +
	"Output Token Throughput (per sec),180.50\r\n" +
	"Request Throughput (per sec),4.50\r\n"

// TestGenAIPerfEarlyLengthNames reads GenAI-Perf's first exports, whose
// num_input_token and num_output_token were once kept in extra only: the
// prompt length and the context were then unknown.
func TestGenAIPerfEarlyLengthNames(t *testing.T) {
	for _, tt := range []struct{ name, text string }{
		{"profile_export_genai_perf.json", genAIPerfEarlyJSON},
		{"profile_export_genai_perf.csv", genAIPerfEarlyCSV},
	} {
		t.Run(tt.name, func(t *testing.T) {
			m := parsePeerText(t, tt.name, tt.text)
			if m.Run.BenchTool != "genai-perf" {
				t.Errorf("bench tool %q", m.Run.BenchTool)
			}
			c := &m.Measurements[0]
			checkFields(t, []fieldCheck{
				{"prompt tokens", fp(c.PromptTokens), 550},
				{"context", fp(c.ContextTokens), 550},
				{"output length mean", extra(c, "output_len_mean"), 17.5},
				{"output length max kept", extra(c, "output_sequence_length_max"), 25},
				{"input length max kept", extra(c, "input_sequence_length_max"), 553},
				{"ttft p50 ms", c.TTFTMs, 20},
				{"tbt p99 ms", c.TBTP99Ms, 5.5},
				{"e2e p90 ms", c.E2EP90Ms, 110},
				{"output tok/s", c.TotalTokS, 180.5},
				{"request throughput", c.RequestThroughput, 4.5},
			})
			if c.ContextLabel != "550" {
				t.Errorf("context label %q", c.ContextLabel)
			}
			for _, old := range []string{"num_input_token_avg", "num_output_token_avg", "num_input_token_max"} {
				if v := extra(c, old); v != nil {
					t.Errorf("%s also kept under its old name: %v", old, *v)
				}
			}
		})
	}
}
