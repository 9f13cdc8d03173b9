package analysis

import (
	"math"

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

// Summarize returns the geometric means of each other run's ratios per
// phase and metric, then per phase, context and metric, in the order of
// the aligned cells.
func (c *Comparison) Summarize() []GeoMean {
	type gk struct {
		phase  schema.Phase
		ctx    string
		metric uint8
	}
	type acc struct {
		logSum     float64
		n, skipped int
	}
	var out []GeoMean
	for oi, ds := range c.Deltas {
		var order []gk
		accs := map[gk]*acc{}
		add := func(k gk, d *Delta) {
			a := accs[k]
			if a == nil {
				a = &acc{}
				accs[k] = a
				order = append(order, k)
			}
			if r, ok := d.Ratio(); ok && r > 0 {
				a.logSum += math.Log(r)
				a.n++
			} else {
				a.skipped++
			}
		}
		for i := range ds {
			d := &ds[i]
			cell := c.Cells[d.Cell]
			add(gk{cell.Key.Phase, "", d.Metric}, d)
		}
		for i := range ds {
			d := &ds[i]
			cell := c.Cells[d.Cell]
			add(gk{cell.Key.Phase, cell.Key.ContextLabel, d.Metric}, d)
		}
		for _, k := range order {
			a := accs[k]
			g := GeoMean{Other: oi, Phase: k.phase, ContextLabel: k.ctx, Metric: c.Metrics[k.metric], N: a.n, Skipped: a.skipped}
			if a.n > 0 {
				g.Ratio = math.Exp(a.logSum / float64(a.n))
				d := Delta{BaseState: StateValue, ValueState: StateValue, Baseline: 1, Value: g.Ratio}
				g.Verdict = verdict(&d, g.Metric, c.opt)
			}
			out = append(out, g)
		}
	}
	return out
}
