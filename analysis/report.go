package analysis

import (
	"slices"

	"speedmatrix/schema"
)

// RunAnalysis is everything computed about one run of a comparison on its
// own: its scaling curves and fits, context scaling, frontier and the
// answers to the user's targets.
type RunAnalysis struct {
	Label    string
	Cells    *Cells
	Scaling  []Scaling
	Context  []ContextSeries
	Frontier Frontier
	// Serve holds the serving curves of the run's serve cells (other
	// tools' serving benchmarks), nil when it has none.
	Serve []ServeCurve
	// BestAtUserRate is set when Report.MinUserTokS > 0; MeetSLO when
	// Report.SLO has a limit.
	BestAtUserRate []Best
	MeetSLO        []Best
}

// Report is a comparison with its summaries and per-run analyses: what
// package report lays out and prints.
type Report struct {
	Comparison *Comparison
	Summary    []GeoMean
	Runs       []RunAnalysis // baseline first
	// MinUserTokS and SLO are the targets asked for (zero: not asked).
	MinUserTokS float64
	SLO         SLO
}

// NewReport summarizes c and analyzes each of its runs.
func NewReport(c *Comparison, minUserTokS float64, slo SLO) *Report {
	r := &Report{Comparison: c, Summary: c.Summarize(), MinUserTokS: minUserTokS, SLO: slo}
	for i, cs := range append([]*Cells{c.Baseline}, c.Others...) {
		a := RunAnalysis{Label: c.Labels[i], Cells: cs, Scaling: Scale(cs), Context: ContextScaling(cs), Frontier: BuildFrontier(cs), Serve: Serve(cs)}
		if minUserTokS > 0 {
			a.BestAtUserRate = c.bound(cs, BestAtUserRate(a.Frontier, minUserTokS))
		}
		if slo.MaxTTFTMs > 0 || slo.MaxTBTMs > 0 {
			a.MeetSLO = c.bound(cs, MeetSLO(a.Frontier, slo))
		}
		r.Runs = append(r.Runs, a)
	}
	return r
}

// Unmeasured is a cell a run could not measure: one at a higher
// concurrency than an answer, which makes that answer a lower bound.
type Unmeasured struct {
	Concurrency int32
	// Status is what the run holds there (looped, over capacity,
	// failed), empty when the run lacks an aligned cell another run has.
	Status schema.Status
}

// Beyond lists the cells of run cs (one of c's runs) in phase and
// context ctx at a higher concurrency than n that the run could not
// measure: looped, over capacity or failed, or aligned cells it lacks
// (Status empty). An answer at n is then a lower bound. A run without a
// cell of the phase at that context (a serving benchmark asked about
// decode, a matrix that never measured 8K) has no answer there, not a
// lower bound: nil.
func (c *Comparison) Beyond(cs *Cells, phase schema.Phase, ctx string, n int32) []Unmeasured {
	if !slices.ContainsFunc(cs.List, func(x Cell) bool { return x.Key.Phase == phase && x.Key.ContextLabel == ctx }) {
		return nil
	}
	var out []Unmeasured
	for _, cell := range c.Cells {
		k := cell.Key
		if k.Phase != phase || k.ContextLabel != ctx || k.Concurrency <= n {
			continue
		}
		own := cs.Get(k)
		switch {
		case own == nil:
			out = append(out, Unmeasured{Concurrency: k.Concurrency})
		case own.Status != schema.StatusValid:
			out = append(out, Unmeasured{Concurrency: k.Concurrency, Status: own.Status})
		}
	}
	return out
}

// bound sets Beyond of the decode answers bs of run cs (not of the
// answer over all contexts, which mixes contexts).
func (c *Comparison) bound(cs *Cells, bs []Best) []Best {
	for i := range bs {
		b := &bs[i]
		if b.ContextLabel == "all" {
			continue
		}
		n := int32(0)
		if b.Found {
			n = b.Cell.Concurrency
		}
		b.Beyond = c.Beyond(cs, schema.PhaseDecode, b.ContextLabel, n)
	}
	return bs
}
