package report

import (
	"speedmatrix/analysis"
	"speedmatrix/prices"
	"speedmatrix/schema"
)

// Options are the questions a report answers beyond the deltas.
type Options struct {
	// MinUserTokS asks for the best throughput at which every request
	// still sees at least this many tok/s (0: not asked).
	MinUserTokS float64
	// SLO asks for the most concurrency within latency limits.
	SLO analysis.SLO
	// AllContexts adds the answer over all contexts together to the
	// per-context answers and draws one frontier over every context.
	AllContexts bool
	// Prices is the price table the runs were priced from (its date and
	// file name head the answers per dollar); Pricing each run's price
	// and GPU count, baseline first (analysis.PriceRuns). With neither,
	// and no energy in any run, the report answers per second only.
	Prices  *prices.Table
	Pricing []analysis.Pricing
}

// Report is a comparison with everything computed for its reader.
type Report struct {
	*analysis.Report
	Options Options
	Summary Summary
	// Costs are each run's figures per dollar, per joule and per GPU
	// (baseline first), CostRatios each other run's against the
	// baseline's; both are computed always and printed when costActive.
	Costs      []analysis.RunCost
	CostRatios []analysis.CostRatio
}

// New analyzes c and composes its summary.
func New(c *analysis.Comparison, opt Options) *Report {
	r := &Report{Report: analysis.NewReport(c, opt.MinUserTokS, opt.SLO), Options: opt}
	r.Summary = summarize(r)
	r.Costs = analysis.Costs(c, opt.Pricing)
	r.CostRatios = analysis.CostRatios(c, r.Report.Summary, r.Costs)
	if r.costActive() {
		r.costOutcome()
		r.costPicks()
	}
	return r
}

// Tolerance returns the relative change within which a verdict reads
// "same" (analysis.Options.SameWithin).
func (r *Report) Tolerance() float64 { return r.Comparison.SameWithin() }

// hasPhase reports whether any run holds a cell of phase p.
func (r *Report) hasPhase(p schema.Phase) bool {
	for _, a := range r.Runs {
		if len(a.Cells.Phase(p)) > 0 {
			return true
		}
	}
	return false
}
