package analysis

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"speedmatrix/schema"
)

// NoSpreadNote is printed under delta tables when no cell carries a
// spread in both runs, so a ratio is not read as a significant
// difference. (One run with repeats against a published matrix is such a
// case too: the note does not claim neither has any.)
const NoSpreadNote = "Note: no cell has repeats or per-request samples in both runs (one figure per cell, no spread), " +
	"so ratios are point estimates, not tests of significance."

// WriteDeltas writes the delta rows alone: CSV with a header, a JSON
// array of Row, or the delta tables of the text and Markdown forms.
func WriteDeltas(w io.Writer, c *Comparison, f Format) error {
	switch f {
	case FormatJSON:
		rows := c.Rows()
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(rows)
	case FormatCSV:
		return csvTable(c).write(w, FormatCSV)
	}
	for oi := range c.Others {
		if err := deltaTable(c, oi).write(w, f); err != nil {
			return err
		}
	}
	return nil
}

// WriteReport writes a report: in text and Markdown the runs side by
// side, the delta tables, the geometric means, the scaling tables with
// their fits, context scaling, the frontier and the answers to the
// targets; in CSV and JSON the delta rows only (WriteDeltas).
func WriteReport(w io.Writer, r *Report, f Format) error {
	if f == FormatCSV || f == FormatJSON {
		return WriteDeltas(w, r.Comparison, f)
	}
	for _, t := range reportTables(r) {
		if err := t.write(w, f); err != nil {
			return err
		}
	}
	return nil
}

// Tables returns the tables WriteReport prints in text and Markdown, as
// plain data.
func (r *Report) Tables() []Table {
	var out []Table
	for _, t := range reportTables(r) {
		out = append(out, t.export())
	}
	return out
}

func reportTables(r *Report) []*table {
	c := r.Comparison
	var tables []*table
	tables = append(tables, runsTable(r))
	for oi := range c.Others {
		tables = append(tables, deltaTable(c, oi))
	}
	tables = append(tables, machine(summaryTable(r), geomeansCSV(r)))
	for _, a := range r.Runs {
		// A run without decode cells (a tool's serving benchmark) has no
		// scaling, context or frontier rows: no empty tables for it.
		for _, t := range []*table{machine(scalingTable(a), scalingCSV(a)), machine(contextTable(a), contextCSV(a)), machine(frontierTable(a), frontierCSV(a))} {
			if len(t.rows) > 0 {
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
func machine(t *table, csv [][]string) *table {
	t.csv = csv
	return t
}

// cellN prints a cell's load (Key.Load).
func cellN(k Key) string { return k.Load() }

// Load prints the load of the cell k names: its concurrency ("16"), the
// request rate of a serve row ("4/s", "∞/s"), both ("16 @4/s"), or "—"
// when the source recorded neither (a summary over all of a tool's
// stages), never a rate of 0/s.
func (k Key) Load() string {
	rate := ""
	switch {
	case math.IsInf(k.RequestRate, 1):
		rate = "∞/s"
	case k.RequestRate != 0:
		rate = strconv.FormatFloat(k.RequestRate, 'g', -1, 64) + "/s"
	}
	switch {
	case rate == "":
		return concurrency(k.Concurrency)
	case k.Concurrency == 0:
		return rate
	}
	return concurrency(k.Concurrency) + " @" + rate
}

func concurrency(n int32) string {
	if n == 0 {
		return "—"
	}
	return strconv.Itoa(int(n))
}

func runsTable(r *Report) *table {
	t := &table{title: "Runs", header: []string{"", "label", "run id", "model", "GPU", "engine", "version", "quantization", "bench tool", "cells"}}
	t.right = make([]bool, len(t.header))
	t.right[len(t.right)-1] = true
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

func deltaTable(c *Comparison, oi int) *table {
	t := &table{
		title:  fmt.Sprintf("Deltas: %s against %s (ratio = value / baseline)", c.Labels[oi+1], c.Labels[0]),
		header: []string{"phase", "context", "N", "metric", "baseline", "value", "ratio", "delta", "verdict", "note"},
		right:  []bool{false, false, true, false, true, true, true, true, false, false},
	}
	if c.Spread {
		t.header = append(t.header, "baseline CI", "value CI", "test")
		t.right = append(t.right, true, true, false)
	}
	ds := c.Deltas[oi]
	if !c.shareCell(oi) {
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
		if d.BaseState == StateValue {
			b = FormatValue(d.Baseline, bs)
		}
		if d.ValueState == StateValue {
			v = FormatValue(d.Value, vs)
		}
		if r, ok := d.Ratio(); ok {
			ratio = FormatRatio(r, bs, vs)
			delta = pctSig((r-1)*100, RatioSigFigs(bs, vs))
		}
		row := []string{string(cell.Key.Phase), cell.Key.ContextLabel, cellN(cell.Key), mt.Label(cell.Key.Phase), b, v, ratio, delta, d.Verdict.String(), c.Note(oi, d)}
		if c.Spread {
			if s := c.Stats(oi, i); s != nil {
				row = append(row, s.Baseline.PctRangeString(), s.Value.PctRangeString(), s.Source+" "+s.Test.String())
			} else {
				row = append(row, "", "", "")
			}
		}
		t.add(row...)
		class := d.Verdict.String()
		if _, ok := d.Ratio(); !ok {
			class = "muted"
		} else if class == "same" {
			class = ""
		}
		t.class = append(t.class, class)
	}
	if !c.Spread {
		t.notes = append(t.notes, NoSpreadNote)
	} else {
		t.notes = append(t.notes, fmt.Sprintf("CI: %.0f%% confidence interval of the median; test: Mann–Whitney U (p < %.2g reads as a change; otherwise \"same\").", c.opt.Confidence*100, c.opt.Alpha))
	}
	return t
}

// shareCell reports whether other run oi and the baseline both hold some
// cell (whatever its status).
func (c *Comparison) shareCell(oi int) bool {
	for i := range c.Deltas[oi] {
		if d := &c.Deltas[oi][i]; d.BaseState != StateMissing && d.ValueState != StateMissing {
			return true
		}
	}
	return false
}

func csvTable(c *Comparison) *table {
	rows := c.Rows()
	rates := false
	for _, r := range rows {
		rates = rates || r.RequestRate != nil || r.AllAtOnce
	}
	t := &table{header: []string{"phase", "context_label", "concurrency", "metric", "baseline", "value", "ratio", "delta_pct", "better", "note", "baseline_run_id", "run_id"}}
	if rates {
		t.header = append(t.header, "request_rate")
	}
	if c.Spread {
		t.header = append(t.header, "baseline_lo", "baseline_hi", "value_lo", "value_hi", "p", "n_baseline", "n_value")
	}
	t.right = make([]bool, len(t.header))
	opt := func(p *float64) string {
		if p == nil {
			return ""
		}
		return raw(*p)
	}
	for _, r := range rows {
		n := ""
		if r.Concurrency != nil {
			n = strconv.Itoa(int(*r.Concurrency))
		}
		row := []string{string(r.Phase), r.ContextLabel, n, r.Metric, opt(r.Baseline), opt(r.Value), opt(r.Ratio), opt(r.DeltaPct), r.Better, r.Note, r.BaselineRunID, r.RunID}
		if rates {
			rate := opt(r.RequestRate)
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
			row = append(row, opt(r.BaselineLo), opt(r.BaselineHi), opt(r.ValueLo), opt(r.ValueHi), opt(r.P), nb, nv)
		}
		t.add(row...)
	}
	return t
}

func summaryTable(r *Report) *table {
	c := r.Comparison
	t := &table{
		title:  "Geometric mean of ratios (per phase, then per context)",
		header: []string{"run", "phase", "context", "metric", "geomean", "delta", "verdict", "cells", "without ratio"},
		right:  []bool{false, false, false, false, true, true, false, true, true},
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
		gm := strconv.FormatFloat(g.Ratio, 'f', 4, 64)
		delta := pct((g.Ratio - 1) * 100)
		t.add(c.Labels[g.Other+1], string(g.Phase), ctx, g.Metric.Label(g.Phase), gm, delta, g.Verdict.String(), strconv.Itoa(g.N), strconv.Itoa(g.Skipped))
	}
	if left > 0 && len(t.rows) > 0 {
		t.notes = append(t.notes, fmt.Sprintf("%d rows without a single ratio are left out (the deltas say why each cell has none).", left))
	}
	return t
}
