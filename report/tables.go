package report

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"speedmatrix/analysis"
	"speedmatrix/schema"
)

// Tables returns every table of the report in reading order: the
// summary's, the ratio matrices, the serving curves, then the long
// tables (runs, deltas, geometric means per context, scaling, frontier,
// targets per run). A table without a row to print
// (the summary and deltas of runs that share no cell) is left out.
func (r *Report) Tables() []Table {
	var out []Table
	for _, t := range r.tables() {
		if len(t.Rows) > 0 {
			out = append(out, t)
		}
	}
	return out
}

// tables is Tables with the tables that have no row to print: -table
// still finds those (a CSV of the summary of runs without a common cell
// is its header, not an error).
func (r *Report) tables() []Table {
	var out []Table
	out = append(out, r.summaryTable())
	title := "Targets, every run side by side (ratio = total tok/s / baseline's)"
	if slices.ContainsFunc(r.Summary.Answers, func(a Answer) bool { return a.RatioOf == "req_s" }) {
		title = "Targets, every run side by side (ratio = total tok/s / baseline's; of serving targets, requests/s / baseline's)"
	}
	if t, ok := r.answersTable(r.Summary.Answers, "answers", title); ok {
		out = append(out, t)
	}
	if t, ok := r.answersTable(r.Summary.Best, "best", "Best configuration per context (highest total tok/s)"); ok {
		out = append(out, t)
	}
	if r.costActive() {
		out = append(out, r.costRunsTable())
		if t, ok := r.costAnswersTable(); ok {
			out = append(out, t)
		}
		out = append(out, r.jouleAnswersTable())
	}
	out = append(out, r.matrices()...)
	for _, a := range r.Runs {
		if len(a.Serve) > 0 {
			out = append(out, serveTable(a))
		}
	}
	for _, t := range longTables(r.Report) {
		if r.costActive() && t.Name == "frontier" {
			t = r.costFrontier(t)
		}
		if t.Name == "min_user_tps" && !r.Options.AllContexts {
			// The answer over all contexts mixes cells that answer
			// different questions: only when asked (-all-contexts).
			var rows [][]string
			for _, row := range t.Rows {
				if !strings.HasPrefix(row[0], "all") {
					rows = append(rows, row)
				}
			}
			t.Rows = rows
			if len(t.CSV) > 0 {
				csv := [][]string{t.CSV[0]}
				for _, row := range t.CSV[1:] {
					if row[1] != "all" { // the run, then the context
						csv = append(csv, row)
					}
				}
				t.CSV = csv
			}
		}
		out = append(out, t)
	}
	if r.costActive() {
		out = append(out, r.costTable())
	}
	// Names are unique: a second table of a kind gets _2, _3 ….
	seen := map[string]int{}
	for i := range out {
		seen[out[i].Name]++
		if n := seen[out[i].Name]; n > 1 {
			out[i].Name += "_" + strconv.Itoa(n)
		}
	}
	return out
}

// TableNames lists the names -table accepts for this report.
func (r *Report) TableNames() []string {
	var out []string
	for _, t := range r.Tables() {
		out = append(out, t.Name)
	}
	return out
}

func optRatio(p *float64) string {
	if p == nil {
		return "—"
	}
	return ratioText(*p)
}

func changeText(p *float64, sig int) string {
	if p == nil {
		return "—"
	}
	v := (*p - 1) * 100
	if sig < 3 {
		return fmt.Sprintf("%+.0f%%", v)
	}
	return fmt.Sprintf("%+.1f%%", v)
}

func (r *Report) summaryTable() Table {
	t := Table{
		Name:   "summary",
		Lead:   true,
		Title:  "Summary: geometric mean of ratios per phase (ratio = run / baseline; range = lowest–highest cell)",
		Header: []string{"run", "phase", "metric", "ratio", "change", "range", "CI", "verdict", "cells", "left out"},
		Right:  []bool{false, false, false, true, true, true, true, false, true, false},
	}
	anyCI := false
	var shown []PhaseRatio
	var neither []string
	for _, p := range r.Summary.Ratios {
		if p.Compared == 0 && slices.Contains(r.Summary.Disjoint, p.Other) {
			continue // the outcome says the runs share no cell
		}
		if p.Compared == 0 && !slices.ContainsFunc(p.Reasons, func(x Reason) bool { return x.Why != "missing in both" }) {
			// A metric neither run records (llmperf has no TBT): a row
			// of dashes; the note names it.
			neither = append(neither, string(p.Phase)+" "+p.Label)
			continue
		}
		shown = append(shown, p)
		rng, ci := "—", ""
		if p.Min != nil && p.Compared > 1 {
			rng = optRatio(p.Min) + "–" + optRatio(p.Max)
			if lo := optRatio(p.Min); lo == optRatio(p.Max) {
				rng = lo // every cell alike: "1.080×–1.080×" read as a typo
			}
		}
		if p.CILo != nil {
			ci, anyCI = optRatio(p.CILo)+"–"+optRatio(p.CIHi), true
		}
		var why []string
		for _, x := range p.Reasons {
			why = append(why, fmt.Sprintf("%d %s", x.Cells, x.Why))
		}
		t.Rows = append(t.Rows, []string{p.Run, string(p.Phase), p.Label, optRatio(p.Ratio), changeText(p.Ratio, p.SigFigs), rng, ci, p.Verdict,
			strconv.Itoa(p.Compared), strings.Join(why, "; ")})
		t.Class = append(t.Class, map[string]string{"better": "better", "worse": "worse", "": "muted"}[p.Verdict])
	}
	if !anyCI {
		for i := range t.Rows {
			t.Rows[i] = append(t.Rows[i][:6:6], t.Rows[i][7:]...)
		}
		t.Header = append(t.Header[:6:6], t.Header[7:]...)
		t.Right = append(t.Right[:6:6], t.Right[7:]...)
	}
	if len(neither) > 0 && len(t.Rows) > 0 {
		slices.Sort(neither)
		t.Notes = append(t.Notes, "Not recorded by either run, so not compared: "+strings.Join(slices.Compact(neither), ", ")+".")
	}
	tol := strconv.FormatFloat(r.Tolerance()*100, 'g', 3, 64)
	t.Notes = append(t.Notes, "Verdict: \"same\" within ±"+tol+"% (-tolerance), or where a confidence interval of the median (samples or repeats in both runs) holds 1.")
	if !r.Comparison.Spread {
		t.Notes = append(t.Notes, NoSpreadNote)
	} else {
		// Where other cells have spread, say which rows have none: a
		// prefill from one cold request is a point estimate, however far
		// it moved.
		var point []string
		for _, p := range r.Summary.Ratios {
			if p.Compared > 0 && p.CILo == nil {
				name := string(p.Phase) + " " + p.Label
				if strings.HasPrefix(p.Label, string(p.Phase)) {
					name = p.Label // "prefill tok/s"
				}
				point = append(point, name)
			}
		}
		if len(point) > 0 {
			slices.Sort(point)
			point = slices.Compact(point)
			t.Notes = append(t.Notes, "No interval (one figure per cell, or fewer than six in a cell) for: "+strings.Join(point, ", ")+"; their verdicts are point estimates within the ±"+tol+"% band.")
		}
	}
	t.CSV = summaryCSV(shown)
	return t
}

// pickText prints a run's answer: "13,000 tok/s (8K×128)", "≥ 3,521
// tok/s (8K×32)" for a lower bound, "none".
func pickText(p Pick) string {
	if !p.Found {
		if p.LowerBound {
			return "none measured (" + p.Why + ")"
		}
		if p.Why != "" {
			return "none (" + p.Why + ")" // a serving target no load meets
		}
		return "none"
	}
	s := FormatValue(p.TotalTokS, p.SigFigs) + " tok/s (" + p.Cell + ")"
	if p.ReqS != nil {
		s = reqSText(p)
	}
	if p.LowerBound {
		s = "≥ " + s
	}
	return s
}

func (r *Report) answersTable(as []Answer, name, title string) (Table, bool) {
	if len(as) == 0 {
		return Table{}, false
	}
	c := r.Comparison
	t := Table{Name: name, Lead: true, Title: title, Header: []string{"question", "context"}, Right: []bool{false, false}}
	for _, l := range c.Labels {
		t.Header = append(t.Header, l)
		t.Right = append(t.Right, true)
	}
	for _, l := range c.Labels[1:] {
		t.Header = append(t.Header, "ratio "+l)
		t.Right = append(t.Right, true)
	}
	lower := false
	for _, a := range as {
		row := []string{a.Question, a.Context}
		for _, p := range a.Runs {
			row = append(row, pickText(p))
			lower = lower || p.LowerBound
		}
		// Each ratio by the one rule (RatioFigs), bounds alike.
		for j, v := range a.Ratios {
			row = append(row, boundRatio(v, a.Runs[0], a.Runs[j+1]))
		}
		t.Rows = append(t.Rows, row)
	}
	if lower {
		t.Notes = append(t.Notes, LowerBoundNote, ratioBoundNote)
	}
	t.Notes = append(t.Notes, serveTargetNotes(as)...)
	// Ratio columns without a single ratio (runs that share no context)
	// are dashes only: left out.
	anyRatio := false
	for _, a := range as {
		anyRatio = anyRatio || slices.ContainsFunc(a.Ratios, func(v *float64) bool { return v != nil })
	}
	if !anyRatio {
		n := 2 + len(c.Labels)
		t.Header, t.Right = t.Header[:n], t.Right[:n]
		for i := range t.Rows {
			t.Rows[i] = t.Rows[i][:n]
		}
	}
	kinds := false
	for _, a := range as {
		for _, p := range a.Runs[1:] {
			kinds = kinds || (p.Found && a.Runs[0].Found && p.LoadKind != a.Runs[0].LoadKind)
		}
	}
	if kinds {
		t.Notes = append(t.Notes, "No ratio where the two answers' loads are of different kinds (concurrent streams N=…, a request rate …/s, or not recorded): one closed-loop and one open-loop figure do not say which setup serves better.")
	}
	t.CSV = answersCSV(as)
	return t, true
}

// ratioBoundNote explains the marks of a ratio with a lower bound on
// either side.
const ratioBoundNote = "A ratio is a lower bound (≥) when only the run's answer is one, an upper bound (≤) when only the baseline's is; where both are, it compares what each could measure."

// boundRatio prints the ratio v of the answers other / base by the one
// rule (RatioFigs), marked as the bound it is: a bare ratio beside
// "≥ 2,199.0" read as a measurement.
func boundRatio(v *float64, base, other Pick) string {
	if v == nil {
		return "—"
	}
	s := optRatio(v)
	switch {
	case other.LowerBound && !base.LowerBound:
		return "≥ " + s
	case base.LowerBound && !other.LowerBound:
		return "≤ " + s
	}
	return s
}

// matrices are the compact ratio tables: context × load, one metric and
// one compared run per table, as the heatmap draws them.
func (r *Report) matrices() []Table {
	c := r.Comparison
	var out []Table
	short := ShortLabels(c)
	for _, ph := range []schema.Phase{schema.PhaseDecode, schema.PhaseServe} {
		var ctxs []string
		var loads []analysis.Key // one per column: concurrency and rate
		for _, cell := range c.Cells {
			k := cell.Key
			if k.Phase != ph {
				continue
			}
			if len(ctxs) == 0 || ctxs[len(ctxs)-1] != k.ContextLabel {
				ctxs = append(ctxs, k.ContextLabel)
			}
			lk := analysis.Key{Concurrency: k.Concurrency, RequestRate: k.RequestRate}
			found := false
			for _, l := range loads {
				found = found || l == lk
			}
			if !found {
				loads = append(loads, lk)
			}
		}
		if len(ctxs) == 0 {
			continue
		}
		sortLoads(loads)
		for oi := range c.Others {
			for mi, mt := range c.Metrics {
				t := Table{
					Name:   "matrix_" + string(ph) + "_" + mt.Name,
					Title:  fmt.Sprintf("Ratio matrix, %s %s: %s / %s (rows: context; columns: load)", ph, MetricLabel(mt, ph), c.Labels[oi+1], c.Labels[0]),
					Header: []string{"context"}, Right: []bool{false},
				}
				for _, l := range loads {
					t.Header = append(t.Header, LoadText(l))
					t.Right = append(t.Right, true)
				}
				grid := map[string][]string{}
				for _, ctx := range ctxs {
					grid[ctx] = make([]string, len(loads))
				}
				t.CSV = [][]string{matrixHeader}
				any := false
				for i := range c.Deltas[oi] {
					d := &c.Deltas[oi][i]
					k := c.Cells[d.Cell].Key
					if k.Phase != ph || int(d.Metric) != mi {
						continue
					}
					t.CSV = append(t.CSV, matrixRow(c, oi, d))
					col := 0
					for j, l := range loads {
						if l.Concurrency == k.Concurrency && l.RequestRate == k.RequestRate {
							col = j
						}
					}
					if v, ok := d.Ratio(); ok {
						grid[k.ContextLabel][col] = FormatRatio(v)
						any = true
					} else {
						grid[k.ContextLabel][col] = ShortNote(d, short[0], short[oi+1])
					}
				}
				if !any {
					continue
				}
				for _, ctx := range ctxs {
					row := []string{ctx}
					for _, v := range grid[ctx] {
						if v == "" {
							v = "·"
						}
						row = append(row, strings.ReplaceAll(v, "\n", " "))
					}
					t.Rows = append(t.Rows, row)
				}
				dir := "higher is better"
				if !mt.HigherIsBetter {
					dir = "lower is better"
				}
				t.Notes = []string{"Ratio " + dir + "; a word says why a cell has no ratio; · no cell in either run."}
				out = append(out, t)
			}
		}
	}
	return out
}

func sortLoads(ls []analysis.Key) {
	less := func(a, b analysis.Key) bool {
		if a.Concurrency != b.Concurrency {
			return a.Concurrency < b.Concurrency
		}
		return a.RequestRate < b.RequestRate
	}
	for i := 1; i < len(ls); i++ {
		for j := i; j > 0 && less(ls[j], ls[j-1]); j-- {
			ls[j], ls[j-1] = ls[j-1], ls[j]
		}
	}
}
