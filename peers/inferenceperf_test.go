package peers

import (
	"strings"
	"testing"

	"speedmatrix/schema"
)

// TestInferencePerfFiles reads the fixtures of inference-perf under inference-perf/ and checks
// their format, model, cells and figures.
func TestInferencePerfFiles(t *testing.T) {
	checkFiles(t, []fileCase{
		// inference-perf's lifecycle report of one stage (seconds).
		// inference-perf of 2026: prompt_len gone, prompt_tokens (server
		// counts: total, cached, distribution) stands for it; every other
		// number (retries, goodput, failures by label …) lands in extra,
		// seconds in ms, rates per second left alone.
		{"inference-perf/stage_1_lifecycle_metrics-2026.json", FormatInferencePerf, "", 1, []check{
			{"context from prompt_tokens mean", func(m *schema.Matrix) *float64 { return i64(m.Measurements[0].ContextTokens) }, 1030},
			{"input tokens total", func(m *schema.Matrix) *float64 { return i64(m.Measurements[0].InputTokensTotal) }, 630432},
			{"output tokens total", func(m *schema.Matrix) *float64 { return i64(m.Measurements[0].OutputTokens) }, 78435},
			{"benchmark time", func(m *schema.Matrix) *float64 { return m.Measurements[0].MeasuredS }, 61.5},
			{"concurrency of the stage", func(m *schema.Matrix) *float64 { return i32p(m.Measurements[0].Concurrency) }, 32},
			{"rate of the stage", func(m *schema.Matrix) *float64 { return m.Measurements[0].RequestRate }, 10},
			{"cached prompt tokens", func(m *schema.Matrix) *float64 { return extra(&m.Measurements[0], "prompt_tokens_cached") }, 201500},
			{"goodput", func(m *schema.Matrix) *float64 { return extra(&m.Measurements[0], "goodput_metrics_request_goodput") }, 9.105},
			{"retry waste in ms", func(m *schema.Matrix) *float64 { return extra(&m.Measurements[0], "retries_wasted_total_ms") }, 16500},
			{"retry waste p90 in ms", func(m *schema.Matrix) *float64 { return extra(&m.Measurements[0], "retries_wasted_p90_ms") }, 3500},
			{"failures by label", func(m *schema.Matrix) *float64 {
				return extra(&m.Measurements[0], "failures_by_label_429_rate_limit_count")
			}, 5},
			{"a rate per second stays one", func(m *schema.Matrix) *float64 { return set(extra(&m.Measurements[0], "throughput_images_per_sec")) }, 1},
			{"request size", func(m *schema.Matrix) *float64 { return extra(&m.Measurements[0], "request_size_bytes_p90") }, 7010},
		}},
		// inference-perf's Prometheus metrics report: the model server's
		// view, latencies under successes in seconds, rates beside the
		// means; the server's per-token inter-token latency kept apart
		// from the client's chunk gaps.
		{"inference-perf/stage_0_prometheus_metrics.json", FormatInferencePerf, "", 1, []check{
			{"requests per second", func(m *schema.Matrix) *float64 { return m.Measurements[0].RequestThroughput }, 3.699181},
			{"output tokens per second", func(m *schema.Matrix) *float64 { return m.Measurements[0].TotalTokS }, 387.775739},
			{"input tokens per second", func(m *schema.Matrix) *float64 { return m.Measurements[0].InputTokS }, 224.720813},
			{"ttft median s to ms", func(m *schema.Matrix) *float64 { return m.Measurements[0].TTFTMs }, 23.043},
			{"tbt p99", func(m *schema.Matrix) *float64 { return m.Measurements[0].TBTP99Ms }, 48.646},
			{"e2e p90", func(m *schema.Matrix) *float64 { return m.Measurements[0].E2EP90Ms }, 9407.407},
			{"context", func(m *schema.Matrix) *float64 { return i64(m.Measurements[0].ContextTokens) }, 583},
			{"completed", func(m *schema.Matrix) *float64 { return i64(m.Measurements[0].CompletedRequests) }, 295},
		}},
		{"inference-perf/stage_2_prometheus_metrics-2026.json", FormatInferencePerf, "", 1, []check{
			{"server itl in ms, not a chunk gap", func(m *schema.Matrix) *float64 { return extra(&m.Measurements[0], "server_inter_token_latency_p90_ms") }, 22.5},
			{"no chunk gap", func(m *schema.Matrix) *float64 { return set(m.Measurements[0].ChunkGapP50Ms) }, 0},
			{"queue time in ms", func(m *schema.Matrix) *float64 { return extra(&m.Measurements[0], "request_queue_time_p99_ms") }, 210},
			{"block lifetime in ms", func(m *schema.Matrix) *float64 { return extra(&m.Measurements[0], "kv_block_lifetime_avg_ms") }, 12500},
			{"kv cache share, a 0–1 fraction named so", func(m *schema.Matrix) *float64 { return extra(&m.Measurements[0], "kv_cache_usage_fraction_p99") }, 0.6125},
			{"prefix cache hits, a fraction", func(m *schema.Matrix) *float64 { return extra(&m.Measurements[0], "prefix_cache_hit_fraction_avg") }, 0.125},
			{"no percentage name left", func(m *schema.Matrix) *float64 {
				return set(extra(&m.Measurements[0], "kv_cache_usage_percentage_p99"))
			}, 0},
			{"cached prompt tokens", func(m *schema.Matrix) *float64 { return extra(&m.Measurements[0], "prompt_tokens_cached") }, 153600},
			{"running", func(m *schema.Matrix) *float64 { return extra(&m.Measurements[0], "num_requests_running_avg") }, 48.5},
		}},
		// llm-d-benchmark's fixture: prompt_len (client count) and
		// prompt_tokens (server count) both; the first is the context, the
		// second is kept.
		{"inference-perf/llmd-benchmark-stage-prompt-tokens.json", FormatInferencePerf, "", 1, []check{
			{"context from prompt_len", func(m *schema.Matrix) *float64 { return i64(m.Measurements[0].ContextTokens) }, 4477},
			{"prompt_tokens kept", func(m *schema.Matrix) *float64 { return extra(&m.Measurements[0], "prompt_tokens_avg") }, 7197.974683544304},
			{"e2e mean", func(m *schema.Matrix) *float64 { return m.Measurements[0].E2EMeanMs }, 4338.102704063284},
		}},
		{"inference-perf/stage_3_lifecycle_metrics.json", FormatInferencePerf, "", 1, []check{
			{"rate", func(m *schema.Matrix) *float64 { return m.Measurements[0].RequestRate }, 16},
			{"ttft median s to ms", func(m *schema.Matrix) *float64 { return m.Measurements[0].TTFTMs }, 89.29768897360191},
			{"ttft p90", func(m *schema.Matrix) *float64 { return m.Measurements[0].TTFTP90Ms }, 145.19051388488152},
			{"tbt = time_per_output_token median", func(m *schema.Matrix) *float64 { return m.Measurements[0].TBTMs }, 17.54722771012656},
			{"chunk gap = inter_token_latency median", func(m *schema.Matrix) *float64 { return m.Measurements[0].ChunkGapP50Ms }, 0.1673795050010085},
			{"e2e mean", func(m *schema.Matrix) *float64 { return m.Measurements[0].E2EMeanMs }, 7630.229180409212},
			{"total tok/s", func(m *schema.Matrix) *float64 { return m.Measurements[0].TotalTokS }, 2673.728455531701},
			{"input tok/s", func(m *schema.Matrix) *float64 { return m.Measurements[0].InputTokS }, 2763.0938968935975},
			{"request throughput", func(m *schema.Matrix) *float64 { return m.Measurements[0].RequestThroughput }, 12.674076482112723},
			{"completed", func(m *schema.Matrix) *float64 { return i64(m.Measurements[0].CompletedRequests) }, 960},
			{"errored", func(m *schema.Matrix) *float64 { return i64(m.Measurements[0].ErroredRequests) }, 0},
			{"prompt mean", func(m *schema.Matrix) *float64 { return i64(m.Measurements[0].PromptTokens) }, 218},
			{"e2e per token kept in ms", func(m *schema.Matrix) *float64 {
				return extra(&m.Measurements[0], "normalized_time_per_output_token_p50_ms")
			}, 38.41728906105465},
			{"achieved rate kept", func(m *schema.Matrix) *float64 { return extra(&m.Measurements[0], "achieved_rate_avg") }, 16.00201431836482},
		}},
	})
}

// TestInferencePerfFoundShapes checks inference-perf fixtures written in the shapes of real
// files found in public repositories (checkFoundShapes).
func TestInferencePerfFoundShapes(t *testing.T) {
	checkFoundShapes(t, []foundShape{
		// inference-perf's Prometheus report of a whole run (kubernetes-sigs/
		// inference-perf, demos/kubecon-na-2025/vllm/results, copied): the
		// KV cache gauge is vLLM's 0–1 fraction under a "percentage" name.
		{"inference-perf/stage_-1_prometheus_metrics.json", "", "", 1, "", "", []foundCheck{
			{"kv cache usage p99, a fraction", foundExtra(0, "kv_cache_usage_fraction_p99"), 0.716064},
			{"kv cache usage mean", foundExtra(0, "kv_cache_usage_fraction_avg"), 0.508616},
			{"prefix cache hits, a fraction", foundExtra(0, "prefix_cache_hit_fraction_avg"), 0.7709618557536707},
			{"no percentage name", foundExtra(0, "kv_cache_usage_percentage_p99"), none},
			{"queue length", foundExtra(0, "queue_len_avg"), 146},
			{"ttft median s to ms", foundCell(0, func(c *schema.Measurement) *float64 { return c.TTFTMs }), 13460.196},
			{"ttft mean", foundCell(0, func(c *schema.Measurement) *float64 { return c.TTFTMeanMs }), 10175.961},
			{"ttft p90", foundCell(0, func(c *schema.Measurement) *float64 { return c.TTFTP90Ms }), 18692.039},
			{"ttft p99", foundCell(0, func(c *schema.Measurement) *float64 { return c.TTFTP99Ms }), 19869.204},
			{"tbt (server tpot) median", foundCell(0, func(c *schema.Measurement) *float64 { return c.TBTMs }), 62.05},
			{"tbt p99", foundCell(0, func(c *schema.Measurement) *float64 { return c.TBTP99Ms }), 185.341},
			{"e2e median", foundCell(0, func(c *schema.Measurement) *float64 { return c.E2EP50Ms }), 19181.818},
			{"e2e p99", foundCell(0, func(c *schema.Measurement) *float64 { return c.E2EP99Ms }), 98828.571},
			{"output tok/s (output_len rate)", foundCell(0, func(c *schema.Measurement) *float64 { return c.TotalTokS }), 2907.440465},
			{"input tok/s (prompt_len rate)", foundCell(0, func(c *schema.Measurement) *float64 { return c.InputTokS }), 3351.862376},
			{"requests/s (successes rate)", foundCell(0, func(c *schema.Measurement) *float64 { return c.RequestThroughput }), 14.116359},
			{"completed", foundCell(0, func(c *schema.Measurement) *float64 { return foundI64(c.CompletedRequests) }), 1976},
			{"context = mean prompt", foundCell(0, func(c *schema.Measurement) *float64 { return foundI64(c.ContextTokens) }), 3570},
			{"no load recorded: no concurrency", foundCell(0, func(c *schema.Measurement) *float64 { return foundI32(c.Concurrency) }), none},
			{"no load recorded: no rate", foundCell(0, func(c *schema.Measurement) *float64 { return c.RequestRate }), none},
		}},
		// An inference-perf stage of its replay load generator, which
		// records the stage at rate −1: no rate, the −1 kept, a warning.
		{"inference-perf/stage_0_lifecycle_metrics-replay-rate-minus-one.json", "", "", 1, "requested_rate", "", []foundCheck{
			{"no rate", foundCell(0, func(c *schema.Measurement) *float64 { return c.RequestRate }), none},
			{"no concurrency", foundCell(0, func(c *schema.Measurement) *float64 { return foundI32(c.Concurrency) }), none},
			{"the -1 kept", foundExtra(0, "requested_rate_raw"), -1},
			{"achieved rate kept", foundExtra(0, "achieved_rate_avg"), 2.025},
			{"requests/s", foundCell(0, func(c *schema.Measurement) *float64 { return c.RequestThroughput }), 1.9875},
			{"ttft p50", foundCell(0, func(c *schema.Measurement) *float64 { return c.TTFTMs }), 312.5},
			{"tbt p99", foundCell(0, func(c *schema.Measurement) *float64 { return c.TBTP99Ms }), 28},
			{"completed", foundCell(0, func(c *schema.Measurement) *float64 { return foundI64(c.CompletedRequests) }), 238},
			{"failed", foundCell(0, func(c *schema.Measurement) *float64 { return foundI64(c.ErroredRequests) }), 2},
		}},
	})
}

// TestInferencePerfExtraNamesHaveNoDot checks that no extra name keeps a "." of
// the tool's statistic (inference-perf's p0.1, p99.9): docs/schema.md
// names them with "_", and a rendered document reads them back so.
func TestInferencePerfExtraNamesHaveNoDot(t *testing.T) {
	m, err := readPeer(t, "inference-perf/summary_lifecycle_metrics.json")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range m.Measurements[0].Extra {
		if strings.Contains(e.Name, ".") {
			t.Errorf("extra %s = %g has a dot", e.Name, e.Value)
		}
	}
	if p := extra(&m.Measurements[0], "time_to_first_token_p99_9_ms"); !near(p, 6499.61447016278) {
		t.Errorf("ttft p99.9 = %v, want 6499.61447016278 ms", shown(p))
	}
}
