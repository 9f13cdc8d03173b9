package peers

import (
	"testing"

	"speedmatrix/schema"
)

// TestGenAIBenchFiles reads the fixtures of genai-bench under genai-bench/ and checks
// their format, model, cells and figures.
func TestGenAIBenchFiles(t *testing.T) {
	checkFiles(t, []fileCase{
		// genai-bench: aggregated_metrics.stats in seconds; tpot is per
		// request (e2e − ttft)/(tokens − 1); the scenario's input length
		// names the context.
		{"genai-bench/D8000_1000_text-to-text_num_concurrency_16_time_120s.json", FormatGenAIBench, "", 1, []check{
			{"concurrency", func(m *schema.Matrix) *float64 { return i32p(m.Measurements[0].Concurrency) }, 16},
			{"ttft p50 s to ms", func(m *schema.Matrix) *float64 { return m.Measurements[0].TTFTMs }, 562.5},
			{"ttft p99", func(m *schema.Matrix) *float64 { return m.Measurements[0].TTFTP99Ms }, 1500},
			{"tbt = tpot p50", func(m *schema.Matrix) *float64 { return m.Measurements[0].TBTMs }, 12.25},
			{"tbt mean", func(m *schema.Matrix) *float64 { return m.Measurements[0].TBTMeanMs }, 12.5},
			{"e2e p90", func(m *schema.Matrix) *float64 { return m.Measurements[0].E2EP90Ms }, 15000},
			{"per request decode rate p50", func(m *schema.Matrix) *float64 { return m.Measurements[0].PerRequestTokS }, 81.625},
			{"total tok/s", func(m *schema.Matrix) *float64 { return m.Measurements[0].TotalTokS }, 1250.25},
			{"request throughput", func(m *schema.Matrix) *float64 { return m.Measurements[0].RequestThroughput }, 1.25},
			{"completed", func(m *schema.Matrix) *float64 { return i64(m.Measurements[0].CompletedRequests) }, 150},
			{"errored", func(m *schema.Matrix) *float64 { return i64(m.Measurements[0].ErroredRequests) }, 2},
			{"output tokens", func(m *schema.Matrix) *float64 { return i64(m.Measurements[0].OutputTokens) }, 150000},
			{"input tokens", func(m *schema.Matrix) *float64 { return i64(m.Measurements[0].InputTokensTotal) }, 1200000},
			{"duration", func(m *schema.Matrix) *float64 { return m.Measurements[0].MeasuredS }, 120.5},
			{"context = requested 8000", func(m *schema.Matrix) *float64 { return i64(m.Measurements[0].ContextTokens) }, 8000},
			{"output latency p95 kept in ms", func(m *schema.Matrix) *float64 { return extra(&m.Measurements[0], "output_latency_p95_ms") }, 15500},
			{"error code counted", func(m *schema.Matrix) *float64 { return extra(&m.Measurements[0], "error_code_500_count") }, 2},
		}},
	})
}
