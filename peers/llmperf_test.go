package peers

import (
	"testing"

	"speedmatrix/schema"
)

// TestLLMPerfFiles reads the fixtures of llmperf under llmperf/ and checks
// their format, model, cells and figures.
func TestLLMPerfFiles(t *testing.T) {
	checkFiles(t, []fileCase{
		// A leaderboard summary with failed requests: the error codes of
		// results_error_code_frequency (a Python dict in a string) are
		// counted, model_size kept.
		{"llmperf/leaderboard-bedrock_70b_summary.json", FormatLLMPerf, "meta.llama2-70b-chat-v1", 1, []check{
			{"error code counted", func(m *schema.Matrix) *float64 { return extra(&m.Measurements[0], "error_code_m100_count") }, 49},
			{"errored", func(m *schema.Matrix) *float64 { return i64(m.Measurements[0].ErroredRequests) }, 49},
			{"completed", func(m *schema.Matrix) *float64 { return i64(m.Measurements[0].CompletedRequests) }, 101},
			{"requests per minute to per second", func(m *schema.Matrix) *float64 { return m.Measurements[0].RequestThroughput }, 25.18838751305755 / 60},
			{"ttft p99 s to ms", func(m *schema.Matrix) *float64 { return m.Measurements[0].TTFTP99Ms }, 686.971139999514},
			{"concurrency", func(m *schema.Matrix) *float64 { return i32p(m.Measurements[0].Concurrency) }, 5},
			{"model size kept", func(m *schema.Matrix) *float64 {
				for _, kv := range m.Run.Metadata {
					if kv.Key == "model_size" && kv.Value == "70b" {
						return f64(1)
					}
				}
				return nil
			}, 1},
		}},
		{"llmperf/leaderboard-groq_70b_summary.json", FormatLLMPerf, "llama2-70b-4096", 1, []check{
			{"concurrency", func(m *schema.Matrix) *float64 { return i32p(m.Measurements[0].Concurrency) }, 5},
			{"ttft seconds to ms", func(m *schema.Matrix) *float64 { return m.Measurements[0].TTFTMs }, 221.8883791938424},
			{"llmperf ITL is not tbt", func(m *schema.Matrix) *float64 { return set(m.Measurements[0].TBTMs) }, 0},
			{"llmperf ITL kept by formula", func(m *schema.Matrix) *float64 { return extra(&m.Measurements[0], "e2e_per_token_ms_p50") }, 5.320808651546638},
			{"total tok/s", func(m *schema.Matrix) *float64 { return m.Measurements[0].TotalTokS }, 441.84737788500206},
			{"completed", func(m *schema.Matrix) *float64 { return i64(m.Measurements[0].CompletedRequests) }, 150},
			{"a number written as a string kept", func(m *schema.Matrix) *float64 { return extra(&m.Measurements[0], "results_number_input_tokens_min") }, 550},
		}},
	})
}

// TestLLMPerfFoundShapes checks llmperf fixtures written in the shapes of real
// files found in public repositories (checkFoundShapes).
func TestLLMPerfFoundShapes(t *testing.T) {
	checkFoundShapes(t, []foundShape{
		// llmperf-bench (philschmid/llmperf-bench, results/2.0.1/*_results.json):
		// llmperf's summaries keyed by concurrency, one cell each.
		{"llmperf/llmperf-bench-keyed-results.json", "org/Model-8B-Instruct", "Model-8B-Instruct", 2, "", "", []foundCheck{
			{"concurrency of the first", foundCell(0, func(c *schema.Measurement) *float64 { return foundI32(c.Concurrency) }), 4},
			{"concurrency of the second", foundCell(1, func(c *schema.Measurement) *float64 { return foundI32(c.Concurrency) }), 16},
			{"ttft p50 s to ms", foundCell(0, func(c *schema.Measurement) *float64 { return c.TTFTMs }), 196.07},
			{"ttft p90", foundCell(0, func(c *schema.Measurement) *float64 { return c.TTFTP90Ms }), 209.005},
			{"ttft p99", foundCell(0, func(c *schema.Measurement) *float64 { return c.TTFTP99Ms }), 209.954},
			{"ttft mean", foundCell(0, func(c *schema.Measurement) *float64 { return c.TTFTMeanMs }), 197.673},
			{"e2e p50", foundCell(0, func(c *schema.Measurement) *float64 { return c.E2EP50Ms }), 6608.84},
			{"e2e p90", foundCell(0, func(c *schema.Measurement) *float64 { return c.E2EP90Ms }), 6620.4},
			{"e2e p99", foundCell(0, func(c *schema.Measurement) *float64 { return c.E2EP99Ms }), 6635.58},
			{"e2e mean", foundCell(0, func(c *schema.Measurement) *float64 { return c.E2EMeanMs }), 6610.78},
			{"no tbt (llmperf's ITL has the first token in it)", foundCell(0, func(c *schema.Measurement) *float64 { return c.TBTMs }), none},
			{"its ITL kept by formula", foundExtra(0, "e2e_per_token_ms_p50"), 38.0412},
			{"total tok/s", foundCell(0, func(c *schema.Measurement) *float64 { return c.TotalTokS }), 45.6505},
			{"requests per minute to per second", foundCell(0, func(c *schema.Measurement) *float64 { return c.RequestThroughput }), 15.6883 / 60},
			{"context = mean_input_tokens", foundCell(0, func(c *schema.Measurement) *float64 { return foundI64(c.ContextTokens) }), 1000},
			{"prompt tokens measured", foundCell(0, func(c *schema.Measurement) *float64 { return foundI64(c.PromptTokens) }), 754},
			{"completed", foundCell(0, func(c *schema.Measurement) *float64 { return foundI64(c.CompletedRequests) }), 64},
			{"errored", foundCell(0, func(c *schema.Measurement) *float64 { return foundI64(c.ErroredRequests) }), 0},
			{"second: ttft p50", foundCell(1, func(c *schema.Measurement) *float64 { return c.TTFTMs }), 209.537},
			{"second: ttft p99", foundCell(1, func(c *schema.Measurement) *float64 { return c.TTFTP99Ms }), 356.637},
			{"second: e2e p90", foundCell(1, func(c *schema.Measurement) *float64 { return c.E2EP90Ms }), 7121.28},
			{"second: total tok/s", foundCell(1, func(c *schema.Measurement) *float64 { return c.TotalTokS }), 84.5668},
			{"second: requests per second", foundCell(1, func(c *schema.Measurement) *float64 { return c.RequestThroughput }), 29.1459 / 60},
		}},
		// A Replicate model of the llmperf leaderboard (copied): the model
		// is owner/name:<version hash>; the hash is the revision.
		{"llmperf/leaderboard-replicate_70b_summary.json", "meta/llama-2-70b-chat:02e509c789964a7ea8736978a43525956ef40397be9033abf9fd2badfe68c9e3", "llama-2-70b-chat", 1, "", "", []foundCheck{
			{"revision is the version hash", func(m *schema.Matrix) *float64 {
				if m.Run.Revision == "02e509c789964a7ea8736978a43525956ef40397be9033abf9fd2badfe68c9e3" {
					return schema.F64(1)
				}
				return nil
			}, 1},
			{"concurrency", foundCell(0, func(c *schema.Measurement) *float64 { return foundI32(c.Concurrency) }), 5},
			{"ttft p50", foundCell(0, func(c *schema.Measurement) *float64 { return c.TTFTMs }), 1187.9947680000669},
			{"ttft p90", foundCell(0, func(c *schema.Measurement) *float64 { return c.TTFTP90Ms }), 12323.396534799963},
			{"ttft p99", foundCell(0, func(c *schema.Measurement) *float64 { return c.TTFTP99Ms }), 63626.44487116},
			{"ttft mean", foundCell(0, func(c *schema.Measurement) *float64 { return c.TTFTMeanMs }), 5083.249257606895},
			{"e2e p50", foundCell(0, func(c *schema.Measurement) *float64 { return c.E2EP50Ms }), 12370.869038000023},
			{"e2e p99", foundCell(0, func(c *schema.Measurement) *float64 { return c.E2EP99Ms }), 74945.79868671998},
			{"total tok/s", foundCell(0, func(c *schema.Measurement) *float64 { return c.TotalTokS }), 29.434595028687124},
			{"requests/s", foundCell(0, func(c *schema.Measurement) *float64 { return c.RequestThroughput }), 14.423034455059305 / 60},
			{"completed", foundCell(0, func(c *schema.Measurement) *float64 { return foundI64(c.CompletedRequests) }), 145},
			{"context", foundCell(0, func(c *schema.Measurement) *float64 { return foundI64(c.ContextTokens) }), 550},
		}},
	})
}

// TestLLMPerfFoundShapesStable: the same file reads the same every time
// (checkStable).
func TestLLMPerfFoundShapesStable(t *testing.T) {
	checkStable(t,
		"llmperf/llmperf-bench-keyed-results.json",
	)
}
