package report

import (
	"strings"
	"testing"

	"speedmatrix/analysis"
	"speedmatrix/schema"
)

// TestOutcomeFailedRuns: a run whose every cell failed is named as such
// in the first sentence, not as runs sharing no cell or no figure.
func TestOutcomeFailedRuns(t *testing.T) {
	mk := func(id, model string, n int32, st schema.Status) *schema.Matrix {
		m := &schema.Matrix{Run: schema.Run{RunID: id, Model: model}}
		row := schema.Measurement{Phase: schema.PhaseServe, ContextLabel: "1K", Concurrency: schema.I32(n), Status: st}
		if st == schema.StatusValid {
			row.TotalTokS, row.TTFTMs = schema.F64(1000), schema.F64(50)
		}
		m.Measurements = []schema.Measurement{row}
		return m
	}
	cases := []struct {
		name      string
		base, oth *schema.Matrix
		want      string
	}{
		{"both failed, no common cell", mk("aaaa", "Model-8B", 4, schema.StatusError), mk("bbbb", "mistral-7b", 16, schema.StatusError),
			"Neither run has a valid cell: every cell of mistral-7b failed (1 error) and every cell of Model-8B failed (1 error)"},
		{"other failed in the common cell", mk("aaaa", "qwen3-4b", 16, schema.StatusValid), mk("bbbb", "mistral-7b", 16, schema.StatusError),
			"Every cell of mistral-7b failed (1 error), so nothing of it is compared with qwen3-4b"},
		{"baseline over capacity", mk("aaaa", "qwen3-4b", 16, schema.StatusOverCapacity), mk("bbbb", "mistral-7b", 16, schema.StatusValid),
			"Every cell of the baseline qwen3-4b failed (1 over capacity)"},
		{"both valid", mk("aaaa", "qwen3-4b", 16, schema.StatusValid), mk("bbbb", "mistral-7b", 16, schema.StatusValid),
			"mistral-7b delivers 1"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ms := []*schema.Matrix{c.base, c.oth}
			r := compared(t, ms...)
			got := strings.Join(r.Summary.Outcome, "\n")
			if !strings.HasPrefix(got, c.want) {
				t.Errorf("outcome:\n%s\nwant it to begin:\n%s", got, c.want)
			}
		})
	}
}

// TestNoRowsOfDashes: a metric neither run records is named in a note,
// not printed as a summary row of dashes; runs without a common cell get
// no delta or geometric-mean table, and -table summary of them is the
// CSV header, not an error.
func TestNoRowsOfDashes(t *testing.T) {
	mk := func(id, engine string, n int32, tok float64) *schema.Matrix {
		m := &schema.Matrix{Run: schema.Run{RunID: id, Engine: engine, BenchTool: "llmperf"}}
		m.Measurements = []schema.Measurement{{Phase: schema.PhaseServe, ContextLabel: "550", Concurrency: schema.I32(n), Status: schema.StatusValid,
			TotalTokS: schema.F64(tok), TTFTMs: schema.F64(1000 / tok)}}
		return m
	}
	r := compared(t, mk("aaaa", "replicate", 5, 29.4), mk("bbbb", "groq", 5, 441.8))
	sum := r.summaryTable()
	for _, row := range sum.Rows {
		if row[2] == "TBT ms" || row[2] == "per-request tok/s" {
			t.Errorf("summary row of a metric neither run records: %q", row)
		}
	}
	if len(sum.Rows) != 2 || !strings.Contains(strings.Join(sum.Notes, "\n"), "Not recorded by either run, so not compared: serve TBT ms, serve per-request tok/s.") {
		t.Errorf("summary rows %q, notes %q", sum.Rows, sum.Notes)
	}

	r = compared(t, mk("aaaa", "replicate", 5, 29.4), mk("bbbb", "groq", 8, 441.8))
	var b strings.Builder
	if err := r.Write(&b, FormatText, ""); err != nil {
		t.Fatal(err)
	}
	for _, no := range []string{"Deltas:", "Geometric mean", "Summary:"} {
		if strings.Contains(b.String(), no) {
			t.Errorf("runs without a common cell print %q:\n%s", no, b.String())
		}
	}
	b.Reset()
	if err := r.Write(&b, FormatCSV, "summary"); err != nil {
		t.Fatalf("-table summary of runs without a common cell: %v", err)
	}
	if got := b.String(); got != "run,phase,metric,ratio,min,max,ci_lo,ci_hi,verdict,cells_compared,cells_excluded,left_out\n" {
		t.Errorf("-table summary CSV = %q, want its header alone", got)
	}
}

// TestBestRatioSameLoadKind: the best serving answers of a closed loop (2
// streams) and an open loop (2 requests/s) get no ratio; two closed loops
// do.
func TestBestRatioSameLoadKind(t *testing.T) {
	mk := func(id, tool string, n int32, rate, tok float64) *schema.Matrix {
		m := &schema.Matrix{Run: schema.Run{RunID: id, Model: "Model-8B", BenchTool: tool}}
		row := schema.Measurement{Phase: schema.PhaseServe, ContextLabel: "1K", Status: schema.StatusValid, TotalTokS: schema.F64(tok), TTFTMs: schema.F64(50)}
		if n > 0 {
			row.Concurrency = schema.I32(n)
		}
		if rate > 0 {
			row.RequestRate = schema.F64(rate)
		}
		m.Measurements = []schema.Measurement{row}
		return m
	}
	cases := []struct {
		name      string
		base, oth *schema.Matrix
		ratio     bool
	}{
		{"streams against a rate", mk("aaaa", "vllm bench serve", 2, 0, 604.4), mk("bbbb", "genai-bench", 0, 2, 193.5), false},
		{"streams against no load", mk("aaaa", "vllm bench serve", 32, 0, 1280), mk("bbbb", "inference-perf", 0, 0, 1244.6), false},
		{"streams against streams", mk("aaaa", "vllm bench serve", 2, 0, 604.4), mk("bbbb", "genai-bench", 4, 0, 193.5), true},
		{"rate against rate", mk("aaaa", "vllm bench serve", 0, 2, 604.4), mk("bbbb", "genai-bench", 0, 4, 193.5), true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ms := []*schema.Matrix{c.base, c.oth}
			r := compared(t, ms...)
			if len(r.Summary.Best) != 1 {
				t.Fatalf("best: %+v", r.Summary.Best)
			}
			if got := r.Summary.Best[0].Ratios[0] != nil; got != c.ratio {
				t.Errorf("ratio present = %v, want %v (%+v)", got, c.ratio, r.Summary.Best[0].Runs)
			}
		})
	}
}

// TestOutcomeEqualRange: cells with one ratio read "1.08× in every
// cell", not "from 1.08× to 1.08×".
func TestOutcomeEqualRange(t *testing.T) {
	mk := func(id, model string, f float64) *schema.Matrix {
		m := &schema.Matrix{Run: schema.Run{RunID: id, Model: model}}
		for _, n := range []int32{16, 32} {
			m.Measurements = append(m.Measurements, schema.Measurement{Phase: schema.PhaseServe, ContextLabel: "1K", Concurrency: schema.I32(n),
				Status: schema.StatusValid, TotalTokS: schema.F64(672 * f * float64(n) / 16), TTFTMs: schema.F64(110.2 * float64(n) / 16)})
		}
		return m
	}
	ms := []*schema.Matrix{mk("aaaa", "max_num_seqs=64", 1), mk("bbbb", "max_num_seqs=128", 1.08)}
	r := compared(t, ms...)
	out := strings.Join(r.Summary.Outcome, "\n")
	if strings.Contains(out, "from 1.08× to 1.08×") || !strings.Contains(out, "1.08× in every cell") {
		t.Errorf("outcome: %s", out)
	}
	for _, row := range r.summaryTable().Rows {
		if strings.Contains(row[5], "–") && strings.Count(row[5], row[3]) > 1 {
			t.Errorf("summary range %q", row[5])
		}
	}
}

// TestBestTableDisjointContexts: runs at different input lengths get a
// best table sorted by length, without ratio columns of dashes.
func TestBestTableDisjointContexts(t *testing.T) {
	mk := func(id, model, ctx string, tokens int64, n int32) *schema.Matrix {
		m := &schema.Matrix{Run: schema.Run{RunID: id, Model: model}}
		m.Measurements = []schema.Measurement{{Phase: schema.PhaseServe, ContextLabel: ctx, ContextTokens: schema.I64(tokens), Concurrency: schema.I32(n),
			Status: schema.StatusValid, TotalTokS: schema.F64(100), TTFTMs: schema.F64(50)}}
		return m
	}
	ms := []*schema.Matrix{mk("aaaa", "e2e-mock-model", "66", 66, 1), mk("bbbb", "example_model", "257", 257, 1), mk("cccc", "Qwen3-4B", "99", 99, 4)}
	r := compared(t, ms...)
	bt, ok := r.answersTable(r.Summary.Best, "best", "Best")
	if !ok {
		t.Fatal("no best table")
	}
	var ctxs []string
	for _, row := range bt.Rows {
		ctxs = append(ctxs, row[1])
	}
	if strings.Join(ctxs, " ") != "66 99 257" {
		t.Errorf("contexts in order %q, want 66 99 257", ctxs)
	}
	if h := strings.Join(bt.Header, "|"); strings.Contains(h, "ratio") {
		t.Errorf("header %q has ratio columns without a ratio", h)
	}
}

// TestServeBestBound: a run that did not measure the baseline's higher
// concurrency answers with a lower bound (≥), and one left-out cell reads
// in the singular.
func TestServeBestBound(t *testing.T) {
	mk := func(id, model string, ns ...int32) *schema.Matrix {
		m := &schema.Matrix{Run: schema.Run{RunID: id, Model: model}}
		for _, n := range ns {
			m.Measurements = append(m.Measurements, schema.Measurement{Phase: schema.PhaseServe, ContextLabel: "unknown", Concurrency: schema.I32(n),
				Status: schema.StatusValid, TotalTokS: schema.F64(75 * float64(n)), TTFTMs: schema.F64(50)})
		}
		return m
	}
	ms := []*schema.Matrix{mk("aaaa", "sweep", 16, 64), mk("bbbb", "qwen3-4b", 16)}
	r := compared(t, ms...)
	b := r.Summary.Best[0]
	if b.Runs[0].LowerBound || !b.Runs[1].LowerBound || b.Runs[1].Why != "N=64 missing" {
		t.Errorf("picks %+v", b.Runs)
	}
	bt, _ := r.answersTable(r.Summary.Best, "best", "Best")
	if got := bt.Rows[0][len(bt.Rows[0])-1]; !strings.HasPrefix(got, "≥ ") {
		t.Errorf("ratio %q, want a lower bound", got)
	}
	if out := strings.Join(r.Summary.Outcome, " "); !strings.Contains(out, "1 serve cell has no ratio and is left out (1 missing in qwen3-4b)") {
		t.Errorf("outcome: %s", out)
	}
	// Its scaling table has no X(1): no columns of dashes.
	var sb strings.Builder
	if err := r.Write(&sb, FormatText, "scaling"); err != nil {
		t.Fatal(err)
	}
	if lines := strings.Split(sb.String(), "\n"); len(lines) < 2 || strings.Contains(lines[1], "speedup") || strings.Contains(lines[1], "USL") ||
		!strings.Contains(sb.String(), "No speedup or efficiency: they need a valid cell at N=1.") {
		t.Errorf("scaling table:\n%s", sb.String())
	}
}

// TestBestNoneDropped: runs whose every cell failed get no best row of
// "none" alone.
func TestBestNoneDropped(t *testing.T) {
	mk := func(id, model string, n int32) *schema.Matrix {
		m := &schema.Matrix{Run: schema.Run{RunID: id, Model: model}}
		m.Measurements = []schema.Measurement{{Phase: schema.PhaseServe, ContextLabel: "unknown", Concurrency: schema.I32(n), Status: schema.StatusError}}
		return m
	}
	ms := []*schema.Matrix{mk("aaaa", "Model-8B", 4), mk("bbbb", "mistral-7b", 16)}
	if r := compared(t, ms...); len(r.Summary.Best) != 0 {
		t.Errorf("best: %+v", r.Summary.Best)
	}
}

// compared is the report of ms[1:] against ms[0], labelled as compare
// labels them.
func compared(t *testing.T, ms ...*schema.Matrix) *Report {
	t.Helper()
	c, err := analysis.Compare(ms[0], ms[1:], analysis.Options{Labels: Labels(ms)})
	if err != nil {
		t.Fatal(err)
	}
	return New(c, Options{})
}
