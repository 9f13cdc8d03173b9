package analysis

import (
	"strconv"
	"strings"
)

// The machine forms of the report's tables: what `-format csv -table
// NAME` prints. A machine form is long (one row per cell, not a grid),
// holds each figure unrounded (Raw) with no thousands separators and no
// units, and gives the status of a cell its own column instead of a word
// in a number's place. docs/compare-json.md lists the columns.

// Raw prints a figure for machines: the shortest text that reads back
// as the stored value rounded to 12 significant figures (which drops
// binary noise such as 19.199999999999996), "" for NaN, "+Inf"/"-Inf"
// for infinities.
func Raw(v float64) string { return raw(v) }

// RawPtr is Raw of *p, "" for nil.
func RawPtr(p *float64) string {
	if p == nil {
		return ""
	}
	return raw(*p)
}

func rawInt(n int32) string {
	if n == 0 {
		return ""
	}
	return strconv.Itoa(int(n))
}

func geomeansCSV(r *Report) [][]string {
	out := [][]string{{"run", "phase", "context", "metric", "geomean", "min", "max", "ci_lo", "ci_hi", "verdict", "cells", "without_ratio"}}
	for _, g := range r.Summary {
		ctx := g.ContextLabel
		if ctx == "" {
			ctx = "all"
		}
		gm, lo, hi, clo, chi := "", "", "", "", ""
		if g.N > 0 {
			gm, lo, hi = raw(g.Ratio), raw(g.Min), raw(g.Max)
		}
		if g.HasCI {
			clo, chi = raw(g.CILo), raw(g.CIHi)
		}
		out = append(out, []string{r.Comparison.Labels[g.Other+1], string(g.Phase), ctx, g.Metric.Name, gm, lo, hi, clo, chi,
			g.Verdict.String(), strconv.Itoa(g.N), strconv.Itoa(g.Skipped)})
	}
	return out
}

func scalingCSV(a RunAnalysis) [][]string {
	out := [][]string{{"run", "context", "concurrency", "status", "total_tok_s", "speedup", "efficiency", "per_request_tok_s", "ttft_ms", "tbt_ms", "usl_tok_s"}}
	for _, s := range a.Scaling {
		if !s.Curve() {
			continue
		}
		s.inOrder(func(p ScalePoint) {
			fit := ""
			if s.Fit != nil {
				fit = raw(s.Fit.Predict(float64(p.N)))
			}
			out = append(out, []string{a.Label, s.ContextLabel, rawInt(p.N), StateValue.String(), raw(p.X), raw(p.Speedup), raw(p.Efficiency),
				raw(p.PerRequestTokS), raw(p.TTFTMs), raw(p.TBTMs), fit})
		}, func(e Excluded) {
			out = append(out, []string{a.Label, s.ContextLabel, rawInt(e.N), e.State.String(), "", "", "", "", "", "", ""})
		})
	}
	return out
}

func contextCSV(a RunAnalysis) [][]string {
	out := [][]string{{"run", "phase", "metric", "concurrency", "context", "context_tokens", "status", "value"}}
	for _, s := range a.Context {
		for _, p := range s.Points {
			out = append(out, []string{a.Label, string(s.Phase), s.Metric.Name, rawInt(s.Concurrency), p.ContextLabel,
				strconv.FormatInt(p.ContextTokens, 10), p.State.String(), raw(p.Value)})
		}
	}
	return out
}

func frontierCSV(a RunAnalysis) [][]string {
	out := [][]string{{"run", "context", "concurrency", "per_request_tok_s", "total_tok_s", "ttft_ms", "tbt_ms"}}
	for _, p := range a.Frontier.Pareto {
		out = append(out, []string{a.Label, p.ContextLabel, rawInt(p.Concurrency), raw(p.PerRequestTokS), raw(p.TotalTokS), raw(p.TTFTMs), raw(p.TBTMs)})
	}
	return out
}

// bestCSV is the machine form of the answers of one run to a target:
// found says whether a cell qualifies, lower_bound whether cells beyond
// the answer could not be measured (beyond names them).
func bestCSV(a RunAnalysis, bs []Best) [][]string {
	out := [][]string{{"run", "context", "found", "answer_context", "concurrency", "total_tok_s", "per_request_tok_s", "ttft_ms", "tbt_ms", "lower_bound", "beyond"}}
	for _, b := range bs {
		row := []string{a.Label, b.ContextLabel, strconv.FormatBool(b.Found), "", "", "", "", "", ""}
		if b.Found {
			p := b.Cell
			row = append(row[:3], p.ContextLabel, rawInt(p.Concurrency), raw(p.TotalTokS), raw(p.PerRequestTokS), raw(p.TTFTMs), raw(p.TBTMs))
		}
		out = append(out, append(row, strconv.FormatBool(len(b.Beyond) > 0), strings.Join(b.Beyond, "; ")))
	}
	return out
}
