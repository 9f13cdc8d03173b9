package peers

import (
	"testing"

	"speedmatrix/schema"
)

// TestHFBenchmarkerFiles reads the fixtures of Hugging Face's inference-benchmarker under hf-inference-benchmarker/ and checks
// their format, model, cells and figures.
func TestHFBenchmarkerFiles(t *testing.T) {
	checkFiles(t, []fileCase{
		// HF inference-benchmarker: the warm-up left out; rate benchmarks
		// at their rate, max_vus a cap.
		{"hf-inference-benchmarker/results.json", FormatHFBenchmarker, "Model-8B-Instruct", 2, []check{
			{"rate", func(m *schema.Matrix) *float64 { return m.Measurements[1].RequestRate }, 4},
			{"no concurrency from the cap", func(m *schema.Matrix) *float64 { return set(i32p(m.Measurements[1].Concurrency)) }, 0},
			{"cap kept", func(m *schema.Matrix) *float64 { return extra(&m.Measurements[1], "max_vus_cap_avg") }, 128},
			{"ttft p50", func(m *schema.Matrix) *float64 { return m.Measurements[1].TTFTMs }, 62.5},
			{"ttft mean", func(m *schema.Matrix) *float64 { return m.Measurements[1].TTFTMeanMs }, 70.3125},
			{"ttft p95 kept", func(m *schema.Matrix) *float64 { return extra(&m.Measurements[1], "time_to_first_token_p95_ms") }, 109.375},
			{"tbt p50", func(m *schema.Matrix) *float64 { return m.Measurements[1].TBTMs }, 10.25},
			{"e2e p99", func(m *schema.Matrix) *float64 { return m.Measurements[1].E2EP99Ms }, 20750},
			{"total tok/s", func(m *schema.Matrix) *float64 { return m.Measurements[1].TotalTokS }, 3120.332},
			{"completed", func(m *schema.Matrix) *float64 { return i64(m.Measurements[1].CompletedRequests) }, 470},
			{"errored", func(m *schema.Matrix) *float64 { return i64(m.Measurements[1].ErroredRequests) }, 10},
			{"duration ms to s", func(m *schema.Matrix) *float64 { return m.Measurements[1].MeasuredS }, 120.5},
			{"prompt mean", func(m *schema.Matrix) *float64 { return i64(m.Measurements[1].PromptTokens) }, 200},
			{"context = configured prompt length", func(m *schema.Matrix) *float64 { return i64(m.Measurements[1].ContextTokens) }, 200},
		}},
	})
}
