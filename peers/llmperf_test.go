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
