package peers

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"speedmatrix/schema"
)

// TestGuideLLMFiles reads the fixtures of guidellm under guidellm/ and checks
// their format, model, cells and figures.
func TestGuideLLMFiles(t *testing.T) {
	checkFiles(t, []fileCase{
		{"guidellm/danielkorat-qwen3-4b-thinking-sanity-benchmarks.json", FormatGuideLLM, "Qwen3-4B-Thinking-2507", 1, []check{
			{"concurrency", func(m *schema.Matrix) *float64 { return i32p(m.Measurements[0].Concurrency) }, 4},
			{"ttft median", func(m *schema.Matrix) *float64 { return m.Measurements[0].TTFTMs }, 171.52166366577148},
			{"tbt = guidellm ITL", func(m *schema.Matrix) *float64 { return m.Measurements[0].TBTMs }, 24.178653868062757},
			{"guidellm TPOT kept apart", func(m *schema.Matrix) *float64 { return extra(&m.Measurements[0], "e2e_per_token_ms") }, 24.32254352606833},
			{"e2e seconds to ms", func(m *schema.Matrix) *float64 { return m.Measurements[0].E2EP50Ms }, 24908.42366218567},
			{"output tokens", func(m *schema.Matrix) *float64 { return i64(m.Measurements[0].OutputTokens) }, 4096},
			{"total tok/s", func(m *schema.Matrix) *float64 { return m.Measurements[0].TotalTokS }, 4096 / 24.909644603729248},
		}},
		// guidellm 0.8 (report version 2): constant-rate benchmarks whose
		// strategy records max_concurrency 10240, a cap and not the load.
		{"guidellm/llmd-benchmark-guidellm-0.8.0dev18-report-v2.json", FormatGuideLLM, "e2e-mock-model", 2, []check{
			{"no concurrency from the cap", func(m *schema.Matrix) *float64 {
				return set(i32p(m.Measurements[0].Concurrency), i32p(m.Measurements[1].Concurrency))
			}, 0},
			{"cap kept", func(m *schema.Matrix) *float64 { return extra(&m.Measurements[0], "max_concurrency_cap") }, 10240},
			{"rate 1", func(m *schema.Matrix) *float64 { return m.Measurements[0].RequestRate }, 2},
			{"rate 2", func(m *schema.Matrix) *float64 { return m.Measurements[1].RequestRate }, 4},
			{"measured mean in flight", func(m *schema.Matrix) *float64 { return m.Measurements[0].AvgActiveRequests }, 0.007884656213828013},
			{"ttft median", func(m *schema.Matrix) *float64 { return m.Measurements[0].TTFTMs }, 11.276006698608398},
			{"ttft p95 kept", func(m *schema.Matrix) *float64 { return extra(&m.Measurements[0], "time_to_first_token_ms_p95") }, 11.686325073242188},
			{"e2e p99 s to ms", func(m *schema.Matrix) *float64 { return m.Measurements[1].E2EP99Ms }, 19.294023513793945},
			{"tbt median", func(m *schema.Matrix) *float64 { return m.Measurements[1].TBTMs }, 0.9067058563232422},
			{"time to first content", func(m *schema.Matrix) *float64 { return m.Measurements[1].TTFCMs }, 9.419918060302734},
			{"total tok/s", func(m *schema.Matrix) *float64 { return m.Measurements[0].TotalTokS }, 16 / 5.01964807510376},
			{"prompt tokens", func(m *schema.Matrix) *float64 { return i64(m.Measurements[1].PromptTokens) }, 66},
			{"completed", func(m *schema.Matrix) *float64 { return i64(m.Measurements[1].CompletedRequests) }, 2},
		}},
		// guidellm before 0.5: no metadata or args at the top; the strategy,
		// backend and request totals sit in each benchmark, and the
		// percentiles have no p50 (the median stands in).
		{"guidellm/neuralmagic-benchmarks-stripped-v0.3.json", FormatGuideLLM, "example_model", 1, []check{
			{"synchronous is concurrency 1", func(m *schema.Matrix) *float64 { return i32p(m.Measurements[0].Concurrency) }, 1},
			{"ttft p50 = median", func(m *schema.Matrix) *float64 { return m.Measurements[0].TTFTP50Ms }, 16.38054847717285},
			{"tbt p50 = median", func(m *schema.Matrix) *float64 { return m.Measurements[0].TBTP50Ms }, 4.9241227427805505},
			{"completed from request_totals", func(m *schema.Matrix) *float64 { return i64(m.Measurements[0].CompletedRequests) }, 46},
			{"errored from request_totals", func(m *schema.Matrix) *float64 { return i64(m.Measurements[0].ErroredRequests) }, 0},
		}},
	})
}

// TestGuideLLMRequestedPrompt reads guidellm 0.5's --data settings: the
// requested prompt length names the context when the prompts sent were
// about that long; a data file names none.
func TestGuideLLMRequestedPrompt(t *testing.T) {
	path := filepath.Join(fixtures, "guidellm", "danielkorat-qwen3-4b-thinking-sanity-benchmarks.json")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		data string
		ctx  int64
	}{
		{`["/root/aime_2024_v2.jsonl"]`, 99},                         // measured mean
		{`["prompt_tokens=96,output_tokens=4096"]`, 96},              // requested
		{`["{\"prompt_tokens\": 100, \"output_tokens\": 64}"]`, 100}, // requested, JSON form
		{`["prompt_tokens=4096,output_tokens=64"]`, 99},              // far from what was sent: measured
	} {
		doc := strings.Replace(string(b), `"data": ["/root/aime_2024_v2.jsonl"]`, `"data": `+tt.data, 1)
		ms, err := readAll([]byte(doc), "g.json", "")
		if err != nil {
			t.Fatal(err)
		}
		if c := ms[0].Measurements[0]; c.ContextTokens == nil || *c.ContextTokens != tt.ctx {
			t.Errorf("data %s: context %v, want %d", tt.data, c.ContextTokens, tt.ctx)
		}
	}
}

// guidellm01Report has the layout of guidellm 0.1's GuidanceReport: a
// report per run, each with its args and its benchmarks (mode, rate, the
// requests' results, summaries computed by 0.1). The figures are made up.
const guidellm01Report = `{"benchmarks": [{"benchmarks": [{"mode": "synchronous", "rate": null,
  "results": [{"request": {"id": "r1", "prompt": "p", "prompt_token_count": 64, "output_token_count": 16, "params": {}},
    "prompt_token_count": 64, "output": "o", "output_token_count": 16,
    "start_time": 10.0, "end_time": 10.5, "first_token_time": 10.05, "last_token_time": 10.5,
    "request_latency": 0.5, "time_to_first_token": 50.0, "inter_token_latency": 30.0, "output_tokens_per_second": 33.3}],
  "errors": [], "concurrencies": [], "request_count": 1, "error_count": 0, "total_count": 1,
  "start_time": 10.0, "end_time": 10.5, "duration": 0.5, "completed_request_rate": 2.0,
  "request_latency": 0.5, "time_to_first_token": 50.0, "inter_token_latency": 30.0,
  "output_token_throughput": 32.0, "prompt_token": 64.0, "output_token": 16.0}],
  "args": {"backend_type": "openai_server", "target": "http://localhost:8000/v1", "model": "org/model",
    "data_type": "emulated", "data": "prompt_tokens=64", "mode": "synchronous", "rate": null, "max_number": 1, "max_duration": null}}]}
`

// TestGuideLLM01Named checks that guidellm 0.1's report, once refused
// with "benchmark 0 has no output tokens and no TTFT" (or, with args as a
// list, a Go type error), is named as such with the versions read.
func TestGuideLLM01Named(t *testing.T) {
	_, ok, err := Read([]byte(guidellm01Report), "guidellm_report.json", "")
	if !ok && err == nil {
		t.Fatal("not recognised as another tool's result file")
	}
	if err == nil {
		t.Fatal("read; want it named and refused")
	}
	const want = "guidellm_report.json:1: guidellm 0.1's report (a GuidanceReport"
	if !strings.HasPrefix(err.Error(), want) || !strings.Contains(err.Error(), "guidellm 0.2 and later") {
		t.Errorf("error %q, want it to start %q and name the versions read", err, want)
	}
}
