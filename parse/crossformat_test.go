package parse

import (
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"speedmatrix/schema"
)

// TestLLMBenchJSONMatchesDocument checks that the JSON file of a run and
// the document the tool printed for it land as the same figures: every
// cell of the JSON excerpt of seed 000 agrees with the seed's row to the
// precision the document prints.
func TestLLMBenchJSONMatchesDocument(t *testing.T) {
	doc := mustParseFile(t, filepath.Join("..", "testdata", "seeds", "000_acc4a01d882a0446.txt"))
	js := mustParseFile(t, filepath.Join("testdata", "peers", "llm-inference-bench", "seed000-excerpt-v0.7.json"))
	rows := map[string]*schema.Measurement{}
	for i := range doc.Measurements {
		m := &doc.Measurements[i]
		rows[seedKey(m)] = m
	}
	if len(js.Measurements) == 0 {
		t.Fatal("no cells in the JSON excerpt")
	}
	for i := range js.Measurements {
		j := &js.Measurements[i]
		d, ok := rows[seedKey(j)]
		if !ok {
			t.Errorf("%s: no such row in the document", seedKey(j))
			continue
		}
		if j.Status != d.Status {
			t.Errorf("%s: status %s in JSON, %s in the document", seedKey(j), j.Status, d.Status)
		}
		if j.ContextTokens == nil || d.ContextTokens == nil || *j.ContextTokens != *d.ContextTokens {
			t.Errorf("%s: context tokens differ", seedKey(j))
		}
		for _, f := range []struct {
			name     string
			jv, dv   *float64
			printTol func(float64) float64
		}{
			{"total_tok_s", j.TotalTokS, d.TotalTokS, tokSTolerance},
			{"per_request_tok_s", j.PerRequestTokS, d.PerRequestTokS, tokSTolerance},
			{"ttft_ms", j.TTFTMs, d.TTFTMs, func(float64) float64 { return 0.5 }},
			{"tbt_ms", j.TBTMs, d.TBTMs, func(float64) float64 { return 0.05 }},
			{"avg_active_requests", j.AvgActiveRequests, d.AvgActiveRequests, func(float64) float64 { return 0.05 }},
			{"measured_s", j.MeasuredS, d.MeasuredS, func(float64) float64 { return 0.05 }},
		} {
			if (f.jv == nil) != (f.dv == nil) {
				t.Errorf("%s %s: JSON %v, document %v", seedKey(j), f.name, f.jv, f.dv)
				continue
			}
			if f.jv != nil && math.Abs(*f.jv-*f.dv) > f.printTol(*f.dv)+1e-9 {
				t.Errorf("%s %s: JSON %g, document %g", seedKey(j), f.name, *f.jv, *f.dv)
			}
		}
		for _, f := range []struct {
			name   string
			jv, dv *int64
		}{{"completed_requests", j.CompletedRequests, d.CompletedRequests}, {"output_tokens", j.OutputTokens, d.OutputTokens}} {
			if j.Status == schema.StatusOverCapacity {
				continue // the document prints — where the JSON has no entry
			}
			if (f.jv == nil) != (f.dv == nil) || f.jv != nil && *f.jv != *f.dv {
				t.Errorf("%s %s: JSON %v, document %v", seedKey(j), f.name, deref(f.jv), deref(f.dv))
			}
		}
	}
}

// tokSTolerance is half a unit of the last digit the seeds print for a
// rate: one decimal below 10,000, three significant digits above.
func tokSTolerance(v float64) float64 {
	if v >= 10000 {
		return math.Pow(10, math.Floor(math.Log10(v))-2) / 2
	}
	return 0.05
}

// seedKey names a cell by phase, context label and concurrency.
func seedKey(m *schema.Measurement) string {
	c := "-"
	if m.Concurrency != nil {
		c = strconv.Itoa(int(*m.Concurrency))
	}
	return string(m.Phase) + " " + m.ContextLabel + "×" + c
}

// deref prints an optional count.
func deref(p *int64) any {
	if p == nil {
		return nil
	}
	return *p
}

// mustParseFile parses a file of any format that holds one run, failing
// the test on error.
func mustParseFile(t *testing.T, path string) *schema.Matrix {
	t.Helper()
	m, err := single(mustParseAll(t, path), path)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// mustParseAll parses a file of any format into its runs, failing the
// test on error.
func mustParseAll(t *testing.T, path string) []*schema.Matrix {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	ms, err := ParseAllBytes(b, path, "")
	if err != nil {
		t.Fatal(err)
	}
	return ms
}

// TestParseWantsOneRun checks that Parse, given a result file of two
// runs, says what the file holds and where the second run starts.
func TestParseWantsOneRun(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("testdata", "peers", "vllm", "append-deployments.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ParseBytes(b, "x.jsonl", ""); err == nil || !strings.Contains(err.Error(), "x.jsonl:3: holds 2 runs") {
		t.Errorf("Parse of a file of two runs: %v", err)
	}
}
