package report

import (
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"speedmatrix/analysis"
	"speedmatrix/parse"
	"speedmatrix/schema"
)

// TestRatioMatrix checks the compact table of the seeds: context ×
// concurrency, a ratio with its printed precision or the reason.
func TestRatioMatrix(t *testing.T) {
	r := build(t, pairs[0])
	var m *Table
	for _, tb := range r.Tables() {
		if tb.Name == "matrix_decode_total_tok_s" {
			m = &tb
			break
		}
	}
	if m == nil {
		t.Fatalf("no decode total tok/s matrix in %v", r.TableNames())
	}
	if got := strings.Join(m.Header, " "); got != "context 1 2 4 8 16 32 64 128" {
		t.Errorf("header %q", got)
	}
	row8K := m.Rows[0]
	if row8K[0] != "8K" || row8K[8] != "0.469" || row8K[5] != "looped (INT4)" {
		t.Errorf("8K row %q", row8K)
	}
	if last := m.Rows[len(m.Rows)-1]; last[0] != "123K" || last[8] != "over cap. (both)" {
		t.Errorf("123K row %q", last)
	}
}

// TestServeOverlap compares two serving runs that share loads (one vLLM
// file appended with two --metadata deployments): a ratio per load, the
// summary's verdict, every serving chart.
func TestServeOverlap(t *testing.T) {
	ms := deployments(t)
	c, err := analysis.Compare(ms[0], ms[1:], analysis.Options{Labels: Labels(ms), SameWithin: 0.03})
	if err != nil {
		t.Fatal(err)
	}
	r := New(c, Options{})
	if len(r.Summary.Disjoint) != 0 || len(r.Summary.Outcome) != 1 || !strings.Contains(r.Summary.Outcome[0], "the serving throughput of deployment=base") {
		t.Errorf("outcome %q", r.Summary.Outcome)
	}
	charts, notes := r.Charts()
	var names []string
	for _, ch := range charts {
		names = append(names, ch.Name)
	}
	if len(notes) > 0 || len(charts) != 6 {
		t.Errorf("charts %v, notes %q", names, notes)
	}
	if !strings.Contains(strings.Join(r.TableNames(), " "), "matrix_serve_total_tok_s") {
		t.Errorf("no serving ratio matrix in %v", r.TableNames())
	}
}

// TestEveryPeerFile compares each run of every fixture file with the
// next and with a seed, and writes each report's page: no valid input
// makes the HTML report fail.
func TestEveryPeerFile(t *testing.T) {
	if testing.Short() {
		t.Skip("renders a few hundred charts")
	}
	var runs []*schema.Matrix
	files, _ := filepath.Glob(peers + "*/*")
	for _, f := range files {
		if strings.Contains(f, "/bad/") || strings.HasSuffix(f, ".md") {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		ms, err := parse.ParseAllBytes(b, f, "")
		if err != nil {
			continue // not every fixture is a whole file of its tool
		}
		runs = append(runs, ms...)
	}
	if len(runs) < 20 {
		t.Fatalf("%d runs from %d fixture files", len(runs), len(files))
	}
	seed := load(t, seedINT4)
	for i, a := range runs {
		for _, o := range []*schema.Matrix{runs[(i+1)%len(runs)], seed} {
			if o.Run.RunID == a.Run.RunID {
				continue
			}
			c, err := analysis.Compare(a, []*schema.Matrix{o}, analysis.Options{Labels: Labels([]*schema.Matrix{a, o})})
			if err != nil {
				t.Fatal(err)
			}
			r := New(c, Options{MinUserTokS: 50, SLO: analysis.SLO{MaxTTFTMs: 500}})
			charts, _ := r.Charts()
			if err := r.WriteHTML(io.Discard, charts); err != nil {
				t.Errorf("%s against %s: %v", o.Run.SourcePath, a.Run.SourcePath, err)
			}
			if err := r.Write(io.Discard, FormatJSON, ""); err != nil {
				t.Errorf("%s against %s: JSON: %v", o.Run.SourcePath, a.Run.SourcePath, err)
			}
		}
	}
}

// TestPointEstimateNote: where some cells carry samples, the summary
// names the rows whose verdict is a point estimate (a prefill measured by
// one cold request).
func TestPointEstimateNote(t *testing.T) {
	mk := func(id string, ttft float64) *schema.Matrix {
		m := &schema.Matrix{Run: schema.Run{RunID: id}}
		m.Measurements = []schema.Measurement{
			{Phase: schema.PhasePrefill, ContextLabel: "8K", Concurrency: schema.I32(1), Status: schema.StatusValid, TotalTokS: schema.F64(ttft * 100), TTFTMs: schema.F64(ttft)},
			{Phase: schema.PhaseDecode, ContextLabel: "8K", Concurrency: schema.I32(8), Status: schema.StatusValid, TotalTokS: schema.F64(1000), TTFTMs: schema.F64(ttft)},
		}
		for i := range 12 {
			m.Samples = append(m.Samples, schema.Sample{Phase: schema.PhaseDecode, ContextLabel: "8K", Concurrency: 8, Request: int64(i), InWindow: true,
				TTFTMs: schema.F64(ttft + float64(i%4))})
		}
		return m
	}
	c, err := analysis.Compare(mk("a", 100), []*schema.Matrix{mk("b", 187)}, analysis.Options{SameWithin: 0.03})
	if err != nil {
		t.Fatal(err)
	}
	notes := strings.Join(New(c, Options{}).summaryTable().Notes, " ")
	if !c.Spread || !strings.Contains(notes, "prefill TTFT ms") || strings.Contains(notes, "decode TTFT ms") {
		t.Errorf("spread %v, notes %q", c.Spread, notes)
	}
}

// TestAnswerRatioPrecision: every ratio of the targets table has the
// one precision (RatioFigs), whatever its inputs printed: 2,199.0 /
// 7,598.9 and 13K / 7,598.9 both get three figures (issue 24: "≥ 0.27×"
// beside "≥ 0.2894×").
func TestAnswerRatioPrecision(t *testing.T) {
	mk := func(id string, total float64, printed string) *schema.Matrix {
		m := &schema.Matrix{Run: schema.Run{RunID: id, Model: id}}
		for _, n := range []int32{1, 8} {
			m.Measurements = append(m.Measurements, schema.Measurement{
				Phase: schema.PhaseDecode, ContextLabel: "8K", Concurrency: schema.I32(n), Status: schema.StatusValid,
				TotalTokS: schema.F64(total * float64(n) / 8), PerRequestTokS: schema.F64(total / 8 * 1.1),
				TTFTMs: schema.F64(100), TBTMs: schema.F64(5),
			})
		}
		m.Measurements[1].Printed = []schema.KV{{Key: "Total tok/s", Value: printed}}
		return m
	}
	ms := []*schema.Matrix{mk("base", 7598.9, "7,598.9"), mk("five", 2199.0, "2,199.0"), mk("two", 13000, "13K")}
	c, err := analysis.Compare(ms[0], ms[1:], analysis.Options{Labels: []string{"base", "five", "two"}})
	if err != nil {
		t.Fatal(err)
	}
	r := New(c, Options{MinUserTokS: 100})
	var answers *Table
	for _, tb := range r.Tables() {
		if tb.Name == "answers" {
			answers = &tb
		}
	}
	if answers == nil || len(answers.Rows) != 1 {
		t.Fatalf("answers table %+v", answers)
	}
	row := answers.Rows[0]
	if got := row[len(row)-2:]; got[0] != "0.289×" || got[1] != "1.71×" {
		t.Errorf("ratios %q, want 0.289× (2,199.0 / 7,598.9) and 1.71× (13K / 7,598.9): three figures, whatever the inputs' (RatioFigs)", got)
	}
}

// TestPerRunBounds: the per-run tables of the targets (min_user_tps,
// slo) mark with ≥ exactly the answers the summary's targets table
// marks as lower bounds, and explain the mark.
func TestPerRunBounds(t *testing.T) {
	r := build(t, pairs[0])
	tables := map[string]Table{}
	for _, tb := range r.Tables() {
		tables[tb.Name] = tb
	}
	kinds := []struct{ table, question string }{{"min_user_tps", "most total tok/s"}, {"slo", "most requests at once"}}
	marked := 0
	for _, kind := range kinds {
		for ai := range r.Runs {
			name := kind.table
			if ai > 0 {
				name += "_" + strconv.Itoa(ai+1)
			}
			tb, ok := tables[name]
			if !ok {
				t.Fatalf("no table %s in %v", name, r.TableNames())
			}
			for _, row := range tb.Rows {
				var pick *Pick
				for _, a := range r.Summary.Answers {
					if strings.HasPrefix(a.Question, kind.question) && a.Context == row[0] {
						pick = &a.Runs[ai]
					}
				}
				if pick == nil {
					t.Fatalf("%s: no answer for context %s", name, row[0])
				}
				if got := strings.HasPrefix(row[2], "≥ "); got != pick.LowerBound {
					t.Errorf("%s %s: %q, the targets table's lower bound is %v (%s)", name, row[0], row[2], pick.LowerBound, pick.Why)
				}
				if pick.LowerBound {
					marked++
					if !slices.Contains(tb.Notes, LowerBoundNote) {
						t.Errorf("%s: ≥ without its note: %q", name, tb.Notes)
					}
				}
			}
		}
	}
	if marked < 10 {
		t.Errorf("%d lower bounds in the seeds' per-run tables, want 10 or more (every RTX answer, H200 at 123K)", marked)
	}
}

// TestNoPhaseNoBound: a serving benchmark compared with a matrix has no
// decode answer at all, which is no lower bound ("none", not "none
// measured (N=1 missing, …)").
func TestNoPhaseNoBound(t *testing.T) {
	ms := []*schema.Matrix{load(t, seedBF16), load(t, pairs[1].base)}
	c, err := analysis.Compare(ms[0], ms[1:], analysis.Options{Labels: Labels(ms)})
	if err != nil {
		t.Fatal(err)
	}
	r := New(c, Options{})
	n := 0
	for _, a := range r.Summary.Best {
		if a.Phase != schema.PhaseDecode {
			continue
		}
		n++
		if p := a.Runs[1]; p.Found || p.LowerBound {
			t.Errorf("%s %s: serving run's pick %+v", a.Question, a.Context, p)
		}
	}
	if n == 0 {
		t.Error("no decode answer")
	}
}

// TestNoContextNoBound: a run that never measured a context (the seed
// without its 16K decode cells) has no answer there ("none"), not a
// lower bound listing every concurrency as missing; at the contexts it
// measured its answers stand.
func TestNoContextNoBound(t *testing.T) {
	base := load(t, seedBF16)
	other := *base
	other.Run.RunID = "no16k"
	other.Measurements = nil
	for _, x := range base.Measurements {
		if !(x.Phase == schema.PhaseDecode && x.ContextLabel == "16K") {
			other.Measurements = append(other.Measurements, x)
		}
	}
	c, err := analysis.Compare(base, []*schema.Matrix{&other}, analysis.Options{Labels: []string{"seed", "no 16K"}})
	if err != nil {
		t.Fatal(err)
	}
	r := New(c, Options{})
	seen := map[string]bool{}
	for _, a := range r.Summary.Best {
		if a.Phase != schema.PhaseDecode {
			continue
		}
		seen[a.Context] = true
		p := a.Runs[1]
		if a.Context == "16K" && (p.Found || p.LowerBound || pickText(p) != "none") {
			t.Errorf("16K: pick %+v (%q), want none", p, pickText(p))
		}
		if a.Context == "8K" && !p.Found {
			t.Errorf("8K: no answer %+v", p)
		}
	}
	if !seen["16K"] || !seen["8K"] {
		t.Errorf("decode answers at %v, want 8K and 16K", seen)
	}
}

// TestBoundRatio: a targets ratio is marked as the bound it is: ≥ when
// only the run's answer is a lower bound, ≤ when only the baseline's is,
// unmarked when neither or both are.
func TestBoundRatio(t *testing.T) {
	v := 2199.0 / 7598.9
	exact, bound := Pick{Found: true, SigFigs: 5}, Pick{Found: true, SigFigs: 5, LowerBound: true}
	for _, c := range []struct {
		base, other Pick
		want        string
	}{
		{exact, bound, "≥ 0.289×"}, {bound, exact, "≤ 0.289×"}, {exact, exact, "0.289×"}, {bound, bound, "0.289×"},
	} {
		if got := boundRatio(&v, c.base, c.other); got != c.want {
			t.Errorf("base bound %v, run bound %v: %q, want %q", c.base.LowerBound, c.other.LowerBound, got, c.want)
		}
	}
	if got := boundRatio(nil, exact, bound); got != "—" {
		t.Errorf("no ratio: %q", got)
	}
}
