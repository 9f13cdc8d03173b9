package analysis

import (
	"math"
	"slices"

	"speedmatrix/schema"
)

// GeoMean is the geometric mean of the ratios of one metric over a group
// of cells (one phase, or one context of a phase), as benchstat
// summarizes a set of benchmarks: the mean ratio that treats a halving
// and a doubling symmetrically.
type GeoMean struct {
	// Other indexes Comparison.Others.
	Other int
	Phase schema.Phase
	// ContextLabel is empty for the summary over the whole phase.
	ContextLabel string
	Metric       Metric
	Ratio        float64
	// N counts the ratios averaged; Skipped the cells of the group
	// without a ratio (looped, over capacity, missing).
	N, Skipped int
	// Min and Max are the smallest and largest ratio averaged (the
	// spread over cells).
	Min, Max float64
	// CILo and CIHi bound the geometric mean when every averaged cell
	// carries a confidence interval (samples or repeats on both sides):
	// the geometric means of the cells' ratio bounds. HasCI says so.
	CILo, CIHi float64
	HasCI      bool
	Verdict    Verdict
}

type groupKey struct {
	phase schema.Phase
	ctx   string
}

// groupCells numbers the summary groups of the aligned cells once, so
// Summarize adds into slices instead of hashing strings for every delta
// of every run: the phases first, then each phase's contexts, in cell
// order.
func (c *Comparison) groupCells() {
	idx := map[groupKey]int32{}
	c.groupKeys = nil
	get := func(k groupKey) int32 {
		g, ok := idx[k]
		if !ok {
			g = int32(len(c.groupKeys))
			idx[k] = g
			c.groupKeys = append(c.groupKeys, k)
		}
		return g
	}
	c.phaseGroup = make([]int32, len(c.Cells))
	c.ctxGroup = make([]int32, len(c.Cells))
	for i, cell := range c.Cells {
		c.phaseGroup[i] = get(groupKey{cell.Key.Phase, ""})
	}
	for i, cell := range c.Cells {
		c.ctxGroup[i] = get(groupKey{cell.Key.Phase, cell.Key.ContextLabel})
	}
}

// Summarize returns the geometric means of each other run's ratios per
// phase and metric, then per phase, context and metric, in the order of
// the aligned cells.
func (c *Comparison) Summarize() []GeoMean {
	type acc struct {
		logSum, min, max float64
		loSum, hiSum     float64
		n, skipped, ci   int32
	}
	nm := len(c.Metrics)
	accs := make([]acc, len(c.groupKeys)*nm)
	var out []GeoMean
	for oi, ds := range c.Deltas {
		if oi == 1 {
			// Runs of an archive are shaped alike: size the rest on the first.
			out = slices.Grow(out, len(out)*(len(c.Deltas)-1))
		}
		clear(accs)
		for i := range ds {
			d := &ds[i]
			lr, ok := 0.0, false
			r, has := d.Ratio()
			if has && r > 0 {
				lr, ok = math.Log(r), true
			}
			lo, hi, hasCI := 0.0, 0.0, false
			if ok {
				lo, hi, hasCI = c.ratioCI(oi, i)
			}
			for _, g := range [2]int32{c.phaseGroup[d.Cell], c.ctxGroup[d.Cell]} {
				a := &accs[int(g)*nm+int(d.Metric)]
				if !ok {
					a.skipped++
					continue
				}
				if a.n == 0 || r < a.min {
					a.min = r
				}
				if a.n == 0 || r > a.max {
					a.max = r
				}
				a.logSum += lr
				a.n++
				if hasCI {
					a.loSum += math.Log(lo)
					a.hiSum += math.Log(hi)
					a.ci++
				}
			}
		}
		for g, k := range c.groupKeys {
			for mi := range nm {
				a := accs[g*nm+mi]
				if a.n == 0 && a.skipped == 0 {
					continue
				}
				gm := GeoMean{Other: oi, Phase: k.phase, ContextLabel: k.ctx, Metric: c.Metrics[mi], N: int(a.n), Skipped: int(a.skipped)}
				if a.n > 0 {
					gm.Ratio = math.Exp(a.logSum / float64(a.n))
					gm.Min, gm.Max = a.min, a.max
					d := Delta{BaseState: StateValue, ValueState: StateValue, Baseline: 1, Value: gm.Ratio}
					gm.Verdict = verdict(&d, nil, gm.Metric, c.opt)
					if a.ci == a.n {
						gm.HasCI = true
						gm.CILo, gm.CIHi = math.Exp(a.loSum/float64(a.n)), math.Exp(a.hiSum/float64(a.n))
						if gm.CILo <= 1 && 1 <= gm.CIHi {
							gm.Verdict = VerdictSame // the interval holds "no change"
						}
					}
				}
				out = append(out, gm)
			}
		}
	}
	return out
}

// ratioCI bounds the ratio of delta i of other run oi by its sides'
// confidence intervals: [value lo / baseline hi, value hi / baseline lo].
// It reports false when the delta has no statistics or a bound is not
// finite and positive (fewer than six figures give no 95% interval).
//
// Note: a conservative interval (the extremes of both sides), not the
// interval of the ratio itself; it is what benchstat's per-side intervals
// allow without resampling.
func (c *Comparison) ratioCI(oi, i int) (lo, hi float64, ok bool) {
	s := c.Stats(oi, i)
	if s == nil || s.Baseline.Lo <= 0 || s.Value.Lo <= 0 || math.IsInf(s.Baseline.Hi, 0) || math.IsInf(s.Value.Hi, 0) {
		return 0, 0, false
	}
	return s.Value.Lo / s.Baseline.Hi, s.Value.Hi / s.Baseline.Lo, true
}
