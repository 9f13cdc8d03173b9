package report

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"speedmatrix/analysis"
	"speedmatrix/schema"
)

// phaseNoun names a phase's throughput in a sentence.
var phaseNoun = map[schema.Phase]string{
	schema.PhaseDecode:  "decode throughput",
	schema.PhaseServe:   "serving throughput",
	schema.PhasePrefill: "prompt (prefill) speed",
}

func (p PhaseRatio) find(rs []PhaseRatio, metric string) *PhaseRatio {
	for i := range rs {
		if rs[i].Other == p.Other && rs[i].Phase == p.Phase && rs[i].Metric == metric {
			return &rs[i]
		}
	}
	return nil
}

// outcome states, per compared run, the answer in one or two sentences:
// the throughput ratio of the main phase with its spread and verdict,
// where it changes (by load and by context), the latency ratios beside
// it, and what was left out.
func outcome(r *Report, s *Summary) []string {
	c := r.Comparison
	var out []string
	tol := strconv.FormatFloat(r.Tolerance()*100, 'g', 3, 64) + "%"
	for oi := range c.Others {
		base, other := c.Labels[0], c.Labels[oi+1]
		if sent := failedOutcome(base, other, c.Baseline, c.Others[oi]); sent != "" {
			out = append(out, sent)
			continue
		}
		if slices.Contains(s.Disjoint, oi) {
			out = append(out, fmt.Sprintf("%s and %s have no cell in common (phase, context and load differ), so nothing is compared cell by cell; the tables and charts show each run on its own.", other, base))
			continue
		}
		var main *PhaseRatio
		for _, ph := range []schema.Phase{schema.PhaseDecode, schema.PhaseServe, schema.PhasePrefill} {
			for i := range s.Ratios {
				p := &s.Ratios[i]
				if p.Other == oi && p.Phase == ph && p.Metric == analysis.TotalTokS.Name && p.Ratio != nil {
					main = p
					break
				}
			}
			if main != nil {
				break
			}
		}
		if main == nil {
			out = append(out, fmt.Sprintf("%s and %s share cells, but none has a throughput figure in both runs, so no ratio could be formed.", other, base))
			continue
		}
		verdict := map[string]string{"better": "faster", "worse": "slower"}[main.Verdict]
		if main.Verdict == "same" {
			verdict = "the same within ±" + tol
			if main.CILo != nil {
				verdict = "not distinguishable (the confidence interval holds 1)"
			}
		}
		spread := ""
		if lo, hi := ratioText(*main.Min), ratioText(*main.Max); main.Compared > 1 && lo != hi {
			spread = fmt.Sprintf("; from %s to %s", lo, hi)
		} else if main.Compared > 1 {
			spread = "; " + lo + " in every cell"
		}
		if main.CILo != nil {
			spread += fmt.Sprintf("; CI %s–%s", ratioText(*main.CILo), ratioText(*main.CIHi))
		}
		cells := "cells"
		if main.Compared == 1 {
			cells = "cell"
		}
		sent := fmt.Sprintf("%s delivers %s the %s of %s (geometric mean over %d %s%s): %s.",
			other, ratioText(*main.Ratio), phaseNoun[main.Phase], base, main.Compared, cells, spread, verdict)
		var lat []string
		for _, m := range []analysis.Metric{analysis.PerRequestTokS, analysis.TTFTMs, analysis.TBTMs} {
			if p := main.find(s.Ratios, m.Name); p != nil && p.Ratio != nil {
				name := strings.TrimSuffix(MetricLabel(m, main.Phase), " ms")
				if m.Name == analysis.PerRequestTokS.Name {
					name = "speed"
				}
				lat = append(lat, fmt.Sprintf("%s %s (%s)", name, ratioText(*p.Ratio), p.Verdict))
			}
		}
		second := ""
		if w := where(c, oi, main.Phase, r.Tolerance()); w != "" {
			second = w + " "
		}
		if len(lat) > 0 {
			second += "Per request: " + strings.Join(lat, ", ") + "."
		}
		if main.Excluded > 0 {
			var why []string
			for _, x := range main.Reasons {
				why = append(why, fmt.Sprintf("%d %s", x.Cells, x.Why))
			}
			are := "cells have no ratio and are"
			if main.Excluded == 1 {
				are = "cell has no ratio and is"
			}
			second += fmt.Sprintf(" %d %s %s left out (%s).", main.Excluded, main.Phase, are, strings.Join(why, "; "))
		}
		out = append(out, strings.TrimSpace(sent+" "+second))
	}
	return out
}

// failedOutcome says so when either run has no valid cell (every request
// of an AIPerf or vLLM run failed): that is the answer, not that the runs
// share no cell or no figure. It returns "" when both have a valid cell.
func failedOutcome(base, other string, b, o *analysis.Cells) string {
	bf, of := failedCells(b), failedCells(o)
	switch {
	case bf != "" && of != "":
		return fmt.Sprintf("Neither run has a valid cell: every cell of %s failed (%s) and every cell of %s failed (%s), so there is nothing to compare.", other, of, base, bf)
	case of != "":
		return fmt.Sprintf("Every cell of %s failed (%s), so nothing of it is compared with %s; the tables show %s on its own.", other, of, base, base)
	case bf != "":
		return fmt.Sprintf("Every cell of the baseline %s failed (%s), so %s is compared with nothing; the tables show %s on its own.", base, bf, other, other)
	}
	return ""
}

// failedCells counts a run's cells by status when none is valid ("1
// error", "2 looped, 1 over capacity"), else returns "".
func failedCells(c *analysis.Cells) string {
	if c == nil || len(c.List) == 0 {
		return ""
	}
	var order []schema.Status
	n := map[schema.Status]int{}
	for i := range c.List {
		st := c.List[i].Status
		if st == schema.StatusValid {
			return ""
		}
		if n[st] == 0 {
			order = append(order, st)
		}
		n[st]++
	}
	parts := make([]string, len(order))
	for i, st := range order {
		parts[i] = fmt.Sprintf("%d %s", n[st], strings.ReplaceAll(string(st), "_", " "))
	}
	return strings.Join(parts, ", ")
}
