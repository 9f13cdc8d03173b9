package report

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"

	"speedmatrix/analysis"
	"speedmatrix/schema"
)

// The comparison's long tables: the runs, the deltas cell by cell and the
// geometric means per context, and the tables of each run on its own
// (runtables.go) after them.

// NoSpreadNote is printed under delta tables when no cell carries a
// spread in both runs, so a ratio is not read as a significant
// difference. (One run with repeats against a published matrix is such a
// case too: the note does not claim neither has any.)
const NoSpreadNote = "Note: no cell has repeats or per-request samples in both runs (one figure per cell, no spread), " +
	"so ratios are point estimates, not tests of significance."

// WriteDeltas writes the delta rows alone: CSV with a header, a JSON
// array of DeltaRow, or the delta tables of the text and Markdown
// forms.
func WriteDeltas(w io.Writer, c *analysis.Comparison, f Format) error {
	switch f {
	case FormatJSON:
		rows := DeltaRows(c)
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(rows)
	case FormatCSV:
		return deltasCSV(c).Write(w, FormatCSV)
	}
	for oi := range c.Others {
		if err := deltaTable(c, oi).Write(w, f); err != nil {
			return err
		}
	}
	return nil
}

// longTables are the long tables of a comparison in reading order: the
// runs, the deltas per compared run, the geometric means per context,
// then per run its scaling, context scaling, frontier and the answers
// to the targets.
func longTables(r *analysis.Report) []Table {
	c := r.Comparison
	var tables []Table
	tables = append(tables, runsLongTable(r))
	for oi := range c.Others {
		tables = append(tables, deltaTable(c, oi))
	}
	tables = append(tables, machine(geomeansTable(r), geomeansCSV(r)))
	for _, a := range r.Runs {
		// A run without decode cells (a tool's serving benchmark) has no
		// scaling, context or frontier rows: no empty tables for it.
		for _, t := range []Table{machine(scalingTable(a), scalingCSV(a)), machine(contextTable(a), contextCSV(a)), machine(frontierTable(a), frontierCSV(a))} {
			if len(t.Rows) > 0 {
				tables = append(tables, t)
			}
		}
		if r.MinUserTokS > 0 {
			tables = append(tables, machine(bestTable(a, r.MinUserTokS), bestCSV(a, a.BestAtUserRate)))
		}
		if a.MeetSLO != nil {
			tables = append(tables, machine(sloTable(a, r.SLO), bestCSV(a, a.MeetSLO)))
		}
	}
	return tables
}

// machine sets the machine form of t.
func machine(t Table, csv [][]string) Table {
	t.CSV = csv
	return t
}

// runsLongTable lists the runs one per row, as text prints them (the
// page lays them side by side instead: runsTable).
func runsLongTable(r *analysis.Report) Table {
	t := Table{Name: "runs", Title: "Runs", Header: []string{"", "label", "run id", "model", "GPU", "engine", "version", "quantization", "bench tool", "cells"}}
	t.Right = make([]bool, len(t.Header))
	t.Right[len(t.Right)-1] = true
	for i, a := range r.Runs {
		role := "baseline"
		if i > 0 {
			role = "run " + strconv.Itoa(i)
		}
		run := &a.Cells.Run.Run
		t.add(role, a.Label, run.RunID, run.Model, run.GPU, run.Engine, run.EngineVersion, run.Quantization, benchTool(run), strconv.Itoa(len(a.Cells.List)))
	}
	return t
}

func benchTool(r *schema.Run) string {
	return strings.TrimSpace(r.BenchTool + " " + r.BenchVersion)
}

// deltaTable lists other run oi's deltas cell by cell.
func deltaTable(c *analysis.Comparison, oi int) Table {
	t := Table{
		Name:   "deltas",
		Title:  fmt.Sprintf("Deltas: %s against %s (ratio = value / baseline)", c.Labels[oi+1], c.Labels[0]),
		Header: []string{"phase", "context", "N", "metric", "baseline", "value", "ratio", "delta", "verdict", "note"},
		Right:  []bool{false, false, true, false, true, true, true, true, false, false},
	}
	if c.Spread {
		t.Header = append(t.Header, "baseline CI", "value CI", "test")
		t.Right = append(t.Right, true, true, false)
	}
	ds := c.Deltas[oi]
	if disjoint(c, oi) {
		// Note: every row would be one run's figure beside a dash; the
		// serving, scaling and frontier tables show each run on its own
		// and the machine forms (CSV, JSON) keep the rows.
		return t
	}
	for i := range ds {
		d := &ds[i]
		cell := c.Cells[d.Cell]
		mt := c.Metrics[d.Metric]
		b, v, ratio, delta := "—", "—", "—", "—"
		bs, vs := c.Precision(oi, d)
		if d.BaseState == analysis.StateValue {
			b = FormatValue(d.Baseline, bs)
		}
		if d.ValueState == analysis.StateValue {
			v = FormatValue(d.Value, vs)
		}
		if r, ok := d.Ratio(); ok {
			ratio = FormatRatio(r)
			delta = pctSig((r-1)*100, analysis.RatioSigFigs(bs, vs))
		}
		row := []string{string(cell.Key.Phase), cell.Key.ContextLabel, LoadText(cell.Key), MetricLabel(mt, cell.Key.Phase), b, v, ratio, delta, VerdictText(d.Verdict), DeltaNote(c, oi, d)}
		if c.Spread {
			if s := c.Stats(oi, i); s != nil {
				row = append(row, s.Baseline.PctRangeString(), s.Value.PctRangeString(), spreadSourceText(s.Source)+" "+s.Test.String())
			} else {
				row = append(row, "", "", "")
			}
		}
		t.add(row...)
		class := VerdictText(d.Verdict)
		if _, ok := d.Ratio(); !ok {
			class = "muted"
		} else if class == "same" {
			class = ""
		}
		t.Class = append(t.Class, class)
	}
	if !c.Spread {
		t.Notes = append(t.Notes, NoSpreadNote)
	} else {
		o := c.Options()
		t.Notes = append(t.Notes, fmt.Sprintf("CI: %.0f%% confidence interval of the median; test: Mann–Whitney U (p < %.2g reads as a change; otherwise \"same\").", o.Confidence*100, o.Alpha))
	}
	return t
}

// deltasCSV is the machine form of the deltas: every row of every
// compared run, figures unrounded.
func deltasCSV(c *analysis.Comparison) Table {
	rows := DeltaRows(c)
	rates := false
	for _, r := range rows {
		rates = rates || r.RequestRate != nil || r.AllAtOnce
	}
	t := Table{Header: []string{"phase", "context_label", "concurrency", "metric", "baseline", "value", "ratio", "delta_pct", "better", "note", "baseline_run_id", "run_id"}}
	if rates {
		t.Header = append(t.Header, "request_rate")
	}
	if c.Spread {
		t.Header = append(t.Header, "baseline_lo", "baseline_hi", "value_lo", "value_hi", "p", "n_baseline", "n_value")
	}
	t.Right = make([]bool, len(t.Header))
	for _, r := range rows {
		n := ""
		if r.Concurrency != nil {
			n = strconv.Itoa(int(*r.Concurrency))
		}
		row := []string{string(r.Phase), r.ContextLabel, n, r.Metric, RawPtr(r.Baseline), RawPtr(r.Value), RawPtr(r.Ratio), RawPtr(r.DeltaPct), r.Better, r.Note, r.BaselineRunID, r.RunID}
		if rates {
			rate := RawPtr(r.RequestRate)
			if r.AllAtOnce {
				rate = "+Inf"
			}
			row = append(row, rate)
		}
		if c.Spread {
			nb, nv := "", ""
			if r.P != nil {
				nb, nv = strconv.Itoa(r.NBaseline), strconv.Itoa(r.NValue)
			}
			row = append(row, RawPtr(r.BaselineLo), RawPtr(r.BaselineHi), RawPtr(r.ValueLo), RawPtr(r.ValueHi), RawPtr(r.P), nb, nv)
		}
		t.add(row...)
	}
	return t
}

// geomeansTable is the geometric means per phase and per context.
func geomeansTable(r *analysis.Report) Table {
	c := r.Comparison
	t := Table{
		Name:   "geomeans",
		Title:  "Geometric mean of ratios (per phase, then per context)",
		Header: []string{"run", "phase", "context", "metric", "geomean", "delta", "verdict", "cells", "without ratio"},
		Right:  []bool{false, false, false, false, true, true, false, true, true},
	}
	left := 0
	for _, g := range r.Summary {
		ctx := g.ContextLabel
		if ctx == "" {
			ctx = "all"
		}
		if g.N == 0 {
			left++ // a row of dashes; the machine form (CSV) keeps it
			continue
		}
		gm := FormatRatio(g.Ratio)
		delta := pct((g.Ratio - 1) * 100)
		t.add(c.Labels[g.Other+1], string(g.Phase), ctx, MetricLabel(g.Metric, g.Phase), gm, delta, VerdictText(g.Verdict), strconv.Itoa(g.N), strconv.Itoa(g.Skipped))
	}
	if left > 0 && len(t.Rows) > 0 {
		t.Notes = append(t.Notes, fmt.Sprintf("%d rows without a single ratio are left out (the deltas say why each cell has none).", left))
	}
	return t
}
