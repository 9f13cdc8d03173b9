package report

import (
	"speedmatrix/analysis"
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
}

// Report is a comparison with everything computed for its reader.
type Report struct {
	*analysis.Report
	Options Options
	Summary Summary
}

// New analyzes c and composes its summary.
func New(c *analysis.Comparison, opt Options) *Report {
	r := &Report{Report: analysis.NewReport(c, opt.MinUserTokS, opt.SLO), Options: opt}
	r.Summary = summarize(r)
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
