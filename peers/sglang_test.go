package peers

import (
	"math"
	"strings"
	"testing"

	"speedmatrix/schema"
)

// TestSGLangFiles reads the fixtures of SGLang bench_serving under sglang/ and checks
// their format, model, cells and figures.
func TestSGLangFiles(t *testing.T) {
	checkFiles(t, []fileCase{
		{"sglang/datacrunch-h200-llama33-70b-online.jsonl", FormatSGLangBench, "", 7, []check{
			{"rate of line 3", func(m *schema.Matrix) *float64 { return m.Measurements[2].RequestRate }, 4},
			{"a sharegpt line keeps the random settings it wrote", func(m *schema.Matrix) *float64 {
				for i := range m.Measurements {
					if m.Measurements[i].SourceLine == 6 {
						return extra(&m.Measurements[i], "random_input_len")
					}
				}
				return nil
			}, 1024},
			{"no concurrency", func(m *schema.Matrix) *float64 {
				if m.Measurements[0].Concurrency != nil {
					return f64(1)
				}
				return f64(0)
			}, 0},
			{"chunk gap median", func(m *schema.Matrix) *float64 { return m.Measurements[0].ChunkGapP50Ms }, 13.638956006616354},
			{"e2e median", func(m *schema.Matrix) *float64 { return m.Measurements[0].E2EP50Ms }, 7819.046192569658},
			{"retokenized kept", func(m *schema.Matrix) *float64 { return extra(&m.Measurements[0], "total_output_tokens_retokenized") }, 160192},
			// Lines 6–7 (sharegpt, 269,081 input tokens over 1,200 requests
			// and 540,779 over 2,400) share one context, their pooled mean.
			{"one context for the sharegpt sweep", func(m *schema.Matrix) *float64 {
				n := 0.0
				for _, c := range m.Measurements {
					if c.SourceLine >= 6 && c.ContextLabel == "225" && *c.ContextTokens == 225 {
						n++
					}
				}
				return &n
			}, 2},
			{"a sharegpt line keeps its own mean prompt length", func(m *schema.Matrix) *float64 {
				for _, c := range m.Measurements {
					if c.SourceLine == 6 && c.PromptTokens != nil {
						v := float64(*c.PromptTokens)
						return &v
					}
				}
				return nil
			}, 224},
			// Lines 1–5 sweep the random dataset (input 1024, range ratio
			// 0: lengths uniform in [1, 1024], mean 512.5, measured 509–515);
			// lines 6–7 use sharegpt at rates 4 and 8 again, and land in
			// their own context.
			{"one context for the random-dataset sweep", func(m *schema.Matrix) *float64 {
				n := 0.0
				for _, c := range m.Measurements {
					if c.ContextLabel == "513" && c.ContextTokens != nil && *c.ContextTokens == 513 {
						n++
					}
				}
				return f64(n)
			}, 5},
			{"sharegpt lines apart", func(m *schema.Matrix) *float64 {
				if m.Measurements[5].ContextLabel == "513" || m.Run.Dataset != "random, sharegpt" {
					return f64(0)
				}
				return f64(1)
			}, 1},
			{"measured prompt mean kept", func(m *schema.Matrix) *float64 { return i64(m.Measurements[0].PromptTokens) }, 509},
		}},
		// Prefill/decode disaggregation (bug class 3): server_info is
		// {internal_states, prefill[], decode[]}.
		{"sglang/disagg-server-info.jsonl", FormatSGLangBench, "DeepSeek-V3-0324", 1, []check{
			{"engine version known", func(m *schema.Matrix) *float64 { return f64(float64(len(m.Run.EngineVersion))) }, float64(len("0.4.9.post2"))},
			{"decode tp", func(m *schema.Matrix) *float64 { return i32p(m.Run.TensorParallel) }, 16},
			{"decode KV budget", func(m *schema.Matrix) *float64 { return i64(m.Run.KVBudgetTokens) }, 3311360},
			{"ttft median", func(m *schema.Matrix) *float64 { return m.Measurements[0].TTFTMs }, 980.25},
			{"total tok/s", func(m *schema.Matrix) *float64 { return m.Measurements[0].TotalTokS }, 4350.875},
			{"concurrency", func(m *schema.Matrix) *float64 { return i32p(m.Measurements[0].Concurrency) }, 64},
			{"measured in flight", func(m *schema.Matrix) *float64 { return m.Measurements[0].AvgActiveRequests }, 61.5},
		}},
		{"sglang/datacrunch-h200-deepseek-dp-mla.jsonl", FormatSGLangBench, "", 1, []check{
			{"Infinity rate", func(m *schema.Matrix) *float64 { return m.Measurements[0].RequestRate }, math.Inf(1)},
			{"total tok/s", func(m *schema.Matrix) *float64 { return m.Measurements[0].TotalTokS }, 12412.394674113431},
		}},
	})
}

// TestSGLangTraceReplay reads a line of SGLang's newest bench_serving
// replaying a trace (request_rate "trace", rejected before as "not a
// number") with --output-details: no rate or concurrency as the load, the
// word kept in the run's metadata, the per-request arrays counted and
// the error message kept, every figure against the file.
func TestSGLangTraceReplay(t *testing.T) {
	m, err := readPeer(t, "sglang/trace-replay-output-details.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if m.Run.ModelID != "Qwen/Qwen3-8B" || m.Run.EngineVersion != "0.5.4" || meta(m, "Metadata", "request_rate") != "trace" {
		t.Errorf("model %q version %q request_rate %q", m.Run.ModelID, m.Run.EngineVersion, meta(m, "Metadata", "request_rate"))
	}
	c := &m.Measurements[0]
	if c.RequestRate != nil || c.Concurrency != nil {
		t.Errorf("trace replay stored with rate %v concurrency %v", c.RequestRate, c.Concurrency)
	}
	checkFields(t, []fieldCheck{
		{"measured concurrency", c.AvgActiveRequests, 0.22},
		{"completed", fp(c.CompletedRequests), 3},
		{"ttft p50", c.TTFTMs, 700.25},
		{"tbt = tpot p50", c.TBTMs, 31.25},
		{"chunk gap p99", c.ChunkGapP99Ms, 80.25},
		{"itl p95 kept", extra(c, "p95_itl_ms"), 55.5},
		{"e2e p90", c.E2EP90Ms, 12000.5},
		{"output tok/s", c.TotalTokS, 6.22},
		{"input tok/s", c.InputTokS, 49.79},
		{"acceptance length", extra(c, "accept_length"), 2.45},
		{"vision tokens", extra(c, "total_input_vision_tokens"), 0},
		{"requests with an error", extra(c, "errors_reported"), 1},
		{"failed: the requests with an error", fp(c.ErroredRequests), 1},
		{"per-request itls counted", extra(c, "itls_count"), 4},
	})
	if got := meta(m, "Errors", "line 1"); got != "1× ClientConnectorError: Cannot connect to host 127.0.0.1:30000" {
		t.Errorf("errors %q", got)
	}
}

// TestSGLangBenchOneBatchNamed checks that the result JSONL of SGLang's
// offline bench_one_batch (keys as sglang writes them, figures made up),
// once refused as JSON of no tool, is named with the file to read instead.
func TestSGLangBenchOneBatchNamed(t *testing.T) {
	text := `{"run_name": "default", "batch_size": 8, "input_len": 512, "output_len": 1, "prefill_latency": 0.5, "prefill_throughput": 8192.0, "total_latency": 0.5, "overall_throughput": 8208.0}
{"run_name": "default", "batch_size": 8, "input_len": 512, "output_len": 64, "prefill_latency": 0.5, "prefill_throughput": 8192.0, "median_decode_latency": 0.02, "median_decode_throughput": 400.0, "total_latency": 1.76, "overall_throughput": 2618.2}
`
	_, _, err := Read([]byte(text), "result.jsonl", "")
	if err == nil {
		t.Fatal("read; want it named and refused")
	}
	for _, want := range []string{"result.jsonl:1: ", "it is SGLang's offline batch benchmark (`python -m sglang.bench_one_batch`", "speedmatrix reads the JSONL of `python -m sglang.bench_serving --output-file`"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
}

// TestSGLangDisaggMixedVersions reads a prefill/decode run whose prefill
// server runs SGLang 0.5.5 and whose decode servers run 0.5.6: the engine
// version is the prefill server's, as for a run of one version, and the
// run's metadata keeps both (decode's version was lost before).
func TestSGLangDisaggMixedVersions(t *testing.T) {
	m, err := readPeer(t, "sglang/disagg-mixed-versions.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if m.Run.EngineVersion != "0.5.5" {
		t.Errorf("engine version %q, want the prefill server's 0.5.5", m.Run.EngineVersion)
	}
	var got string
	for _, f := range m.Run.Metadata {
		if f.Key == "Engine versions" {
			got = f.Value
		}
	}
	if want := "0.5.5 (prefill) / 0.5.6 (decode)"; got != want {
		t.Errorf("Engine versions %q, want %q", got, want)
	}
	// One version across the servers adds nothing.
	one, err := readPeer(t, "sglang/disagg-server-info.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range one.Run.Metadata {
		if f.Key == "Engine versions" {
			t.Errorf("one version, yet Engine versions %q", f.Value)
		}
	}
}
