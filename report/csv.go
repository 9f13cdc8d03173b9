package report

import (
	"strconv"
	"strings"

	"speedmatrix/analysis"
)

// The machine forms (analysis.Table.CSV) of the tables this package
// composes: what `-format csv -table NAME` prints. Rows are long, figures
// unrounded (analysis.Raw), statuses in their own column;
// docs/compare-json.md lists the columns.

func summaryCSV(rs []PhaseRatio) [][]string {
	out := [][]string{{"run", "phase", "metric", "ratio", "min", "max", "ci_lo", "ci_hi", "verdict", "cells_compared", "cells_excluded", "left_out"}}
	for _, p := range rs {
		var why []string
		for _, x := range p.Reasons {
			why = append(why, strconv.Itoa(x.Cells)+" "+x.Why)
		}
		out = append(out, []string{p.Run, string(p.Phase), p.Metric, analysis.RawPtr(p.Ratio), analysis.RawPtr(p.Min), analysis.RawPtr(p.Max),
			analysis.RawPtr(p.CILo), analysis.RawPtr(p.CIHi), p.Verdict, strconv.Itoa(p.Compared), strconv.Itoa(p.Excluded), strings.Join(why, "; ")})
	}
	return out
}

// answersCSV has one row per answer and run: ratio is the run's total
// tok/s over the baseline's (empty for the baseline and without an
// answer on either side).
func answersCSV(as []Answer) [][]string {
	out := [][]string{{"question", "phase", "context", "run", "found", "cell", "concurrency", "total_tok_s", "per_request_tok_s", "lower_bound", "why", "ratio"}}
	for _, a := range as {
		for i, p := range a.Runs {
			row := []string{a.Question, string(a.Phase), a.Context, p.Run, strconv.FormatBool(p.Found), "", "", "", ""}
			if p.Found {
				n := ""
				if p.Concurrency != 0 {
					n = strconv.Itoa(int(p.Concurrency))
				}
				per := ""
				if p.PerRequestTokS != 0 {
					per = analysis.Raw(p.PerRequestTokS)
				}
				row = append(row[:5], p.Cell, n, analysis.Raw(p.TotalTokS), per)
			}
			ratio := ""
			if i > 0 {
				ratio = analysis.RawPtr(a.Ratios[i-1])
			}
			out = append(out, append(row, strconv.FormatBool(p.LowerBound), p.Why, ratio))
		}
	}
	return out
}

// matrixHeader heads the machine form of a ratio matrix: one row per
// cell, with each side's status and the reason a cell has no ratio.
var matrixHeader = []string{"context", "concurrency", "request_rate", "ratio", "baseline_status", "status", "note"}

func matrixRow(c *analysis.Comparison, oi int, d *analysis.Delta) []string {
	k := c.Cells[d.Cell].Key
	n, rate := "", ""
	if k.Concurrency != 0 {
		n = strconv.Itoa(int(k.Concurrency))
	}
	if k.RequestRate != 0 {
		rate = analysis.Raw(k.RequestRate)
	}
	ratio := ""
	if v, ok := d.Ratio(); ok {
		ratio = analysis.Raw(v)
	}
	return []string{k.ContextLabel, n, rate, ratio, d.BaseState.String(), d.ValueState.String(), c.Note(oi, d)}
}

func serveCSV(a analysis.RunAnalysis) [][]string {
	out := [][]string{{"run", "context", "concurrency", "request_rate", "status", "total_tok_s", "per_request_tok_s",
		"ttft_p50_ms", "ttft_p99_ms", "tbt_p50_ms", "tbt_p99_ms", "e2e_p50_ms", "e2e_p99_ms"}}
	r := analysis.Raw
	for _, sc := range a.Serve {
		for _, p := range sc.Points {
			n, rate := "", ""
			if p.Key.Concurrency != 0 {
				n = strconv.Itoa(int(p.Key.Concurrency))
			}
			if p.Key.RequestRate != 0 {
				rate = r(p.Key.RequestRate)
			}
			out = append(out, []string{a.Label, sc.ContextLabel, n, rate, p.State.String(), r(p.TotalTokS), r(p.PerRequestTokS),
				r(p.TTFTMs), r(p.TTFTP99Ms), r(p.TBTMs), r(p.TBTP99Ms), r(p.E2EMs), r(p.E2EP99Ms)})
		}
	}
	return out
}
