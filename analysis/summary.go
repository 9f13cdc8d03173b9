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
		logSum     float64
		n, skipped int32
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
			if r, has := d.Ratio(); has && r > 0 {
				lr, ok = math.Log(r), true
			}
			for _, g := range [2]int32{c.phaseGroup[d.Cell], c.ctxGroup[d.Cell]} {
				a := &accs[int(g)*nm+int(d.Metric)]
				if ok {
					a.logSum += lr
					a.n++
				} else {
					a.skipped++
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
					d := Delta{BaseState: StateValue, ValueState: StateValue, Baseline: 1, Value: gm.Ratio}
					gm.Verdict = verdict(&d, nil, gm.Metric, c.opt)
				}
				out = append(out, gm)
			}
		}
	}
	return out
}
