package peers

import (
	"math"
	"path/filepath"
	"strings"
	"testing"

	"speedmatrix/schema"
)

// TestVLLMFiles reads the fixtures of vLLM bench serve under vllm/ and checks
// their format, model, cells and figures.
func TestVLLMFiles(t *testing.T) {
	checkFiles(t, []fileCase{
		{"vllm/inferencex-multinode-gptoss120b-conc16-p999.json", FormatVLLMBench, "gpt-oss-120b", 1, []check{
			{"concurrency", func(m *schema.Matrix) *float64 { return i32p(m.Measurements[0].Concurrency) }, 16},
			{"request rate inf", func(m *schema.Matrix) *float64 { return m.Measurements[0].RequestRate }, math.Inf(1)},
			{"ttft median", func(m *schema.Matrix) *float64 { return m.Measurements[0].TTFTMs }, 104.43462803959846},
			{"tbt = tpot median", func(m *schema.Matrix) *float64 { return m.Measurements[0].TBTMs }, 9.03941193840877},
			{"chunk gap = itl median", func(m *schema.Matrix) *float64 { return m.Measurements[0].ChunkGapP50Ms }, 9.067311882972717},
			{"e2e p99", func(m *schema.Matrix) *float64 { return m.Measurements[0].E2EP99Ms }, 9977.636895296164},
			{"total tok/s", func(m *schema.Matrix) *float64 { return m.Measurements[0].TotalTokS }, 1725.5812148243967},
			{"per request = 1000/tpot", func(m *schema.Matrix) *float64 { return m.Measurements[0].PerRequestTokS }, 1000 / 9.03941193840877},
			{"completed", func(m *schema.Matrix) *float64 { return i64(m.Measurements[0].CompletedRequests) }, 160},
			{"p99.9 ttft kept", func(m *schema.Matrix) *float64 { return extra(&m.Measurements[0], "p99_9_ttft_ms") }, 698.2081180762034},
			{"prompt tokens mean", func(m *schema.Matrix) *float64 { return i64(m.Measurements[0].PromptTokens) }, 1024},
		}},
		{"vllm/inferencex-atom-qwen35-397b-mtp-conc64-with-input_lens.json", FormatVLLMBench, "Qwen3.5-397B-A17B-FP8", 1, []check{
			{"concurrency", func(m *schema.Matrix) *float64 { return i32p(m.Measurements[0].Concurrency) }, 64},
			{"ttft p90", func(m *schema.Matrix) *float64 { return m.Measurements[0].TTFTP90Ms }, 1280.1106976694427},
			{"input tokens", func(m *schema.Matrix) *float64 { return i64(m.Measurements[0].InputTokensTotal) }, 4729077},
			{"output tokens", func(m *schema.Matrix) *float64 { return i64(m.Measurements[0].OutputTokens) }, 588102},
			{"input lens counted", func(m *schema.Matrix) *float64 { return extra(&m.Measurements[0], "input_lens_count") }, 640},
		}},
		{"vllm/append-result.jsonl", FormatVLLMBench, "Llama-3.1-8B-Instruct", 2, []check{
			{"line 2 concurrency", func(m *schema.Matrix) *float64 { return i32p(m.Measurements[1].Concurrency) }, 32},
			{"line 2 failed", func(m *schema.Matrix) *float64 { return i64(m.Measurements[1].ErroredRequests) }, 1},
			{"old goodput key", func(m *schema.Matrix) *float64 { return m.Measurements[1].GoodputReqS }, 9.1},
			{"line 2 source line", func(m *schema.Matrix) *float64 { return f64(float64(m.Measurements[1].SourceLine)) }, 2},
		}},
		// A sharegpt rate sweep appended to one file (means 224.4, 225.3
		// and 226.1 tokens) shares one context, the pooled mean (157,715
		// over 699 requests: 225.6); a sonnet line appended after it (no
		// dataset is recorded) keeps its own 550.
		{"vllm/sharegpt-append.jsonl", FormatVLLMBench, "Llama-3.1-8B-Instruct", 4, []check{
			{"sweep lines in one context", func(m *schema.Matrix) *float64 {
				n := 0.0
				for _, c := range m.Measurements[:3] {
					if c.ContextLabel == "226" && *c.ContextTokens == 226 {
						n++
					}
				}
				return &n
			}, 3},
			{"a sweep line keeps its own mean", func(m *schema.Matrix) *float64 { return i64(m.Measurements[1].PromptTokens) }, 225},
			{"the sonnet line apart", func(m *schema.Matrix) *float64 { return i64(m.Measurements[3].ContextTokens) }, 550},
		}},
		// A benchmark_serving derivative writing seconds without "_ms"
		// (bug class 4): milliseconds in the columns, nothing unit-less.
		{"vllm/inferencex-token-position-slo-glm5-conc4-seconds.json", FormatVLLMBench, "GLM-5-FP8", 1, []check{
			{"ttft median s to ms", func(m *schema.Matrix) *float64 { return m.Measurements[0].TTFTMs }, 264.99967742711306},
			{"ttft p99", func(m *schema.Matrix) *float64 { return m.Measurements[0].TTFTP99Ms }, 584.8183088190854},
			{"tbt = tpot median", func(m *schema.Matrix) *float64 { return m.Measurements[0].TBTMs }, 21.372462615488082},
			{"tbt p99", func(m *schema.Matrix) *float64 { return m.Measurements[0].TBTP99Ms }, 26.454948791720733},
			{"e2e median", func(m *schema.Matrix) *float64 { return m.Measurements[0].E2EP50Ms }, 3022.5854497402906},
			{"e2e p99", func(m *schema.Matrix) *float64 { return m.Measurements[0].E2EP99Ms }, 3720.3497649915516},
			{"per request = 1000/tpot", func(m *schema.Matrix) *float64 { return m.Measurements[0].PerRequestTokS }, 1000 / 21.372462615488082},
			{"input tok/s", func(m *schema.Matrix) *float64 { return m.Measurements[0].InputTokS }, 1317.8212352978426},
			{"total tok/s", func(m *schema.Matrix) *float64 { return m.Measurements[0].TotalTokS }, 164.72765441223032},
			{"concurrency", func(m *schema.Matrix) *float64 { return i32p(m.Measurements[0].Concurrency) }, 4},
			{"completed", func(m *schema.Matrix) *float64 { return i64(m.Measurements[0].CompletedRequests) }, 40},
			{"no unit-less latency", func(m *schema.Matrix) *float64 {
				return set(extra(&m.Measurements[0], "median_ttft"), extra(&m.Measurements[0], "p99_tpot"), extra(&m.Measurements[0], "median_e2el"))
			}, 0},
		}},
		// vLLM 0.4: "request_inthroughput", printed input_throughput, no ITL.
		{"vllm/v0.4-request-inthroughput.json", FormatVLLMBench, "Llama-2-7b-chat-hf", 1, []check{
			{"request throughput", func(m *schema.Matrix) *float64 { return m.Measurements[0].RequestThroughput }, 10.47},
			{"input tok/s as printed", func(m *schema.Matrix) *float64 { return m.Measurements[0].InputTokS }, 2251.3},
			{"no misspelt extra", func(m *schema.Matrix) *float64 {
				return set(extra(&m.Measurements[0], "request_inthroughput"), extra(&m.Measurements[0], "input_throughput"))
			}, 0},
		}},
		{"vllm/sweep-array.json", FormatVLLMBench, "Qwen3-32B", 2, []check{
			{"e2e median", func(m *schema.Matrix) *float64 { return m.Measurements[1].E2EP50Ms }, 1432},
		}},
	})
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

// TestVLLMSweepServeParams reads a `vllm bench sweep serve` summary of two
// --serve-params combinations (max_num_seqs 64 and 128) × two loads: a run
// per server configuration, the serve parameters as run metadata, not
// figures, and the requested input length as the context.
func TestVLLMSweepServeParams(t *testing.T) {
	ms := mustReadAll(t, filepath.Join(fixtures, "vllm", "sweep-serve-summary-v0.12.json"))
	if len(ms) != 2 {
		t.Fatalf("%d runs, want 2", len(ms))
	}
	for i, seqs := range []string{"64", "128"} {
		m := ms[i]
		if !strings.Contains(m.Run.Title, "max_num_seqs="+seqs) || len(m.Measurements) != 2 {
			t.Errorf("run %d: %q, %d cells", i, m.Run.Title, len(m.Measurements))
		}
		got := ""
		for _, f := range m.Run.Metadata {
			if f.Section == "Serve" && f.Key == "max_num_seqs" {
				got = f.Value
			}
		}
		if got != seqs {
			t.Errorf("run %d: serve max_num_seqs %q, want %s", i, got, seqs)
		}
		for _, c := range m.Measurements {
			if extra(&c, "max_num_seqs") != nil || c.ContextLabel != "1K" || c.Repeat != nil {
				t.Errorf("run %d cell: %s", i, js(c))
			}
		}
	}
	c := ms[1].Measurements[1]
	if !near(c.TTFTMs, 238.14) || !near(c.TotalTokS, 1451.52) || !near(extra(&c, "max_output_tokens_per_s"), 1555.2) || *c.Concurrency != 32 {
		t.Errorf("cell %s", js(c))
	}
}

func TestModelBase(t *testing.T) {
	tests := map[string]string{
		"/models/models--openai--gpt-oss-120b/snapshots/b5c939de8f754692c1647ca79fbf85e8c1e70f8a/": "gpt-oss-120b",
		"Qwen/Qwen3.5-397B-A17B-FP8": "Qwen3.5-397B-A17B-FP8",
		"llama2-70b-4096":            "llama2-70b-4096",
		"":                           "",
	}
	for in, want := range tests {
		if got := modelBase(in); got != want {
			t.Errorf("modelBase(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestVLLMFoundShapes checks vLLM benchmark_serving.py derivatives fixtures written in the shapes of real
// files found in public repositories (checkFoundShapes).
func TestVLLMFoundShapes(t *testing.T) {
	checkFoundShapes(t, []foundShape{
		// A 2024 derivative of benchmark_serving.py (LambdaLabsML/
		// vllm-benchmark results/prompt_10/…_len8192.json) names the
		// request latency *_latency_ms: once kept in extra only, e2e empty.
		{"vllm/latency-ms-derivative-2024.json", "org/Model-8B-FP8", "Model-8B-FP8", 1, "", "", []foundCheck{
			{"e2e mean", foundCell(0, func(c *schema.Measurement) *float64 { return c.E2EMeanMs }), 300.5},
			{"e2e p50", foundCell(0, func(c *schema.Measurement) *float64 { return c.E2EP50Ms }), 290.25},
			{"e2e p99", foundCell(0, func(c *schema.Measurement) *float64 { return c.E2EP99Ms }), 380.75},
			{"no e2e p90 (none in the file)", foundCell(0, func(c *schema.Measurement) *float64 { return c.E2EP90Ms }), none},
			{"std kept", foundExtra(0, "std_latency_ms"), 40.5},
			{"mean not also in extra", foundExtra(0, "mean_latency_ms"), none},
			{"median not also in extra", foundExtra(0, "median_latency_ms"), none},
			{"p99 not also in extra", foundExtra(0, "p99_latency_ms"), none},
			{"ttft p50", foundCell(0, func(c *schema.Measurement) *float64 { return c.TTFTMs }), 44.25},
			{"ttft p99", foundCell(0, func(c *schema.Measurement) *float64 { return c.TTFTP99Ms }), 50.75},
			{"tpot → tbt p50", foundCell(0, func(c *schema.Measurement) *float64 { return c.TBTMs }), 6.25},
			{"itl → chunk gap mean", foundCell(0, func(c *schema.Measurement) *float64 { return c.ChunkGapMeanMs }), 6.75},
			{"rate inf", foundCell(0, func(c *schema.Measurement) *float64 { return c.RequestRate }), math.Inf(1)},
			{"no concurrency", foundCell(0, func(c *schema.Measurement) *float64 { return foundI32(c.Concurrency) }), none},
			{"output tok/s", foundCell(0, func(c *schema.Measurement) *float64 { return c.TotalTokS }), 128},
			{"input tok/s", foundCell(0, func(c *schema.Measurement) *float64 { return c.InputTokS }), 320},
			{"completed", foundCell(0, func(c *schema.Measurement) *float64 { return foundI64(c.CompletedRequests) }), 4},
			{"duration", foundCell(0, func(c *schema.Measurement) *float64 { return c.MeasuredS }), 1.25},
		}},
	})
}
