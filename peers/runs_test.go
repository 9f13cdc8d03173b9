package peers

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"speedmatrix/schema"
)

func FuzzParsePeer(f *testing.F) {
	for _, dir := range []string{"vllm", "sglang", "guidellm", "llmperf", "aiperf", "genai-perf", "llm-inference-bench", "genai-bench", "inference-perf", "hf-inference-benchmarker", "llama-bench", "llama-benchy", "bad"} {
		paths, _ := filepath.Glob(filepath.Join(fixtures, dir, "*"))
		for _, p := range paths {
			b, err := os.ReadFile(p)
			if err == nil {
				addSeed(f, b)
			}
		}
	}
	// Small files of the formats whose fixtures are above maxFuzzSeed, so
	// the engine reaches their readers too.
	for _, s := range []string{
		`{"aggregated_metrics": {"scenario": "D(100,10)", "num_concurrency": 2, "iteration_type": "num_concurrency", "run_duration": 1.5, "mean_output_throughput_tokens_per_s": 10.5, "num_completed_requests": 3, "stats": {"ttft": {"p50": 0.1, "mean": 0.2}, "tpot": {"p50": 0.01}, "num_output_tokens": {"sum": 30}}}, "_time_unit": "s"}`,
		`{"config": {"model_name": "m", "prompt_options": {"num_tokens": 10}}, "results": [{"id": "warmup", "executor_type": "ConstantVUs", "config": {"max_vus": 1}, "token_throughput_secs": 1}, {"id": "r", "executor_type": "ConstantArrivalRate", "config": {"max_vus": 8, "rate": 2.0}, "token_throughput_secs": 5.5, "successful_requests": 4, "total_tokens_sent": 40, "time_to_first_token_ms": {"p50": 12, "avg": 13}, "e2e_latency_ms": {"p90": 100}}]}`,
		"build_commit,build_number,model_type,n_prompt,n_gen,n_depth,avg_ns,avg_ts,stddev_ts\n\"ab12\",\"5\",\"llama 7B Q4_0\",\"512\",\"0\",\"4096\",\"5000\",\"102.5\",\"1.5\"\n",
		"CREATE TABLE IF NOT EXISTS llama_bench (\n  build_commit TEXT,\n  n_prompt INTEGER\n);\nINSERT INTO llama_bench (build_commit, n_prompt, n_gen, avg_ts) VALUES ('a', '0', '128', '9.5');\n",
		`{"build_commit": "a", "n_prompt": 0, "n_gen": 16, "n_depth": 0, "avg_ts": 9.5, "samples_ns": [1000, 1100], "samples_ts": [10, 9]}` + "\n",
		`{"metadata": {"version": "0.4.1"}, "results": [{"concurrency": 2, "context_tokens": 0, "aggregate_tps_mean": 10.5, "aggregate_tps_stdev": 0.5, "ttft_p50_mean": 0.1, "chunk_gap_p99": 0.2, "server_spec_accept_rate": 2001}]}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		ms, ok, err := Read(b, "fuzz.json", "")
		if err != nil {
			var pe *Error
			if !errors.As(err, &pe) || pe.File != "fuzz.json" {
				t.Fatalf("error not positioned: %v", err)
			}
			return
		}
		if ok && len(ms) == 0 {
			t.Fatalf("parsed with no runs")
		}
		for _, m := range ms {
			if len(m.Measurements) == 0 {
				t.Fatalf("parsed a run with no measurements")
			}
		}
	})
}

func BenchmarkParsePeerVLLM(b *testing.B) {
	data, err := os.ReadFile(filepath.Join(fixtures, "vllm", "inferencex-atom-qwen35-397b-mtp-conc64-with-input_lens.json"))
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, _, err := Read(data, "bench.json", ""); err != nil {
			b.Fatal(err)
		}
	}
}

// js renders v as JSON for messages.
func js(v any) string { b, _ := json.Marshal(v); return string(b) }

// TestPeerRuns reads appended result files whose results differ in
// configuration (several runs in one file), repeat a load (repeats of one
// run), or record a benchmark in which nothing completed.
func TestPeerRuns(t *testing.T) {
	read := func(rel string) []*schema.Matrix {
		t.Helper()
		return mustReadAll(t, filepath.Join(fixtures, rel))
	}
	meta := func(m *schema.Matrix, key string) string {
		for _, f := range m.Run.Metadata {
			if f.Key == key {
				return f.Value
			}
		}
		return ""
	}

	t.Run("one run per --metadata configuration", func(t *testing.T) {
		ms := read("vllm/append-deployments.jsonl")
		if len(ms) != 2 {
			t.Fatalf("%d runs, want 2", len(ms))
		}
		for i, dep := range []string{"base", "kvcache"} {
			m := ms[i]
			if want := "vLLM bench serve: Model-8B (deployment=" + dep + ")"; m.Run.Title != want {
				t.Errorf("title %q, want %q", m.Run.Title, want)
			}
			if len(m.Measurements) != 2 || meta(m, "deployment") != dep {
				t.Errorf("run %d: %d cells, deployment %q", i, len(m.Measurements), meta(m, "deployment"))
			}
			// A number given as a --metadata string is a label, not a figure.
			if meta(m, "decode_replicas") != "4" || extra(&m.Measurements[0], "decode_replicas") != nil {
				t.Errorf("run %d: decode_replicas in metadata %q, in extra %v", i, meta(m, "decode_replicas"), extra(&m.Measurements[0], "decode_replicas"))
			}
		}
		if ms[0].Run.RunID == ms[1].Run.RunID || ms[0].Run.SourceSHA256 != ms[1].Run.SourceSHA256 {
			t.Errorf("run ids %s %s, sources %s %s", ms[0].Run.RunID, ms[1].Run.RunID, ms[0].Run.SourceSHA256, ms[1].Run.SourceSHA256)
		}
	})

	t.Run("repeats of one load", func(t *testing.T) {
		ms := read("vllm/sweep-repeats.json")
		if len(ms) != 1 || len(ms[0].Measurements) != 2 {
			t.Fatalf("%d runs", len(ms))
		}
		for i, c := range ms[0].Measurements {
			if c.Repeat == nil || *c.Repeat != int32(i) {
				t.Errorf("cell %d repeat %v, want %d", i, c.Repeat, i)
			}
		}
	})

	t.Run("another --label is another run", func(t *testing.T) {
		b, _ := os.ReadFile(filepath.Join(fixtures, "vllm", "sweep-repeats.json"))
		var objs []map[string]any
		if err := json.Unmarshal(b, &objs); err != nil {
			t.Fatal(err)
		}
		var lines []byte
		for i, o := range objs {
			o["label"] = []string{"eager", "graphs"}[i]
			l, _ := json.Marshal(o)
			lines = append(append(lines, l...), '\n')
		}
		ms, err := readAll(lines, "labels.jsonl", "")
		if err != nil || len(ms) != 2 || !strings.HasSuffix(ms[1].Run.Title, "(label=graphs)") || ms[1].Measurements[0].Repeat != nil {
			t.Fatalf("%d runs, %v", len(ms), err)
		}
	})

	t.Run("nothing completed", func(t *testing.T) {
		c := read("vllm/all-requests-failed.json")[0].Measurements[0]
		if c.Status != schema.StatusError || c.StatusReason != "no request completed (8 failed)" ||
			c.TotalTokS != nil || c.TTFTMs != nil || c.TBTMs != nil || c.E2EMeanMs != nil ||
			c.ErroredRequests == nil || *c.ErroredRequests != 8 || c.CompletedRequests == nil || *c.CompletedRequests != 0 {
			t.Errorf("cell %s", js(c))
		}
	})

	t.Run("SGLang server_info, tag and output lengths", func(t *testing.T) {
		ms := read("sglang/server-info-two-output-lens.jsonl")
		if len(ms) != 2 || len(ms[0].Measurements) != 2 || len(ms[1].Measurements) != 1 {
			t.Fatalf("%d runs", len(ms))
		}
		r := ms[0].Run
		if r.Model != "Model-3B-Instruct" || r.EngineVersion != "0.5.5.post3" || r.TensorParallel == nil || *r.TensorParallel != 2 ||
			r.Quantization != "fp8" || r.KVBudgetTokens == nil || *r.KVBudgetTokens != 2301720 || meta(ms[0], "tag") != "c8" || !strings.HasSuffix(r.Title, "(random_output_len=128)") {
			t.Errorf("run %s", js(r))
		}
		c := ms[0].Measurements[1]
		if !near(c.AvgActiveRequests, 16*0.97) || c.ContextLabel != "1K" || !near(extra(&c, "random_output_len"), 128) || !near(extra(&c, "random_range_ratio"), 1) {
			t.Errorf("cell %s", js(c))
		}
	})

	t.Run("a latency printed as 0 is none", func(t *testing.T) {
		// An older SGLang line (no dataset name, no server_info) whose
		// run collected no chunk gaps: np.median([] or 0) printed 0.
		line := `{"backend": "sglang", "request_rate": Infinity, "total_input_tokens": 342460, "total_output_tokens": 218257, ` +
			`"total_output_tokens_retokenized": 2356, "mean_e2e_latency_ms": 42764.5, "median_e2e_latency_ms": 43827.25, ` +
			`"median_ttft_ms": 14326.75, "median_itl_ms": 0.0, "output_throughput": 2573.75, "random_input_len": 1024, ` +
			`"random_output_len": 128, "random_range_ratio": 0.0, "duration": 84.75, "completed": 996}` + "\n"
		ms, err := readAll([]byte(line), "old.jsonl", "")
		if err != nil {
			t.Fatal(err)
		}
		c := ms[0].Measurements[0]
		if c.ChunkGapP50Ms != nil || !near(c.TTFTMs, 14326.75) || !near(c.E2EP50Ms, 43827.25) {
			t.Errorf("cell %s", js(c))
		}
	})

	t.Run("a row appended twice", func(t *testing.T) {
		b, _ := os.ReadFile(filepath.Join(fixtures, "bad", "vllm-duplicate-row.jsonl"))
		_, err := readAll(b, "dup.jsonl", "")
		if err == nil || !strings.Contains(err.Error(), "dup.jsonl:2: duplicate serve cell") || !strings.Contains(err.Error(), "repeats line 1") {
			t.Errorf("error %v", err)
		}
	})
}

// TestAIPerfExportsAgree reads the JSON and the CSV export of one AIPerf
// run: every figure of the CSV lands under the same name as the JSON's
// (http_req_blocked, not http_blocked; ms with its unit in the name), to
// the two decimals the CSV prints.
// The 0.10 pair adds sizes (HTTP Data Sent in KB: _kb in the name, as in
// the JSON) and a label with "%" (OSL Mismatch Diff %: the JSON's
// osl_mismatch_diff_pct).
func TestAIPerfExportsAgree(t *testing.T) {
	for _, pair := range []struct {
		json, csv string
		min       int
		names     []string
	}{
		{"aiperf/aiperf-0.1.1-example-run1-profile_export_aiperf.json", "aiperf/aiperf-0.1.1-example-run1-profile_export_aiperf.csv", 60, nil},
		{"aiperf/profile_export_aiperf-v0.10-http.json", "aiperf/profile_export_aiperf-v0.10-http.csv", 40,
			[]string{"http_req_data_sent_avg_kb", "http_req_data_received_p99_kb", "osl_mismatch_diff_pct_avg", "time_to_second_token_p90_ms"}},
	} {
		t.Run(filepath.Base(pair.csv), func(t *testing.T) { aiperfExportsAgree(t, pair.json, pair.csv, pair.min, pair.names) })
	}
}

// aiperfExportsAgree checks one JSON/CSV pair of an AIPerf run (see
// TestAIPerfExportsAgree); names must be among the CSV's figures.
func aiperfExportsAgree(t *testing.T, jsonPath, csvPath string, min int, names []string) {
	js, err := readPeer(t, jsonPath)
	if err != nil {
		t.Fatal(err)
	}
	csv, err := readPeer(t, csvPath)
	if err != nil {
		t.Fatal(err)
	}
	j, c := &js.Measurements[0], &csv.Measurements[0]
	if len(c.Extra) < min {
		t.Fatalf("only %d extra figures from the CSV", len(c.Extra))
	}
	for _, n := range names {
		if extra(c, n) == nil {
			t.Errorf("CSV has no figure %s", n)
		}
	}
	for _, e := range c.Extra {
		got := extra(j, e.Name)
		if got == nil {
			t.Errorf("CSV figure %s has no JSON figure of that name", e.Name)
			continue
		}
		if math.Abs(*got-e.Value) > 0.0051+1e-9*math.Abs(e.Value) {
			t.Errorf("%s: JSON %v, CSV %v", e.Name, *got, e.Value)
		}
	}
	for _, p := range [][2]*float64{{j.TTFTMs, c.TTFTMs}, {j.E2EP99Ms, c.E2EP99Ms}, {j.TotalTokS, c.TotalTokS}, {j.MeasuredS, c.MeasuredS}} {
		if p[0] == nil || p[1] == nil || math.Abs(*p[0]-*p[1]) > 0.0051 {
			t.Errorf("column: JSON %v, CSV %v", p[0], p[1])
		}
	}
}

func TestServeLabel(t *testing.T) {
	for tokens, want := range map[int64]string{
		7999: "8K", 8000: "8K", 8192: "8K", 8704: "9K", 2969: "3K", 3072: "3K",
		1000: "1K", 1024: "1K", 895: "895", 513: "513", 131072: "128K", 128000: "125K",
	} {
		if got := serveLabel(tokens); got != want {
			t.Errorf("serveLabel(%d) = %q, want %q", tokens, got, want)
		}
	}
}

// TestServeRowsAlignByRequestedLength checks that two serving results
// asked for 8,000 and 8,192 input tokens (measured 7,999 and 8,190) land in
// one context, labelled as people name it, with the exact lengths kept.
func TestServeRowsAlignByRequestedLength(t *testing.T) {
	line := func(req, total int) string {
		return fmt.Sprintf(`{"model_id": "m", "max_concurrency": 4, "request_rate": "inf", "completed": 10, "random_input_len": %d, "total_input_tokens": %d, "total_output_tokens": 1280, "duration": 10, "output_throughput": 128, "median_ttft_ms": 50, "median_tpot_ms": 10}`, req, total)
	}
	var labels []string
	for _, c := range []struct{ req, total, want int }{{8000, 79990, 8000}, {8192, 81900, 8192}} {
		ms, err := readAll([]byte(line(c.req, c.total)), "r.json", "")
		if err != nil {
			t.Fatal(err)
		}
		m := ms[0].Measurements[0]
		if m.ContextTokens == nil || *m.ContextTokens != int64(c.want) || !near(extra(&m, "requested_input_len"), float64(c.req)) {
			t.Errorf("requested %d: context %v", c.req, js(m))
		}
		labels = append(labels, m.ContextLabel)
	}
	if labels[0] != "8K" || labels[1] != "8K" {
		t.Errorf("labels %v, want both 8K", labels)
	}
}

// TestVLLMSweepServeParams reads a `vllm bench sweep serve` summary of two
// --serve-params combinations (max_num_seqs 64 and 128) × two loads: a run
// per server configuration, the serve parameters as run metadata, not
// figures, and the requested input length as the context.
func TestVLLMSweepServeParams(t *testing.T) {
	ms := mustReadAll(t, filepath.Join(fixtures, "vllm", "sweep-serve-summary-v0.12.json"))
	if len(ms) != 2 {
		t.Fatalf("%d runs, want 2", len(ms))
	}
	for i, seqs := range []string{"64", "128"} {
		m := ms[i]
		if !strings.Contains(m.Run.Title, "max_num_seqs="+seqs) || len(m.Measurements) != 2 {
			t.Errorf("run %d: %q, %d cells", i, m.Run.Title, len(m.Measurements))
		}
		got := ""
		for _, f := range m.Run.Metadata {
			if f.Section == "Serve" && f.Key == "max_num_seqs" {
				got = f.Value
			}
		}
		if got != seqs {
			t.Errorf("run %d: serve max_num_seqs %q, want %s", i, got, seqs)
		}
		for _, c := range m.Measurements {
			if extra(&c, "max_num_seqs") != nil || c.ContextLabel != "1K" || c.Repeat != nil {
				t.Errorf("run %d cell: %s", i, js(c))
			}
		}
	}
	c := ms[1].Measurements[1]
	if !near(c.TTFTMs, 238.14) || !near(c.TotalTokS, 1451.52) || !near(extra(&c, "max_output_tokens_per_s"), 1555.2) || *c.Concurrency != 32 {
		t.Errorf("cell %s", js(c))
	}
}

func TestLLMBenchJSONStatuses(t *testing.T) {
	m, err := readPeer(t, "llm-inference-bench/seed000-excerpt-v0.7.json")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]schema.Status{"8K|1": schema.StatusValid, "8K|16": schema.StatusLooped, "8K|128": schema.StatusValid,
		"123K|1": schema.StatusValid, "123K|16": schema.StatusValid, "123K|128": schema.StatusOverCapacity}
	for _, c := range m.Measurements {
		if c.Phase != schema.PhaseDecode {
			continue
		}
		k := c.ContextLabel + "|" + itoa32(c.Concurrency)
		if c.Status != want[k] {
			t.Errorf("%s: status %s, want %s", k, c.Status, want[k])
		}
		delete(want, k)
	}
	if len(want) != 0 {
		t.Errorf("cells missing: %v", want)
	}

	// An old file leaves skipped cells out; they are recomputed from the
	// recorded budget: 64 × (0 + 8192) = 524288 > 400000, and 32 ×
	// (16384 + 8192) = 786432 > 400000, 64 × … as well; 32 × 8192 = 262144 fits.
	old, err := readPeer(t, "llm-inference-bench/old-no-version.json")
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]schema.Status{}
	for _, c := range old.Measurements {
		got[c.ContextLabel+"|"+itoa32(c.Concurrency)] = c.Status
	}
	for k, st := range map[string]schema.Status{"0|1": schema.StatusValid, "0|32": schema.StatusValid, "0|64": schema.StatusOverCapacity,
		"16K|1": schema.StatusValid, "16K|32": schema.StatusOverCapacity, "16K|64": schema.StatusOverCapacity} {
		if got[k] != st {
			t.Errorf("old file %s: status %q, want %q", k, got[k], st)
		}
	}
	if old.Run.BenchVersion != "" || old.Run.KVBudgetTokens == nil || *old.Run.KVBudgetTokens != 400000 {
		t.Errorf("old file run: version %q budget %v", old.Run.BenchVersion, old.Run.KVBudgetTokens)
	}
}

func itoa32(p *int32) string {
	if p == nil {
		return "-"
	}
	return strconv.Itoa(int(*p))
}

func TestSanitizeJSON(t *testing.T) {
	tests := []struct{ in, want string }{
		{`{"a": Infinity}`, `{"a": "Infinity"}`},
		{`{"a": -Infinity, "b": NaN}`, `{"a": "-Infinity", "b": "NaN"}`},
		{`{"s": "Infinity and NaN stay"}`, `{"s": "Infinity and NaN stay"}`},
		{`{"s": "esc \" Infinity"}`, `{"s": "esc \" Infinity"}`},
		{`[1, 2]`, `[1, 2]`},
	}
	for _, tt := range tests {
		if got := string(sanitizeJSON([]byte(tt.in))); got != tt.want {
			t.Errorf("sanitizeJSON(%s) = %s, want %s", tt.in, got, tt.want)
		}
	}
}

func TestModelBase(t *testing.T) {
	tests := map[string]string{
		"/models/models--openai--gpt-oss-120b/snapshots/b5c939de8f754692c1647ca79fbf85e8c1e70f8a/": "gpt-oss-120b",
		"Qwen/Qwen3.5-397B-A17B-FP8": "Qwen3.5-397B-A17B-FP8",
		"llama2-70b-4096":            "llama2-70b-4096",
		"":                           "",
	}
	for in, want := range tests {
		if got := modelBase(in); got != want {
			t.Errorf("modelBase(%q) = %q, want %q", in, got, want)
		}
	}
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
