package peers

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"speedmatrix/schema"
)

// TestSplitRuns groups a file's results by model and configuration, in
// order of first appearance, labelled by what sets each run apart.
func TestSplitRuns(t *testing.T) {
	kv := func(pairs ...string) []schema.KV {
		var out []schema.KV
		for i := 0; i < len(pairs); i += 2 {
			out = append(out, schema.KV{Key: pairs[i], Value: pairs[i+1]})
		}
		return out
	}
	for _, tc := range []struct {
		name    string
		models  []string
		configs [][]schema.KV
		groups  [][]int
		labels  []string
	}{
		{"one run", []string{"m", "m"}, [][]schema.KV{kv("label", "a"), kv("label", "a")}, [][]int{{0, 1}}, []string{""}},
		{"two deployments, interleaved", []string{"m", "m", "m"},
			[][]schema.KV{kv("deployment", "base", "tag", "x"), kv("deployment", "kvcache", "tag", "x"), kv("deployment", "base", "tag", "x")},
			[][]int{{0, 2}, {1}}, []string{"deployment=base", "deployment=kvcache"}},
		{"only the model differs", []string{"a", "b"}, [][]schema.KV{nil, nil}, [][]int{{0}, {1}}, []string{"", ""}},
		{"two settings apart", []string{"m", "m"}, [][]schema.KV{kv("max_num_seqs", "64", "output_len", "128"), kv("max_num_seqs", "128", "output_len", "128")},
			[][]int{{0}, {1}}, []string{"max_num_seqs=64", "max_num_seqs=128"}},
	} {
		groups, labels := splitRuns(tc.models, tc.configs)
		if !reflect.DeepEqual(groups, tc.groups) || !reflect.DeepEqual(labels, tc.labels) {
			t.Errorf("%s: groups %v labels %q; want %v %q", tc.name, groups, labels, tc.groups, tc.labels)
		}
	}
}

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
