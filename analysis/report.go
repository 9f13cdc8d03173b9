package analysis

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
// the writers print and package plots draws.
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
			a.BestAtUserRate = BestAtUserRate(a.Frontier, minUserTokS)
		}
		if slo.MaxTTFTMs > 0 || slo.MaxTBTMs > 0 {
			a.MeetSLO = MeetSLO(a.Frontier, slo)
		}
		r.Runs = append(r.Runs, a)
	}
	return r
}
