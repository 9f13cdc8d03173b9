package report

import (
	"strconv"
	"strings"

	"speedmatrix/analysis"
)

// The machine forms (Table.CSV) of the report's tables: what `-format
// csv -table NAME` prints. A machine form is long (one row per cell, not
// a grid), holds each figure unrounded (Raw) with no thousands separators
// and no units, and gives the status of a cell its own column instead of
// a word in a number's place. docs/compare-json.md lists the columns.

func summaryCSV(rs []PhaseRatio) [][]string {
	out := [][]string{{"run", "phase", "metric", "ratio", "min", "max", "ci_lo", "ci_hi", "verdict", "cells_compared", "cells_excluded", "left_out"}}
	for _, p := range rs {
		var why []string
		for _, x := range p.Reasons {
			why = append(why, strconv.Itoa(x.Cells)+" "+x.Why)
		}
		out = append(out, []string{p.Run, string(p.Phase), p.Metric, RawPtr(p.Ratio), RawPtr(p.Min), RawPtr(p.Max),
			RawPtr(p.CILo), RawPtr(p.CIHi), p.Verdict, strconv.Itoa(p.Compared), strconv.Itoa(p.Excluded), strings.Join(why, "; ")})
	}
	return out
}

// answersCSV has one row per answer and run: ratio is the run's total
// tok/s over the baseline's (empty for the baseline and without an
// answer on either side), its requests/s over the baseline's for a
// serving target, whose req_s (and goodput_req_s under the run's
// goodput_slo, where measured) the last columns hold.
func answersCSV(as []Answer) [][]string {
	out := [][]string{{"question", "phase", "context", "run", "found", "cell", "concurrency", "total_tok_s", "per_request_tok_s", "lower_bound", "why", "ratio", "req_s", "goodput_req_s", "goodput_slo"}}
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
					per = Raw(p.PerRequestTokS)
				}
				row = append(row[:5], p.Cell, n, Raw(p.TotalTokS), per)
			}
			ratio := ""
			if i > 0 {
				ratio = RawPtr(a.Ratios[i-1])
			}
			out = append(out, append(row, strconv.FormatBool(p.LowerBound), p.Why, ratio, RawPtr(p.ReqS), RawPtr(p.GoodputReqS), p.GoodputSLO))
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
		rate = Raw(k.RequestRate)
	}
	ratio := ""
	if v, ok := d.Ratio(); ok {
		ratio = Raw(v)
	}
	return []string{k.ContextLabel, n, rate, ratio, StateText(d.BaseState), StateText(d.ValueState), DeltaNote(c, oi, d)}
}

func serveCSV(a analysis.RunAnalysis) [][]string {
	out := [][]string{{"run", "context", "concurrency", "request_rate", "status", "total_tok_s", "per_request_tok_s",
		"ttft_p50_ms", "ttft_p99_ms", "tbt_p50_ms", "tbt_p99_ms", "e2e_p50_ms", "e2e_p99_ms"}}
	r := Raw
	for _, sc := range a.Serve {
		for _, p := range sc.Points {
			n, rate := "", ""
			if p.Key.Concurrency != 0 {
				n = strconv.Itoa(int(p.Key.Concurrency))
			}
			if p.Key.RequestRate != 0 {
				rate = r(p.Key.RequestRate)
			}
			out = append(out, []string{a.Label, sc.ContextLabel, n, rate, StateText(p.State), r(p.TotalTokS), r(p.PerRequestTokS),
				r(p.TTFTMs), r(p.TTFTP99Ms), r(p.TBTMs), r(p.TBTP99Ms), r(p.E2EMs), r(p.E2EP99Ms)})
		}
	}
	return out
}

func geomeansCSV(r *analysis.Report) [][]string {
	out := [][]string{{"run", "phase", "context", "metric", "geomean", "min", "max", "ci_lo", "ci_hi", "verdict", "cells", "without_ratio"}}
	for _, g := range r.Summary {
		ctx := g.ContextLabel
		if ctx == "" {
			ctx = "all"
		}
		gm, lo, hi, clo, chi := "", "", "", "", ""
		if g.N > 0 {
			gm, lo, hi = Raw(g.Ratio), Raw(g.Min), Raw(g.Max)
		}
		if g.HasCI {
			clo, chi = Raw(g.CILo), Raw(g.CIHi)
		}
		out = append(out, []string{r.Comparison.Labels[g.Other+1], string(g.Phase), ctx, g.Metric.Name, gm, lo, hi, clo, chi,
			VerdictText(g.Verdict), strconv.Itoa(g.N), strconv.Itoa(g.Skipped)})
	}
	return out
}

func scalingCSV(a analysis.RunAnalysis) [][]string {
	out := [][]string{{"run", "context", "concurrency", "status", "total_tok_s", "speedup", "efficiency", "per_request_tok_s", "ttft_ms", "tbt_ms", "usl_tok_s"}}
	for _, s := range a.Scaling {
		if !s.Curve() {
			continue
		}
		inOrder(s, func(p analysis.ScalePoint) {
			fit := ""
			if s.Fit != nil {
				fit = Raw(s.Fit.Predict(float64(p.N)))
			}
			out = append(out, []string{a.Label, s.ContextLabel, rawInt(p.N), StateText(analysis.StateValue), Raw(p.X), Raw(p.Speedup), Raw(p.Efficiency),
				Raw(p.PerRequestTokS), Raw(p.TTFTMs), Raw(p.TBTMs), fit})
		}, func(e analysis.Excluded) {
			out = append(out, []string{a.Label, s.ContextLabel, rawInt(e.N), StateText(e.State), "", "", "", "", "", "", ""})
		})
	}
	return out
}

func contextCSV(a analysis.RunAnalysis) [][]string {
	out := [][]string{{"run", "phase", "metric", "concurrency", "context", "context_tokens", "status", "value"}}
	for _, s := range a.Context {
		for _, p := range s.Points {
			out = append(out, []string{a.Label, string(s.Phase), s.Metric.Name, rawInt(s.Concurrency), p.ContextLabel,
				strconv.FormatInt(p.ContextTokens, 10), StateText(p.State), Raw(p.Value)})
		}
	}
	return out
}

func frontierCSV(a analysis.RunAnalysis) [][]string {
	out := [][]string{{"run", "context", "concurrency", "per_request_tok_s", "total_tok_s", "ttft_ms", "tbt_ms"}}
	for _, p := range a.Frontier.Pareto {
		out = append(out, []string{a.Label, p.ContextLabel, rawInt(p.Concurrency), Raw(p.PerRequestTokS), Raw(p.TotalTokS), Raw(p.TTFTMs), Raw(p.TBTMs)})
	}
	return out
}

// bestCSV is the machine form of the answers of one run to a target:
// found says whether a cell qualifies, lower_bound whether cells beyond
// the answer could not be measured (beyond names them).
func bestCSV(a analysis.RunAnalysis, bs []analysis.Best) [][]string {
	out := [][]string{{"run", "context", "found", "answer_context", "concurrency", "total_tok_s", "per_request_tok_s", "ttft_ms", "tbt_ms", "lower_bound", "beyond"}}
	for _, b := range bs {
		row := []string{a.Label, b.ContextLabel, strconv.FormatBool(b.Found), "", "", "", "", "", ""}
		if b.Found {
			p := b.Cell
			row = append(row[:3], p.ContextLabel, rawInt(p.Concurrency), Raw(p.TotalTokS), Raw(p.PerRequestTokS), Raw(p.TTFTMs), Raw(p.TBTMs))
		}
		out = append(out, append(row, strconv.FormatBool(len(b.Beyond) > 0), strings.Join(unmeasuredText(b.Beyond), "; ")))
	}
	return out
}
