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

// TestHFBenchmarkerFoundShapes checks inference-benchmarker fixtures written in the shapes of real
// files found in public repositories (checkFoundShapes).
func TestHFBenchmarkerFoundShapes(t *testing.T) {
	checkFoundShapes(t, []foundShape{
		// inference-benchmarker's first writer (text-generation-inference-
		// benchmark, 2024: venkateshops/inference-benchmarker src/writers.rs):
		// avg, p90 and p95 as flat keys, e2e in whole milliseconds.
		{"hf-inference-benchmarker/results-flat-2024.json", "org/Model-12B-it", "Model-12B-it", 1, "", "", []foundCheck{
			{"rate, not the VU cap", foundCell(0, func(c *schema.Measurement) *float64 { return c.RequestRate }), 2},
			{"no concurrency", foundCell(0, func(c *schema.Measurement) *float64 { return foundI32(c.Concurrency) }), none},
			{"VU cap kept", foundExtra(0, "max_vus_cap_avg"), 64},
			{"ttft mean", foundCell(0, func(c *schema.Measurement) *float64 { return c.TTFTMeanMs }), 88.125},
			{"ttft p90", foundCell(0, func(c *schema.Measurement) *float64 { return c.TTFTP90Ms }), 131.75},
			{"ttft p95 kept", foundExtra(0, "time_to_first_token_p95_ms"), 152.5},
			{"no ttft median (not written)", foundCell(0, func(c *schema.Measurement) *float64 { return c.TTFTMs }), none},
			{"tbt mean", foundCell(0, func(c *schema.Measurement) *float64 { return c.TBTMeanMs }), 17.375},
			{"tbt p90", foundCell(0, func(c *schema.Measurement) *float64 { return c.TBTP90Ms }), 19.625},
			{"itl p95 kept", foundExtra(0, "inter_token_latency_p95_ms"), 21.125},
			{"e2e mean", foundCell(0, func(c *schema.Measurement) *float64 { return c.E2EMeanMs }), 6981},
			{"e2e p90", foundCell(0, func(c *schema.Measurement) *float64 { return c.E2EP90Ms }), 7652},
			{"e2e p95 kept", foundExtra(0, "request_latency_p95_ms"), 7894},
			{"total tok/s", foundCell(0, func(c *schema.Measurement) *float64 { return c.TotalTokS }), 793.5},
			{"request throughput", foundCell(0, func(c *schema.Measurement) *float64 { return c.RequestThroughput }), 1.98375},
			{"completed", foundCell(0, func(c *schema.Measurement) *float64 { return foundI64(c.CompletedRequests) }), 119},
			{"failed", foundCell(0, func(c *schema.Measurement) *float64 { return foundI64(c.ErroredRequests) }), 2},
			{"output tokens", foundCell(0, func(c *schema.Measurement) *float64 { return foundI64(c.OutputTokens) }), 47600},
			{"prompt tokens sent / successful", foundCell(0, func(c *schema.Measurement) *float64 { return foundI64(c.PromptTokens) }), 1005},
			{"context = configured prompt", foundCell(0, func(c *schema.Measurement) *float64 { return foundI64(c.ContextTokens) }), 1000},
			{"duration ms to s", foundCell(0, func(c *schema.Measurement) *float64 { return c.MeasuredS }), 59.987},
			{"configured seconds", func(m *schema.Matrix) *float64 { return m.Run.MeasureSeconds }, 60},
			{"max output tokens (decode_options)", func(m *schema.Matrix) *float64 { return foundI64(m.Run.MaxOutputTokens) }, 400},
		}},
		// inference-benchmarker's newest writer (arewa-ai/inference-benchmarker
		// src/writers.rs, after upstream's input throughput): the input
		// token throughput and the per-second medians beside the maps.
		{"hf-inference-benchmarker/results-input-throughput-2026.json", "org/Model-12B-it", "Model-12B-it", 1, "", "NVIDIA H100 80GB HBM3", []foundCheck{
			{"concurrency = VUs", foundCell(0, func(c *schema.Measurement) *float64 { return foundI32(c.Concurrency) }), 64},
			{"input tok/s", foundCell(0, func(c *schema.Measurement) *float64 { return c.InputTokS }), 14875.25},
			{"output tok/s median kept", foundExtra(0, "output_token_throughput_median_tok_s"), 6016},
			{"input tok/s median kept", foundExtra(0, "input_token_throughput_median_tok_s"), 14000},
			{"total tok/s", foundCell(0, func(c *schema.Measurement) *float64 { return c.TotalTokS }), 5973.5},
			{"ttft p50", foundCell(0, func(c *schema.Measurement) *float64 { return c.TTFTMs }), 412.5},
			{"ttft p99", foundCell(0, func(c *schema.Measurement) *float64 { return c.TTFTP99Ms }), 890.125},
			{"tbt p50", foundCell(0, func(c *schema.Measurement) *float64 { return c.TBTMs }), 9.875},
			{"e2e p90", foundCell(0, func(c *schema.Measurement) *float64 { return c.E2EP90Ms }), 4720.5},
			{"completed", foundCell(0, func(c *schema.Measurement) *float64 { return foundI64(c.CompletedRequests) }), 896},
			{"failed", foundCell(0, func(c *schema.Measurement) *float64 { return foundI64(c.ErroredRequests) }), 9},
		}},
	})
}

// TestHFBenchmarkerFoundShapesStable: the same file reads the same every time
// (checkStable).
func TestHFBenchmarkerFoundShapesStable(t *testing.T) {
	checkStable(t,
		"hf-inference-benchmarker/results-flat-2024.json",
		"hf-inference-benchmarker/results-input-throughput-2026.json",
	)
}
