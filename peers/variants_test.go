package peers

import (
	"strings"
	"testing"

	"speedmatrix/schema"
)

// parsePeerText parses an inline fixture through detection, as ingest
// reads a file of that name.
func parsePeerText(t *testing.T, name, text string) *schema.Matrix {
	t.Helper()
	m, err := readOne([]byte(text), name, "")
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// genAIPerfEarlyJSON has the shape of GenAI-Perf's first JSON export
// (2024): values as strings, ns units, "request per sec", and the
// sequence lengths named num_input_token and num_output_token. The
// figures are made up.
const genAIPerfEarlyJSON = `{
  "request_throughput": {"unit": "request per sec", "avg": "4.5"},
  "request_latency": {"unit": "ns", "avg": "90000000.0", "p99": "120000000.0", "p90": "110000000.0", "p50": "88000000.0", "max": "130000000", "min": "60000000"},
  "time_to_first_token": {"unit": "ns", "avg": "21000000.0", "p99": "30000000.0", "p90": "26000000.0", "p50": "20000000.0"},
  "inter_token_latency": {"unit": "ns", "avg": "4000000.0", "p99": "5500000.0", "p90": "5000000.0", "p50": "3900000.0"},
  "output_token_throughput": {"unit": "tokens per sec", "avg": "180.5"},
  "output_token_throughput_per_request": {"unit": "tokens per sec", "avg": "200.25", "p50": "199.5"},
  "num_output_token": {"unit": "tokens", "avg": "17.5", "p50": "18.0", "max": "25", "min": "3"},
  "num_input_token": {"unit": "tokens", "avg": "550.25", "p50": "550.0", "max": "553", "min": "550"},
  "input_config": {"model": "gpt2_vllm", "backend": "vllm", "service_kind": "triton", "streaming": true, "concurrency": 2}
}
`

// genAIPerfEarlyCSV has the shape of GenAI-Perf's first CSV export: the
// rows "Num Output Token" and "Num Input Token". The figures are made up.
const genAIPerfEarlyCSV = "Metric,avg,min,max,p99,p95,p90,p75,p50,p25\r\n" +
	"Time To First Token (ms),20.50,10.00,40.00,30.00,28.00,26.00,22.00,20.00,18.00\r\n" +
	"Inter Token Latency (ms),4.00,1.00,9.00,5.50,5.25,5.00,4.25,3.90,3.75\r\n" +
	"Request Latency (ms),90.00,60.00,130.00,120.00,115.00,110.00,95.00,88.00,80.00\r\n" +
	"Num Output Token,17.50,3.00,25.00,22.00,20.00,20.00,19.00,18.00,17.00\r\n" +
	"Num Input Token,550.25,550.00,553.00,552.00,550.00,550.00,550.00,550.00,550.00\r\n" +
	"\r\n" +
	"Metric,Value\r\n" +
	"Output Token Throughput (per sec),180.50\r\n" +
	"Request Throughput (per sec),4.50\r\n"

// TestGenAIPerfEarlyLengthNames reads GenAI-Perf's first exports, whose
// num_input_token and num_output_token were once kept in extra only: the
// prompt length and the context were then unknown.
func TestGenAIPerfEarlyLengthNames(t *testing.T) {
	for _, tt := range []struct{ name, text string }{
		{"profile_export_genai_perf.json", genAIPerfEarlyJSON},
		{"profile_export_genai_perf.csv", genAIPerfEarlyCSV},
	} {
		t.Run(tt.name, func(t *testing.T) {
			m := parsePeerText(t, tt.name, tt.text)
			if m.Run.BenchTool != "genai-perf" {
				t.Errorf("bench tool %q", m.Run.BenchTool)
			}
			c := &m.Measurements[0]
			checkFields(t, []fieldCheck{
				{"prompt tokens", fp(c.PromptTokens), 550},
				{"context", fp(c.ContextTokens), 550},
				{"output length mean", extra(c, "output_len_mean"), 17.5},
				{"output length max kept", extra(c, "output_sequence_length_max"), 25},
				{"input length max kept", extra(c, "input_sequence_length_max"), 553},
				{"ttft p50 ms", c.TTFTMs, 20},
				{"tbt p99 ms", c.TBTP99Ms, 5.5},
				{"e2e p90 ms", c.E2EP90Ms, 110},
				{"output tok/s", c.TotalTokS, 180.5},
				{"request throughput", c.RequestThroughput, 4.5},
			})
			if c.ContextLabel != "550" {
				t.Errorf("context label %q", c.ContextLabel)
			}
			for _, old := range []string{"num_input_token_avg", "num_output_token_avg", "num_input_token_max"} {
				if v := extra(c, old); v != nil {
					t.Errorf("%s also kept under its old name: %v", old, *v)
				}
			}
		})
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
