package peers

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
)

// TestFormatsOrder pins the order Formats lists the formats in: ingest's
// usage and its -format check print it.
func TestFormatsOrder(t *testing.T) {
	want := []string{"llm-inference-bench-json", "guidellm", "llmperf", "aiperf", "genai-perf", "aiperf-csv", "genai-perf-csv",
		"genai-bench", "inference-perf", "hf-inference-benchmarker", "vllm-bench-serve", "sglang-bench-serving", "llama-bench", "llama-benchy", "lmbench-csv"}
	if !slices.Equal(Formats, want) {
		t.Errorf("Formats = %q\nwant %q", Formats, want)
	}
}

// TestDetectionOrder pins the order in which the tools' shapes are
// tried, and checks that no two share a rank (their order would then be
// the order readers lists them, which nothing should depend on).
func TestDetectionOrder(t *testing.T) {
	var got []string
	seen := map[int]string{}
	for _, d := range detection {
		if prev, ok := seen[d.shape.rank]; ok {
			t.Errorf("rank %d is both %s's and %s's", d.shape.rank, prev, d.format)
		}
		seen[d.shape.rank] = d.format
		kind := "json"
		if d.shape.text != nil {
			kind = "text"
		}
		if d.shape.refuse != "" {
			kind += " refused"
		}
		got = append(got, fmt.Sprintf("%d %s %s", d.shape.rank, d.format, kind))
	}
	want := []string{
		"10 genai-perf-csv text", "11 aiperf-csv text", "20 guidellm text refused", "30 aiperf text refused",
		"40 vllm-bench-serve text", "50 guidellm text",
		"60 llama-bench text", "61 llama-bench text", "62 llama-bench text", "63 llama-benchy text", "64 llama-benchy text refused",
		"65 llama-benchy text", "66 lmbench-csv text", "95 llama-bench json", "96 llama-benchy json", "100 llm-inference-bench-json json", "110 guidellm json", "120 genai-bench json", "130 inference-perf json",
		"140 hf-inference-benchmarker json", "150 llmperf json", "151 llmperf json", "160 aiperf json", "170 aiperf json",
		"180 genai-perf json", "181 aiperf json", "185 vllm-bench-serve json refused", "190 vllm-bench-serve json", "191 vllm-bench-serve json",
		"200 sglang-bench-serving json", "210 vllm-bench-serve json",
	}
	if !slices.Equal(got, want) {
		t.Errorf("detection order:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestDetectMatchesSwitch checks that detection from the readers' shapes
// tells every fixture (and every seed document) as the switch it
// replaced did, error text included.
func TestDetectMatchesSwitch(t *testing.T) {
	paths, err := filepath.Glob(filepath.Join(fixtures, "*", "*"))
	if err != nil {
		t.Fatal(err)
	}
	seeds, _ := filepath.Glob(filepath.Join("..", "testdata", "seeds", "*"))
	paths = append(paths, seeds...)
	if len(paths) < 100 {
		t.Fatalf("%d fixtures, want the 100 or more under %s", len(paths), fixtures)
	}
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		checkDetectMatchesSwitch(t, p, b)
	}
}

// FuzzDetect compares Detect with the switch it replaced on any input,
// seeded from the fixtures.
func FuzzDetect(f *testing.F) {
	paths, _ := filepath.Glob(filepath.Join(fixtures, "*", "*"))
	for _, p := range paths {
		if b, err := os.ReadFile(p); err == nil {
			addSeed(f, b)
		}
	}
	for _, s := range []string{`{"results": [], "metadata": {}}`, `[{"model_id": "m", "mean_ttft_ms": 1}]`, "Metric,avg\nTTFT (per sec),1\n", "Run Info,x\n", `{"records": {"header": 1, "unit": "ms"}}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		checkDetectMatchesSwitch(t, "fuzz", b)
	})
}

func checkDetectMatchesSwitch(t *testing.T, name string, b []byte) {
	t.Helper()
	got, gerr := Detect(b)
	if sinceSwitch(got, gerr) {
		return // a shape added after the switch (llamabench_test.go)
	}
	want, werr := detectSwitch(b)
	if got != want || fmt.Sprint(gerr) != fmt.Sprint(werr) {
		t.Errorf("%s: Detect = %q, %v; the switch said %q, %v", name, got, gerr, want, werr)
	}
}

// detectSwitch is Detect as it was before the readers declared their
// shapes (parse/peer.go at 32237fa): the oracle of TestDetectMatchesSwitch.
func detectSwitch(b []byte) (string, error) {
	t := bytes.TrimLeft(b, "\ufeff \t\r\n")
	if bytes.HasPrefix(t, []byte("Metric,")) {
		if bytes.Contains(t, []byte("(per sec)")) {
			return FormatGenAIPerfCSV, nil
		}
		return FormatAIPerfCSV, nil
	}
	if bytes.HasPrefix(t, []byte("Run Info,")) {
		return "", fmt.Errorf("guidellm's CSV export (benchmarks.csv): its rows give each benchmark's strategy type, not the strategy's rate or streams beside the figures; ingest the JSON or YAML report of the same run (--outputs json or yaml)")
	}
	if containsAfter(t, "\n", []byte("Best Configurations")) && bytes.Contains(t, []byte("\nPareto Optimal Points")) {
		return "", fmt.Errorf("AIPerf's sweep aggregate CSV (profile_export_aiperf_sweep.csv): each metric's mean, std, min, max and cv rounded to two decimals, without units or percentiles; ingest profile_export_aiperf_sweep.json beside it")
	}
	if looksVLLMSweepCSV(t) {
		return FormatVLLMBench, nil
	}
	if looksGuideLLMYAML(t) {
		return FormatGuideLLM, nil
	}
	if len(t) == 0 || (t[0] != '{' && t[0] != '[') {
		if r := benchmarkReport(t); r != "" {
			return "", errors.New(r)
		}
		if r := csvTable(t); r != "" {
			return "", errors.New(r)
		}
		if r := consoleSummary(t); r != "" {
			return "", errors.New(r)
		}
		return "", nil
	}
	keys, err := firstObjectKeys(t)
	if err != nil {
		return "", err
	}
	has := func(k string) bool { _, ok := keys[k]; return ok }
	hasSuffix := func(suffix string) bool {
		for k := range keys {
			if strings.HasSuffix(k, suffix) {
				return true
			}
		}
		return false
	}
	switch {
	case has("results") && (has("summary_table") || has("prefill") || has("metadata")):
		return FormatLLMBenchJSON, nil
	case has("benchmarks"):
		return FormatGuideLLM, nil
	case has("aggregated_metrics"):
		return FormatGenAIBench, nil
	case has("load_summary") && (has("successes") || has("failures")):
		return FormatInferencePerf, nil
	case has("results") && bytes.Contains(keys["results"], []byte(`"token_throughput_secs"`)):
		return FormatHFBenchmarker, nil
	case has("num_concurrent_requests") || hasSuffix("_ttft_s_mean") || has("results_ttft_s_mean") || llmperfKeyed(t) != nil:
		return FormatLLMPerf, nil
	case isAIPerfAggregate(keys):
		return FormatAIPerf, nil
	case isStatsBlock(keys["records"]) && bytes.Contains(keys["records"], []byte(`"header"`)):
		return FormatAIPerf, nil
	case isStatsBlock(keys["time_to_first_token"]) || isStatsBlock(keys["request_throughput"]) || isStatsBlock(keys["output_token_throughput"]):
		if cfg := keys["input_config"]; bytes.Contains(cfg, []byte(`"genai_perf`)) || bytes.Contains(cfg, []byte(`"service_kind"`)) {
			return FormatGenAIPerf, nil
		}
		return FormatAIPerf, nil
	case has("best_of") || has("burstiness") || has("tokenizer_id") || hasSuffix("_e2el_ms") || hasSuffix("_tpot_ms") && !has("total_output_tokens_retokenized"):
		return FormatVLLMBench, nil
	case has("total_output_tokens_retokenized") || hasSuffix("_e2e_latency_ms") || has("sharegpt_output_len"):
		return FormatSGLangBench, nil
	case hasSuffix("_ttft_ms") && has("model_id"):
		return FormatVLLMBench, nil
	}
	names := make([]string, 0, len(keys))
	for k := range keys {
		names = append(names, k)
	}
	sort.Strings(names)
	if len(names) > 8 {
		names = append(names[:8], "…")
	}
	if r := firstNonEmpty(resemblance(keys), keyedResemblance(t)); r != "" {
		return "", fmt.Errorf("JSON of no benchmark tool speedmatrix reads (keys: %s); %s", strings.Join(names, ", "), r)
	}
	return "", fmt.Errorf("JSON of no benchmark tool speedmatrix reads (keys: %s)", strings.Join(names, ", "))
}

// TestContainsAfter compares containsAfter with bytes.Contains of the
// whole needle, on chosen texts and on random ones of a few letters
// (where needles and their pieces occur often, overlapping).
func TestContainsAfter(t *testing.T) {
	tests := []struct{ b, pre, rest string }{
		{"", "", ""},
		{"", "\n", "B"},
		{"x\nBest Configurations", "\n", "Best Configurations"},
		{"Best Configurations", "\n", "Best Configurations"},
		{"a Best\nBest", "\n", "Best"},
		{"request_performance:", "request", "_performance:"},
		{"xrequest_performance", "request", "_performance:"},
		{"== Serving Benchmark Result ==", "Serving ", "Benchmark Result"},
		{"Serving  Benchmark Result", "Serving ", "Benchmark Result"},
		{"aab", "a", "ab"},
		{"abc", "abc", ""},
	}
	for _, tc := range tests {
		want := strings.Contains(tc.b, tc.pre+tc.rest)
		if got := containsAfter([]byte(tc.b), tc.pre, []byte(tc.rest)); got != want {
			t.Errorf("containsAfter(%q, %q, %q) = %v, want %v", tc.b, tc.pre, tc.rest, got, want)
		}
	}
	r := rand.New(rand.NewPCG(7, 8))
	word := func(n int) string {
		b := make([]byte, r.IntN(n+1))
		for i := range b {
			b[i] = "ab\n"[r.IntN(3)]
		}
		return string(b)
	}
	for range 20000 {
		b, pre, rest := word(30), word(3), word(4)
		want := strings.Contains(b, pre+rest)
		if got := containsAfter([]byte(b), pre, []byte(rest)); got != want {
			t.Fatalf("containsAfter(%q, %q, %q) = %v, want %v", b, pre, rest, got, want)
		}
	}
}
