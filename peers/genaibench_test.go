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

// TestGenAIBenchFoundShapes checks genai-bench fixtures written in the shapes of real
// files found in public repositories (checkFoundShapes).
func TestGenAIBenchFoundShapes(t *testing.T) {
	checkFoundShapes(t, []foundShape{
		// genai-bench against an endpoint that did not stream (basetenlabs/
		// genai-bench's TRT-LLM gpt-oss-120b folder): every request's TTFT
		// is the tool's 1 ms stand-in, tpot the whole request per token.
		// Its file name holds the model (api_model_name, "/" written "_").
		{"genai-bench/nonstreamed-D2000_200_text-to-text_org_Model-120B_num_concurrency_8_time_60s.json", "org/Model-120B", "Model-120B", 1, "ttft", "", []foundCheck{
			{"no TTFT column", foundCell(0, func(c *schema.Measurement) *float64 { return c.TTFTMs }), none},
			{"no TTFT p99", foundCell(0, func(c *schema.Measurement) *float64 { return c.TTFTP99Ms }), none},
			{"no TTFT mean", foundCell(0, func(c *schema.Measurement) *float64 { return c.TTFTMeanMs }), none},
			{"no TBT column", foundCell(0, func(c *schema.Measurement) *float64 { return c.TBTMs }), none},
			{"no TBT p90", foundCell(0, func(c *schema.Measurement) *float64 { return c.TBTP90Ms }), none},
			{"no decode rate", foundCell(0, func(c *schema.Measurement) *float64 { return c.PerRequestTokS }), none},
			{"placeholder kept, in ms", foundExtra(0, "nonstreamed_ttft_placeholder_p50_ms"), 1.0000000002037268},
			{"tpot kept as e2e per output token, ms", foundExtra(0, "e2e_per_output_token_p50_ms"), 6.0625},
			{"its p99", foundExtra(0, "e2e_per_output_token_p99_ms"), 8.1875},
			{"output_inference_speed kept as request tok/s (not streamed)", foundExtra(0, "request_output_tok_s_nonstreamed_p50"), 164.9375},
			{"per-request output throughput, not the run's, not a decode rate", foundExtra(0, "request_output_throughput_tok_s_nonstreamed_p50"), 164.9375},
			{"no decode rate name", foundExtra(0, "request_decode_tok_s_p50"), none},
			{"per-request input throughput (from the stand-in)", foundExtra(0, "request_input_tok_s_p50"), 2000999.9995923},
			{"no tool name left for it", foundExtra(0, "output_throughput_p50"), none},
			{"e2e p50 s to ms", foundCell(0, func(c *schema.Measurement) *float64 { return c.E2EP50Ms }), 1207.4},
			{"e2e p90", foundCell(0, func(c *schema.Measurement) *float64 { return c.E2EP90Ms }), 1356.7},
			{"e2e p99", foundCell(0, func(c *schema.Measurement) *float64 { return c.E2EP99Ms }), 1630.3},
			{"e2e mean", foundCell(0, func(c *schema.Measurement) *float64 { return c.E2EMeanMs }), 1219.8},
			{"concurrency", foundCell(0, func(c *schema.Measurement) *float64 { return foundI32(c.Concurrency) }), 8},
			{"no rate", foundCell(0, func(c *schema.Measurement) *float64 { return c.RequestRate }), none},
			{"context = requested 2000", foundCell(0, func(c *schema.Measurement) *float64 { return foundI64(c.ContextTokens) }), 2000},
			{"prompt tokens", foundCell(0, func(c *schema.Measurement) *float64 { return foundI64(c.PromptTokens) }), 2001},
			{"total tok/s", foundCell(0, func(c *schema.Measurement) *float64 { return c.TotalTokS }), 331.875},
			{"input tok/s", foundCell(0, func(c *schema.Measurement) *float64 { return c.InputTokS }), 3318.75},
			{"request throughput", foundCell(0, func(c *schema.Measurement) *float64 { return c.RequestThroughput }), 1.65625},
			{"completed", foundCell(0, func(c *schema.Measurement) *float64 { return foundI64(c.CompletedRequests) }), 100},
			{"errored (error_rate says 0)", foundCell(0, func(c *schema.Measurement) *float64 { return foundI64(c.ErroredRequests) }), 3},
			{"error code", foundExtra(0, "error_code_500_count"), 3},
			{"output tokens", foundCell(0, func(c *schema.Measurement) *float64 { return foundI64(c.OutputTokens) }), 20000},
			{"input tokens", foundCell(0, func(c *schema.Measurement) *float64 { return foundI64(c.InputTokensTotal) }), 200100},
			{"duration", foundCell(0, func(c *schema.Measurement) *float64 { return c.MeasuredS }), 60.25},
		}},
		// genai-bench's open loop (--qps-level, async runner): the QPS is
		// written as num_concurrency 2.0, iteration_type num_concurrency;
		// the arrival rate the open-loop runner records equals it.
		{"genai-bench/openloop-D1000_100_text-to-text_org_Model-8B_num_concurrency_2.0_time_60s.json", "org/Model-8B", "Model-8B", 1, "", "", []foundCheck{
			{"rate, not concurrency", foundCell(0, func(c *schema.Measurement) *float64 { return c.RequestRate }), 2},
			{"no concurrency", foundCell(0, func(c *schema.Measurement) *float64 { return foundI32(c.Concurrency) }), none},
			{"arrival rate kept", foundExtra(0, "arrival_requests_per_second_avg"), 2},
			{"arrivals kept", foundExtra(0, "total_arrivals_avg"), 120},
			{"ttft p50", foundCell(0, func(c *schema.Measurement) *float64 { return c.TTFTMs }), 112.5},
			{"ttft p99", foundCell(0, func(c *schema.Measurement) *float64 { return c.TTFTP99Ms }), 281.25},
			{"tbt p50", foundCell(0, func(c *schema.Measurement) *float64 { return c.TBTMs }), 12.1875},
			{"e2e p90", foundCell(0, func(c *schema.Measurement) *float64 { return c.E2EP90Ms }), 1475},
			{"decode rate p50", foundCell(0, func(c *schema.Measurement) *float64 { return c.PerRequestTokS }), 82.0625},
			{"per-request decode rate (output_throughput) kept", foundExtra(0, "request_decode_tok_s_p50"), 82.5},
			{"per-request prefill rate (input_throughput) kept", foundExtra(0, "request_input_tok_s_p50"), 8888.875},
			{"total tok/s", foundCell(0, func(c *schema.Measurement) *float64 { return c.TotalTokS }), 193.5},
			{"requests/s measured", foundCell(0, func(c *schema.Measurement) *float64 { return c.RequestThroughput }), 1.935},
			{"completed", foundCell(0, func(c *schema.Measurement) *float64 { return foundI64(c.CompletedRequests) }), 119},
			{"context", foundCell(0, func(c *schema.Measurement) *float64 { return foundI64(c.ContextTokens) }), 1000},
		}},
	})
}

// TestGenAIBenchFoundShapesStable: the same file reads the same every time
// (checkStable).
func TestGenAIBenchFoundShapesStable(t *testing.T) {
	checkStable(t,
		"genai-bench/nonstreamed-D2000_200_text-to-text_org_Model-120B_num_concurrency_8_time_60s.json",
	)
}

// TestGenAIBenchOpenLoop: which genai-bench runs were an open loop (a
// request rate) rather than a concurrency.
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
