package peers

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestVLLMSweepSummaryCSV reads the summary.csv `vllm bench sweep serve`
// writes (pandas' to_csv of the runs of summary.json, index column
// first): the same runs, cells and figures as the JSON it was made from,
// each cell on its CSV line. Before, the CSV was taken for a speed-test
// document and rejected without naming vLLM.
func TestVLLMSweepSummaryCSV(t *testing.T) {
	c := mustReadAll(t, fixtures+"/vllm/sweep-serve-summary-v0.12.csv")
	j := mustReadAll(t, fixtures+"/vllm/sweep-serve-summary-v0.12.json")
	if len(c) != len(j) || len(c) != 2 {
		t.Fatalf("%d and %d runs, want 2", len(c), len(j))
	}
	for i := range c {
		if c[i].Run.Title != j[i].Run.Title || c[i].Run.SourceFormat != FormatVLLMBench {
			t.Errorf("run %d: %q (%s), want %q", i, c[i].Run.Title, c[i].Run.SourceFormat, j[i].Run.Title)
		}
		if len(c[i].Measurements) != len(j[i].Measurements) {
			t.Fatalf("run %d: %d cells, want %d", i, len(c[i].Measurements), len(j[i].Measurements))
		}
		for k := range c[i].Measurements {
			cc, jc := c[i].Measurements[k], j[i].Measurements[k]
			if cc.SourceLine < 2 || cc.SourceLine > 5 {
				t.Errorf("run %d cell %d: line %d, not a CSV row's", i, k, cc.SourceLine)
			}
			cc.SourceLine, jc.SourceLine = 0, 0
			cb, _ := json.Marshal(cc)
			jb, _ := json.Marshal(jc)
			if string(cb) != string(jb) {
				t.Errorf("run %d cell %d differs:\ncsv  %s\njson %s", i, k, cb, jb)
			}
		}
		for _, f := range j[i].Run.Metadata {
			if got := meta(c[i], f.Section, f.Key); got != f.Value {
				t.Errorf("run %d: metadata %s/%s = %q, want %q", i, f.Section, f.Key, got, f.Value)
			}
		}
	}
	m := c[1]
	checkFields(t, []fieldCheck{
		{"max_num_seqs 128, concurrency 32", fp(m.Measurements[1].Concurrency), 32},
		{"ttft p50", m.Measurements[1].TTFTMs, 238.14},
		{"requested input length", extra(&m.Measurements[1], "requested_input_len"), 1024},
	})
}

// TestVLLMSweepCompanions checks the files of a sweep's folders that are
// not measurements: a warm-up run (run_number −1) and a failure record
// are refused, each saying what it is and what to ingest instead; and
// guidellm's CSV export, which names no benchmark's load, is refused
// naming guidellm (it was taken for a speed-test document); a pooling
// (embeddings) result says it is one.
func TestVLLMSweepCompanions(t *testing.T) {
	for file, want := range map[string]string{
		"bad/vllm-sweep-warmup.json":              "warm-up run",
		"bad/vllm-sweep-run-failure.json":         "failed `vllm bench sweep` run",
		"bad/guidellm-benchmarks.csv":             "guidellm's CSV export",
		"bad/vllm-pooling-embeddings.json":        "pooling (embeddings) benchmark",
		"bad/aiperf-sweep-aggregate.csv":          "AIPerf's sweep aggregate CSV",
		"bad/guidellm-yaml-unescaped-quotes.yaml": "guidellm YAML report: YAML:",
	} {
		_, err := readPeer(t, file)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want an error saying %q", file, err, want)
		}
	}
}
