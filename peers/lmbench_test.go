package peers

import (
	"math"
	"strings"
	"testing"
)

// TestLMBench aggregates LMBench's per-request CSV into one serve cell
// with the tool's own summary figures, read by hand from the fixture:
// span 1733480005.37 − 1733480000.10 = 5.27 s; 6 requests; 500 output
// tokens; 11,504 prompt tokens; TTFT over the five with content (ms):
// 190, 210, 220, 250, 310.
func TestLMBench(t *testing.T) {
	m, err := readPeer(t, "lmbench/multi-round-qa-summary.csv")
	if err != nil {
		t.Fatal(err)
	}
	if m.Run.SourceFormat != FormatLMBench || len(m.Measurements) != 1 || len(m.Samples) != 6 {
		t.Fatalf("format %q, %d cells, %d samples", m.Run.SourceFormat, len(m.Measurements), len(m.Samples))
	}
	c := m.Measurements[0]
	near := func(what string, got *float64, want float64) {
		t.Helper()
		if got == nil || math.Abs(*got-want) > 1e-6*max(1, want) {
			t.Errorf("%s = %v, want %v", what, got, want)
		}
	}
	span := 1733480005.37 - 1733480000.10
	near("measured_s", c.MeasuredS, span)
	near("request_throughput", c.RequestThroughput, 6/span)
	near("total_tok_s", c.TotalTokS, 500/span)
	near("input_tok_s", c.InputTokS, 11504/span)
	near("ttft_p50_ms", c.TTFTP50Ms, 220)
	near("ttft_mean_ms", c.TTFTMeanMs, (190+210+220+250+310)/5.0)
	near("ttft_p90_ms", c.TTFTP90Ms, 250+0.6*(310-250))
	// TBT of the third request: 2.10 s over 99 gaps.
	near("sample 2 tbt_ms", m.Samples[2].TBTMs, 2100.0/99)
	if c.Concurrency != nil || c.RequestRate != nil {
		t.Errorf("concurrency %v request rate %v: neither is in the file", c.Concurrency, c.RequestRate)
	}
	if got := *c.CompletedRequests; got != 6 {
		t.Errorf("completed %d", got)
	}
	found := false
	for _, e := range c.Extra {
		if e.Name == "requests_without_tokens" && e.Value == 1 {
			found = true
		}
	}
	if !found {
		t.Errorf("the request without tokens is not counted: %v", c.Extra)
	}
}

// TestLMBenchRefusals: rows the tool cannot write are refused at their
// line.
func TestLMBenchRefusals(t *testing.T) {
	h := "prompt_tokens,generation_tokens,ttft,generation_time,user_id,question_id,launch_time,finish_time\n"
	for _, tt := range []struct {
		name, text string
		line       int
		msg        string
	}{
		{"negative", h + "10,5,0.1,0.2,1,1,100,101\n10,5,-0.1,0.2,1,2,101,102\n", 3, "ttft"},
		{"backwards", h + "10,5,0.1,0.2,1,1,100,99\n", 2, "before launch_time"},
		{"empty", h, 1, "without requests"},
		{"extra column", strings.TrimSuffix(h, "\n") + ",energy\n10,5,0.1,0.2,1,1,100,101,3\n", 1, "not LMBench's"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := readOne([]byte(tt.text), "s.csv", "")
			pe, ok := err.(*Error)
			if !ok || pe.Line != tt.line || !strings.Contains(pe.Msg, tt.msg) {
				t.Errorf("got %v; want line %d and %q", err, tt.line, tt.msg)
			}
		})
	}
}

// TestTogetherRunnerNamed: an InferenceX together_runner result is named
// and refused with what to ingest instead, not read as a vLLM result
// with its figures one level down nor given the generic key list.
func TestTogetherRunnerNamed(t *testing.T) {
	b := []byte(`{"conc": 16, "metrics": {"total_token_throughput": 9123.4, "output_token_throughput": 4561.7, "median_tpot_ms": 21.3}}`)
	_, err := readAll(b, "conc16.json", "")
	if err == nil || !strings.Contains(err.Error(), "InferenceX together_runner") || !strings.Contains(err.Error(), "bench_serving result JSON") {
		t.Errorf("got %v", err)
	}
}

// TestLLMDecodeBenchConsoleNamed: llm_decode_bench's console report is
// named, with the JSON to ingest, not read as a broken speed-test
// document.
func TestLLMDecodeBenchConsoleNamed(t *testing.T) {
	_, err := Detect(mustRead(t, fixtures+"/bad/llm-decode-bench-console.txt"))
	if err == nil || !strings.Contains(err.Error(), "console report of llm_decode_bench.py") || !strings.Contains(err.Error(), "benchmark_results.json") {
		t.Errorf("got %v", err)
	}
}
