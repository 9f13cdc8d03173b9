package peers

import (
	"encoding/json"
	"math"
	"slices"
	"strings"
	"testing"

	"speedmatrix/schema"
)

// foundCheck is one figure of a fixture written in the shape of a real
// file found in a public repository, and the value the source gives it
// (converted to the column's unit).
type foundCheck struct {
	what string
	got  func(m *schema.Matrix) *float64
	want float64 // none: the figure must be absent
}

// none marks a figure that must not be stored.
const none = -1e308

// TestPeerFoundShapes checks, field by field against the numbers of the
// source, the fixtures written in the shapes of real files found in public
// repositories that speedmatrix once read wrong or rejected (see
// parse/testdata/peers/SYNTHETIC.md for their origins).
func TestPeerFoundShapes(t *testing.T) {
	cell := func(i int, f func(c *schema.Measurement) *float64) func(m *schema.Matrix) *float64 {
		return func(m *schema.Matrix) *float64 {
			if i >= len(m.Measurements) {
				return nil
			}
			return f(&m.Measurements[i])
		}
	}
	num := func(v float64) *float64 { return &v }
	i64 := func(p *int64) *float64 {
		if p == nil {
			return nil
		}
		return num(float64(*p))
	}
	i32 := func(p *int32) *float64 {
		if p == nil {
			return nil
		}
		return num(float64(*p))
	}
	x := func(i int, name string) func(m *schema.Matrix) *float64 {
		return cell(i, func(c *schema.Measurement) *float64 { return extra(c, name) })
	}
	tests := []struct {
		file  string
		id    string // the model id, as the source names it
		model string
		cells int
		warn  string // a Warnings field the run must carry
		gpu   string // the GPU the run names, when it names one
		check []foundCheck
	}{
		// genai-bench against an endpoint that did not stream (basetenlabs/
		// genai-bench's TRT-LLM gpt-oss-120b folder): every request's TTFT
		// is the tool's 1 ms stand-in, tpot the whole request per token.
		// Its file name holds the model (api_model_name, "/" written "_").
		{"genai-bench/nonstreamed-D2000_200_text-to-text_org_Model-120B_num_concurrency_8_time_60s.json", "org/Model-120B", "Model-120B", 1, "ttft", "", []foundCheck{
			{"no TTFT column", cell(0, func(c *schema.Measurement) *float64 { return c.TTFTMs }), none},
			{"no TTFT p99", cell(0, func(c *schema.Measurement) *float64 { return c.TTFTP99Ms }), none},
			{"no TTFT mean", cell(0, func(c *schema.Measurement) *float64 { return c.TTFTMeanMs }), none},
			{"no TBT column", cell(0, func(c *schema.Measurement) *float64 { return c.TBTMs }), none},
			{"no TBT p90", cell(0, func(c *schema.Measurement) *float64 { return c.TBTP90Ms }), none},
			{"no decode rate", cell(0, func(c *schema.Measurement) *float64 { return c.PerRequestTokS }), none},
			{"placeholder kept, in ms", x(0, "nonstreamed_ttft_placeholder_p50_ms"), 1.0000000002037268},
			{"tpot kept as e2e per output token, ms", x(0, "e2e_per_output_token_p50_ms"), 6.0625},
			{"its p99", x(0, "e2e_per_output_token_p99_ms"), 8.1875},
			{"output_inference_speed kept as request tok/s (not streamed)", x(0, "request_output_tok_s_nonstreamed_p50"), 164.9375},
			{"per-request output throughput, not the run's, not a decode rate", x(0, "request_output_throughput_tok_s_nonstreamed_p50"), 164.9375},
			{"no decode rate name", x(0, "request_decode_tok_s_p50"), none},
			{"per-request input throughput (from the stand-in)", x(0, "request_input_tok_s_p50"), 2000999.9995923},
			{"no tool name left for it", x(0, "output_throughput_p50"), none},
			{"e2e p50 s to ms", cell(0, func(c *schema.Measurement) *float64 { return c.E2EP50Ms }), 1207.4},
			{"e2e p90", cell(0, func(c *schema.Measurement) *float64 { return c.E2EP90Ms }), 1356.7},
			{"e2e p99", cell(0, func(c *schema.Measurement) *float64 { return c.E2EP99Ms }), 1630.3},
			{"e2e mean", cell(0, func(c *schema.Measurement) *float64 { return c.E2EMeanMs }), 1219.8},
			{"concurrency", cell(0, func(c *schema.Measurement) *float64 { return i32(c.Concurrency) }), 8},
			{"no rate", cell(0, func(c *schema.Measurement) *float64 { return c.RequestRate }), none},
			{"context = requested 2000", cell(0, func(c *schema.Measurement) *float64 { return i64(c.ContextTokens) }), 2000},
			{"prompt tokens", cell(0, func(c *schema.Measurement) *float64 { return i64(c.PromptTokens) }), 2001},
			{"total tok/s", cell(0, func(c *schema.Measurement) *float64 { return c.TotalTokS }), 331.875},
			{"input tok/s", cell(0, func(c *schema.Measurement) *float64 { return c.InputTokS }), 3318.75},
			{"request throughput", cell(0, func(c *schema.Measurement) *float64 { return c.RequestThroughput }), 1.65625},
			{"completed", cell(0, func(c *schema.Measurement) *float64 { return i64(c.CompletedRequests) }), 100},
			{"errored (error_rate says 0)", cell(0, func(c *schema.Measurement) *float64 { return i64(c.ErroredRequests) }), 3},
			{"error code", x(0, "error_code_500_count"), 3},
			{"output tokens", cell(0, func(c *schema.Measurement) *float64 { return i64(c.OutputTokens) }), 20000},
			{"input tokens", cell(0, func(c *schema.Measurement) *float64 { return i64(c.InputTokensTotal) }), 200100},
			{"duration", cell(0, func(c *schema.Measurement) *float64 { return c.MeasuredS }), 60.25},
		}},
		// A 2024 derivative of benchmark_serving.py (LambdaLabsML/
		// vllm-benchmark results/prompt_10/…_len8192.json) names the
		// request latency *_latency_ms: once kept in extra only, e2e empty.
		{"vllm/latency-ms-derivative-2024.json", "org/Model-8B-FP8", "Model-8B-FP8", 1, "", "", []foundCheck{
			{"e2e mean", cell(0, func(c *schema.Measurement) *float64 { return c.E2EMeanMs }), 300.5},
			{"e2e p50", cell(0, func(c *schema.Measurement) *float64 { return c.E2EP50Ms }), 290.25},
			{"e2e p99", cell(0, func(c *schema.Measurement) *float64 { return c.E2EP99Ms }), 380.75},
			{"no e2e p90 (none in the file)", cell(0, func(c *schema.Measurement) *float64 { return c.E2EP90Ms }), none},
			{"std kept", x(0, "std_latency_ms"), 40.5},
			{"mean not also in extra", x(0, "mean_latency_ms"), none},
			{"median not also in extra", x(0, "median_latency_ms"), none},
			{"p99 not also in extra", x(0, "p99_latency_ms"), none},
			{"ttft p50", cell(0, func(c *schema.Measurement) *float64 { return c.TTFTMs }), 44.25},
			{"ttft p99", cell(0, func(c *schema.Measurement) *float64 { return c.TTFTP99Ms }), 50.75},
			{"tpot → tbt p50", cell(0, func(c *schema.Measurement) *float64 { return c.TBTMs }), 6.25},
			{"itl → chunk gap mean", cell(0, func(c *schema.Measurement) *float64 { return c.ChunkGapMeanMs }), 6.75},
			{"rate inf", cell(0, func(c *schema.Measurement) *float64 { return c.RequestRate }), math.Inf(1)},
			{"no concurrency", cell(0, func(c *schema.Measurement) *float64 { return i32(c.Concurrency) }), none},
			{"output tok/s", cell(0, func(c *schema.Measurement) *float64 { return c.TotalTokS }), 128},
			{"input tok/s", cell(0, func(c *schema.Measurement) *float64 { return c.InputTokS }), 320},
			{"completed", cell(0, func(c *schema.Measurement) *float64 { return i64(c.CompletedRequests) }), 4},
			{"duration", cell(0, func(c *schema.Measurement) *float64 { return c.MeasuredS }), 1.25},
		}},
		// llmperf-bench (philschmid/llmperf-bench, results/2.0.1/*_results.json):
		// llmperf's summaries keyed by concurrency, one cell each.
		{"llmperf/llmperf-bench-keyed-results.json", "org/Model-8B-Instruct", "Model-8B-Instruct", 2, "", "", []foundCheck{
			{"concurrency of the first", cell(0, func(c *schema.Measurement) *float64 { return i32(c.Concurrency) }), 4},
			{"concurrency of the second", cell(1, func(c *schema.Measurement) *float64 { return i32(c.Concurrency) }), 16},
			{"ttft p50 s to ms", cell(0, func(c *schema.Measurement) *float64 { return c.TTFTMs }), 196.07},
			{"ttft p90", cell(0, func(c *schema.Measurement) *float64 { return c.TTFTP90Ms }), 209.005},
			{"ttft p99", cell(0, func(c *schema.Measurement) *float64 { return c.TTFTP99Ms }), 209.954},
			{"ttft mean", cell(0, func(c *schema.Measurement) *float64 { return c.TTFTMeanMs }), 197.673},
			{"e2e p50", cell(0, func(c *schema.Measurement) *float64 { return c.E2EP50Ms }), 6608.84},
			{"e2e p90", cell(0, func(c *schema.Measurement) *float64 { return c.E2EP90Ms }), 6620.4},
			{"e2e p99", cell(0, func(c *schema.Measurement) *float64 { return c.E2EP99Ms }), 6635.58},
			{"e2e mean", cell(0, func(c *schema.Measurement) *float64 { return c.E2EMeanMs }), 6610.78},
			{"no tbt (llmperf's ITL has the first token in it)", cell(0, func(c *schema.Measurement) *float64 { return c.TBTMs }), none},
			{"its ITL kept by formula", x(0, "e2e_per_token_ms_p50"), 38.0412},
			{"total tok/s", cell(0, func(c *schema.Measurement) *float64 { return c.TotalTokS }), 45.6505},
			{"requests per minute to per second", cell(0, func(c *schema.Measurement) *float64 { return c.RequestThroughput }), 15.6883 / 60},
			{"context = mean_input_tokens", cell(0, func(c *schema.Measurement) *float64 { return i64(c.ContextTokens) }), 1000},
			{"prompt tokens measured", cell(0, func(c *schema.Measurement) *float64 { return i64(c.PromptTokens) }), 754},
			{"completed", cell(0, func(c *schema.Measurement) *float64 { return i64(c.CompletedRequests) }), 64},
			{"errored", cell(0, func(c *schema.Measurement) *float64 { return i64(c.ErroredRequests) }), 0},
			{"second: ttft p50", cell(1, func(c *schema.Measurement) *float64 { return c.TTFTMs }), 209.537},
			{"second: ttft p99", cell(1, func(c *schema.Measurement) *float64 { return c.TTFTP99Ms }), 356.637},
			{"second: e2e p90", cell(1, func(c *schema.Measurement) *float64 { return c.E2EP90Ms }), 7121.28},
			{"second: total tok/s", cell(1, func(c *schema.Measurement) *float64 { return c.TotalTokS }), 84.5668},
			{"second: requests per second", cell(1, func(c *schema.Measurement) *float64 { return c.RequestThroughput }), 29.1459 / 60},
		}},
		// inference-perf's Prometheus report of a whole run (kubernetes-sigs/
		// inference-perf, demos/kubecon-na-2025/vllm/results, copied): the
		// KV cache gauge is vLLM's 0–1 fraction under a "percentage" name.
		{"inference-perf/stage_-1_prometheus_metrics.json", "", "", 1, "", "", []foundCheck{
			{"kv cache usage p99, a fraction", x(0, "kv_cache_usage_fraction_p99"), 0.716064},
			{"kv cache usage mean", x(0, "kv_cache_usage_fraction_avg"), 0.508616},
			{"prefix cache hits, a fraction", x(0, "prefix_cache_hit_fraction_avg"), 0.7709618557536707},
			{"no percentage name", x(0, "kv_cache_usage_percentage_p99"), none},
			{"queue length", x(0, "queue_len_avg"), 146},
			{"ttft median s to ms", cell(0, func(c *schema.Measurement) *float64 { return c.TTFTMs }), 13460.196},
			{"ttft mean", cell(0, func(c *schema.Measurement) *float64 { return c.TTFTMeanMs }), 10175.961},
			{"ttft p90", cell(0, func(c *schema.Measurement) *float64 { return c.TTFTP90Ms }), 18692.039},
			{"ttft p99", cell(0, func(c *schema.Measurement) *float64 { return c.TTFTP99Ms }), 19869.204},
			{"tbt (server tpot) median", cell(0, func(c *schema.Measurement) *float64 { return c.TBTMs }), 62.05},
			{"tbt p99", cell(0, func(c *schema.Measurement) *float64 { return c.TBTP99Ms }), 185.341},
			{"e2e median", cell(0, func(c *schema.Measurement) *float64 { return c.E2EP50Ms }), 19181.818},
			{"e2e p99", cell(0, func(c *schema.Measurement) *float64 { return c.E2EP99Ms }), 98828.571},
			{"output tok/s (output_len rate)", cell(0, func(c *schema.Measurement) *float64 { return c.TotalTokS }), 2907.440465},
			{"input tok/s (prompt_len rate)", cell(0, func(c *schema.Measurement) *float64 { return c.InputTokS }), 3351.862376},
			{"requests/s (successes rate)", cell(0, func(c *schema.Measurement) *float64 { return c.RequestThroughput }), 14.116359},
			{"completed", cell(0, func(c *schema.Measurement) *float64 { return i64(c.CompletedRequests) }), 1976},
			{"context = mean prompt", cell(0, func(c *schema.Measurement) *float64 { return i64(c.ContextTokens) }), 3570},
			{"no load recorded: no concurrency", cell(0, func(c *schema.Measurement) *float64 { return i32(c.Concurrency) }), none},
			{"no load recorded: no rate", cell(0, func(c *schema.Measurement) *float64 { return c.RequestRate }), none},
		}},
		// inference-benchmarker's first writer (text-generation-inference-
		// benchmark, 2024: venkateshops/inference-benchmarker src/writers.rs):
		// avg, p90 and p95 as flat keys, e2e in whole milliseconds.
		{"hf-inference-benchmarker/results-flat-2024.json", "org/Model-12B-it", "Model-12B-it", 1, "", "", []foundCheck{
			{"rate, not the VU cap", cell(0, func(c *schema.Measurement) *float64 { return c.RequestRate }), 2},
			{"no concurrency", cell(0, func(c *schema.Measurement) *float64 { return i32(c.Concurrency) }), none},
			{"VU cap kept", x(0, "max_vus_cap_avg"), 64},
			{"ttft mean", cell(0, func(c *schema.Measurement) *float64 { return c.TTFTMeanMs }), 88.125},
			{"ttft p90", cell(0, func(c *schema.Measurement) *float64 { return c.TTFTP90Ms }), 131.75},
			{"ttft p95 kept", x(0, "time_to_first_token_p95_ms"), 152.5},
			{"no ttft median (not written)", cell(0, func(c *schema.Measurement) *float64 { return c.TTFTMs }), none},
			{"tbt mean", cell(0, func(c *schema.Measurement) *float64 { return c.TBTMeanMs }), 17.375},
			{"tbt p90", cell(0, func(c *schema.Measurement) *float64 { return c.TBTP90Ms }), 19.625},
			{"itl p95 kept", x(0, "inter_token_latency_p95_ms"), 21.125},
			{"e2e mean", cell(0, func(c *schema.Measurement) *float64 { return c.E2EMeanMs }), 6981},
			{"e2e p90", cell(0, func(c *schema.Measurement) *float64 { return c.E2EP90Ms }), 7652},
			{"e2e p95 kept", x(0, "request_latency_p95_ms"), 7894},
			{"total tok/s", cell(0, func(c *schema.Measurement) *float64 { return c.TotalTokS }), 793.5},
			{"request throughput", cell(0, func(c *schema.Measurement) *float64 { return c.RequestThroughput }), 1.98375},
			{"completed", cell(0, func(c *schema.Measurement) *float64 { return i64(c.CompletedRequests) }), 119},
			{"failed", cell(0, func(c *schema.Measurement) *float64 { return i64(c.ErroredRequests) }), 2},
			{"output tokens", cell(0, func(c *schema.Measurement) *float64 { return i64(c.OutputTokens) }), 47600},
			{"prompt tokens sent / successful", cell(0, func(c *schema.Measurement) *float64 { return i64(c.PromptTokens) }), 1005},
			{"context = configured prompt", cell(0, func(c *schema.Measurement) *float64 { return i64(c.ContextTokens) }), 1000},
			{"duration ms to s", cell(0, func(c *schema.Measurement) *float64 { return c.MeasuredS }), 59.987},
			{"configured seconds", func(m *schema.Matrix) *float64 { return m.Run.MeasureSeconds }, 60},
			{"max output tokens (decode_options)", func(m *schema.Matrix) *float64 { return i64(m.Run.MaxOutputTokens) }, 400},
		}},
		// inference-benchmarker's newest writer (arewa-ai/inference-benchmarker
		// src/writers.rs, after upstream's input throughput): the input
		// token throughput and the per-second medians beside the maps.
		{"hf-inference-benchmarker/results-input-throughput-2026.json", "org/Model-12B-it", "Model-12B-it", 1, "", "NVIDIA H100 80GB HBM3", []foundCheck{
			{"concurrency = VUs", cell(0, func(c *schema.Measurement) *float64 { return i32(c.Concurrency) }), 64},
			{"input tok/s", cell(0, func(c *schema.Measurement) *float64 { return c.InputTokS }), 14875.25},
			{"output tok/s median kept", x(0, "output_token_throughput_median_tok_s"), 6016},
			{"input tok/s median kept", x(0, "input_token_throughput_median_tok_s"), 14000},
			{"total tok/s", cell(0, func(c *schema.Measurement) *float64 { return c.TotalTokS }), 5973.5},
			{"ttft p50", cell(0, func(c *schema.Measurement) *float64 { return c.TTFTMs }), 412.5},
			{"ttft p99", cell(0, func(c *schema.Measurement) *float64 { return c.TTFTP99Ms }), 890.125},
			{"tbt p50", cell(0, func(c *schema.Measurement) *float64 { return c.TBTMs }), 9.875},
			{"e2e p90", cell(0, func(c *schema.Measurement) *float64 { return c.E2EP90Ms }), 4720.5},
			{"completed", cell(0, func(c *schema.Measurement) *float64 { return i64(c.CompletedRequests) }), 896},
			{"failed", cell(0, func(c *schema.Measurement) *float64 { return i64(c.ErroredRequests) }), 9},
		}},
		// A Replicate model of the llmperf leaderboard (copied): the model
		// is owner/name:<version hash>; the hash is the revision.
		{"llmperf/leaderboard-replicate_70b_summary.json", "meta/llama-2-70b-chat:02e509c789964a7ea8736978a43525956ef40397be9033abf9fd2badfe68c9e3", "llama-2-70b-chat", 1, "", "", []foundCheck{
			{"revision is the version hash", func(m *schema.Matrix) *float64 {
				if m.Run.Revision == "02e509c789964a7ea8736978a43525956ef40397be9033abf9fd2badfe68c9e3" {
					return num(1)
				}
				return nil
			}, 1},
			{"concurrency", cell(0, func(c *schema.Measurement) *float64 { return i32(c.Concurrency) }), 5},
			{"ttft p50", cell(0, func(c *schema.Measurement) *float64 { return c.TTFTMs }), 1187.9947680000669},
			{"ttft p90", cell(0, func(c *schema.Measurement) *float64 { return c.TTFTP90Ms }), 12323.396534799963},
			{"ttft p99", cell(0, func(c *schema.Measurement) *float64 { return c.TTFTP99Ms }), 63626.44487116},
			{"ttft mean", cell(0, func(c *schema.Measurement) *float64 { return c.TTFTMeanMs }), 5083.249257606895},
			{"e2e p50", cell(0, func(c *schema.Measurement) *float64 { return c.E2EP50Ms }), 12370.869038000023},
			{"e2e p99", cell(0, func(c *schema.Measurement) *float64 { return c.E2EP99Ms }), 74945.79868671998},
			{"total tok/s", cell(0, func(c *schema.Measurement) *float64 { return c.TotalTokS }), 29.434595028687124},
			{"requests/s", cell(0, func(c *schema.Measurement) *float64 { return c.RequestThroughput }), 14.423034455059305 / 60},
			{"completed", cell(0, func(c *schema.Measurement) *float64 { return i64(c.CompletedRequests) }), 145},
			{"context", cell(0, func(c *schema.Measurement) *float64 { return i64(c.ContextTokens) }), 550},
		}},
		// genai-bench's open loop (--qps-level, async runner): the QPS is
		// written as num_concurrency 2.0, iteration_type num_concurrency;
		// the arrival rate the open-loop runner records equals it.
		{"genai-bench/openloop-D1000_100_text-to-text_org_Model-8B_num_concurrency_2.0_time_60s.json", "org/Model-8B", "Model-8B", 1, "", "", []foundCheck{
			{"rate, not concurrency", cell(0, func(c *schema.Measurement) *float64 { return c.RequestRate }), 2},
			{"no concurrency", cell(0, func(c *schema.Measurement) *float64 { return i32(c.Concurrency) }), none},
			{"arrival rate kept", x(0, "arrival_requests_per_second_avg"), 2},
			{"arrivals kept", x(0, "total_arrivals_avg"), 120},
			{"ttft p50", cell(0, func(c *schema.Measurement) *float64 { return c.TTFTMs }), 112.5},
			{"ttft p99", cell(0, func(c *schema.Measurement) *float64 { return c.TTFTP99Ms }), 281.25},
			{"tbt p50", cell(0, func(c *schema.Measurement) *float64 { return c.TBTMs }), 12.1875},
			{"e2e p90", cell(0, func(c *schema.Measurement) *float64 { return c.E2EP90Ms }), 1475},
			{"decode rate p50", cell(0, func(c *schema.Measurement) *float64 { return c.PerRequestTokS }), 82.0625},
			{"per-request decode rate (output_throughput) kept", x(0, "request_decode_tok_s_p50"), 82.5},
			{"per-request prefill rate (input_throughput) kept", x(0, "request_input_tok_s_p50"), 8888.875},
			{"total tok/s", cell(0, func(c *schema.Measurement) *float64 { return c.TotalTokS }), 193.5},
			{"requests/s measured", cell(0, func(c *schema.Measurement) *float64 { return c.RequestThroughput }), 1.935},
			{"completed", cell(0, func(c *schema.Measurement) *float64 { return i64(c.CompletedRequests) }), 119},
			{"context", cell(0, func(c *schema.Measurement) *float64 { return i64(c.ContextTokens) }), 1000},
		}},
		// An inference-perf stage of its replay load generator, which
		// records the stage at rate −1: no rate, the −1 kept, a warning.
		{"inference-perf/stage_0_lifecycle_metrics-replay-rate-minus-one.json", "", "", 1, "requested_rate", "", []foundCheck{
			{"no rate", cell(0, func(c *schema.Measurement) *float64 { return c.RequestRate }), none},
			{"no concurrency", cell(0, func(c *schema.Measurement) *float64 { return i32(c.Concurrency) }), none},
			{"the -1 kept", x(0, "requested_rate_raw"), -1},
			{"achieved rate kept", x(0, "achieved_rate_avg"), 2.025},
			{"requests/s", cell(0, func(c *schema.Measurement) *float64 { return c.RequestThroughput }), 1.9875},
			{"ttft p50", cell(0, func(c *schema.Measurement) *float64 { return c.TTFTMs }), 312.5},
			{"tbt p99", cell(0, func(c *schema.Measurement) *float64 { return c.TBTP99Ms }), 28},
			{"completed", cell(0, func(c *schema.Measurement) *float64 { return i64(c.CompletedRequests) }), 238},
			{"failed", cell(0, func(c *schema.Measurement) *float64 { return i64(c.ErroredRequests) }), 2},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			m, err := readPeer(t, tt.file)
			if err != nil {
				t.Fatal(err)
			}
			if m.Run.ModelID != tt.id {
				t.Errorf("model id = %q, want %q", m.Run.ModelID, tt.id)
			}
			if m.Run.Model != tt.model {
				t.Errorf("model = %q, want %q", m.Run.Model, tt.model)
			}
			if len(m.Measurements) != tt.cells {
				t.Fatalf("%d cells, want %d", len(m.Measurements), tt.cells)
			}
			if tt.gpu != "" && m.Run.GPU != tt.gpu {
				t.Errorf("gpu = %q, want %q", m.Run.GPU, tt.gpu)
			}
			if tt.warn != "" && !slices.ContainsFunc(m.Run.Metadata, func(f schema.Field) bool { return f.Section == "Warnings" && f.Key == tt.warn }) {
				t.Errorf("no warning %q in %v", tt.warn, m.Run.Metadata)
			}
			for _, c := range tt.check {
				got := c.got(m)
				switch {
				case c.want == none && got != nil:
					t.Errorf("%s: got %g, want nothing", c.what, *got)
				case c.want != none && !near(got, c.want):
					t.Errorf("%s: got %v, want %g", c.what, shown(got), c.want)
				}
			}
		})
	}
}

// shown prints a figure or "none".
func shown(p *float64) any {
	if p == nil {
		return "none"
	}
	return *p
}

func TestGenAIBenchOpenLoop(t *testing.T) {
	n := func(v float64) num { return num{V: v, Set: true} }
	tests := []struct {
		conc, arrivals num
		want           bool
	}{
		{n(0.5), num{}, true},                // a QPS below one: no concurrency is fractional
		{n(2), n(2), true},                   // the open-loop runner's planned arrivals ÷ planned duration
		{n(4), n(1.5772870583561038), false}, // closed loop: sent ÷ measured duration
		{n(16), num{}, false},                // older files record no arrivals
		{num{}, n(2), false},
	}
	for _, tt := range tests {
		if got := genaiBenchOpenLoop(tt.conc, tt.arrivals); got != tt.want {
			t.Errorf("genaiBenchOpenLoop(%v, %v) = %v, want %v", tt.conc, tt.arrivals, got, tt.want)
		}
	}
}

// TestPeerFoundShapesStable parses each of these fixtures several times:
// a run's id is a hash of what is read, so the same file must read the
// same every time (inference-benchmarker's meta map once came out in
// Go's random map order, and a re-ingest was added as a new run).
func TestPeerFoundShapesStable(t *testing.T) {
	for _, file := range []string{
		"hf-inference-benchmarker/results-flat-2024.json",
		"hf-inference-benchmarker/results-input-throughput-2026.json",
		"genai-bench/nonstreamed-D2000_200_text-to-text_org_Model-120B_num_concurrency_8_time_60s.json",
		"llmperf/llmperf-bench-keyed-results.json",
	} {
		first, err := readPeer(t, file)
		if err != nil {
			t.Fatal(err)
		}
		want := asJSON(t, first)
		for range 20 {
			m, err := readPeer(t, file)
			if err != nil {
				t.Fatal(err)
			}
			if got := asJSON(t, m); got != want {
				t.Fatalf("%s reads differently from one parse to the next:\n%s\n%s", file, got, want)
			}
		}
	}
}

// TestPeerExtraNamesHaveNoDot checks that no extra name keeps a "." of
// the tool's statistic (inference-perf's p0.1, p99.9): docs/schema.md
// names them with "_", and a rendered document reads them back so.
func TestPeerExtraNamesHaveNoDot(t *testing.T) {
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

// asJSON is what a parse read, as JSON (the run's metadata and cells).
func asJSON(t *testing.T, m *schema.Matrix) string {
	t.Helper()
	b, err := json.Marshal(struct {
		Meta  []schema.Field
		Cells []schema.Measurement
	}{m.Run.Metadata, m.Measurements})
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
