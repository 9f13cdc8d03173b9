package report

// The tables of one run's analysis in a report: scaling by concurrency,
// by context, the frontier, the best configurations, the SLO answers and
// the serving curves.
// The comparison's own long tables (runs, deltas, geometric means) are in
// deltas.go; their machine forms in csv.go.

import (
	"fmt"
	"math"
	"strings"

	"speedmatrix/analysis"
	"speedmatrix/schema"
)

// scalingTable is a run's throughput by concurrency at each context,
// with speedup, efficiency and the USL fit under it.
func scalingTable(a analysis.RunAnalysis) Table {
	t := Table{
		Name:   "scaling",
		Title:  fmt.Sprintf("Scaling: %s (X = total tok/s; speedup X(N)/X(1); efficiency X(N)/(N·X(1)))", a.Label),
		Header: []string{"context", "N", "X tok/s", "speedup", "efficiency", "per-request tok/s", "TTFT ms", "TBT ms", "USL X(N)"},
		Right:  []bool{false, true, true, true, true, true, true, true, true},
	}
	for _, s := range a.Scaling {
		if !s.Curve() {
			continue
		}
		inOrder(s, func(p analysis.ScalePoint) {
			fit := "—"
			if s.Fit != nil {
				fit = num(s.Fit.Predict(float64(p.N)))
			}
			t.add(s.ContextLabel, concurrency(p.N), FormatValue(p.X, p.XSigFigs), group(p.Speedup, 2), group(p.Efficiency*100, 0)+pctSign(p.Efficiency), num(p.PerRequestTokS), num(p.TTFTMs), num(p.TBTMs), fit)
		}, func(e analysis.Excluded) {
			t.add(s.ContextLabel, concurrency(e.N), StateText(e.State), "", "", "", "", "", "")
		})
	}
	for _, s := range a.Scaling {
		if s.Curve() {
			t.Notes = append(t.Notes, "USL "+s.ContextLabel+": "+describeFit(s))
		}
	}
	// A serving sweep from 16 streams up has no X(1) and often no fit:
	// columns of dashes (the USL column first, so the indexes hold).
	t.dropDashColumns(8)
	if t.dropDashColumns(3, 4) {
		t.Notes = append(t.Notes, "No speedup or efficiency: they need a valid cell at N=1.")
	}
	return t
}

// inOrder calls point and excluded for the points and the excluded cells
// of s, merged in concurrency order.
func inOrder(s analysis.Scaling, point func(analysis.ScalePoint), excluded func(analysis.Excluded)) {
	pi, ei := 0, 0
	for pi < len(s.Points) || ei < len(s.Excluded) {
		if ei < len(s.Excluded) && (pi == len(s.Points) || s.Excluded[ei].N < s.Points[pi].N) {
			excluded(s.Excluded[ei])
			ei++
			continue
		}
		point(s.Points[pi])
		pi++
	}
}

// describeFit prints a curve's USL fit in one line: λ, σ, κ, the peak,
// R² and the points, and why a poor fit should not be trusted.
func describeFit(s analysis.Scaling) string {
	if s.Fit == nil {
		return "no fit (" + errText(s.FitErr) + ")"
	}
	f := s.Fit
	peak := "throughput never falls (no peak)"
	switch {
	case math.IsNaN(f.PeakN):
		peak = "no peak (σ ≥ 1)"
	case !math.IsInf(f.PeakN, 1):
		peak = fmt.Sprintf("N* = %s, X(N*) = %s tok/s", group(f.PeakN, 0), num(f.PeakX))
	}
	out := fmt.Sprintf("λ = %s tok/s, σ = %.4f, κ = %.3g, %s, R² = %.3f, %d points", num(f.Lambda), f.Sigma, f.Kappa, peak, f.R2, f.Points)
	if f.Poor {
		out += " — poor fit: " + poorFitReason(f)
	}
	return out
}

// contextTable is a run's throughput by context at each concurrency.
func contextTable(a analysis.RunAnalysis) Table {
	t := Table{Name: "context", Title: fmt.Sprintf("Context scaling: %s", a.Label), Header: []string{"context"}, Right: []bool{false}}
	var ctxs []string
	seen := map[string]int{}
	for _, s := range a.Context {
		h := MetricLabel(s.Metric, s.Phase)
		if s.Phase != schema.PhasePrefill {
			h = fmt.Sprintf("%s N=%d", MetricLabel(s.Metric, s.Phase), s.Concurrency)
		}
		if s.Phase == schema.PhasePrefill {
			h = "prefill " + strings.TrimPrefix(h, "prefill ")
		}
		t.Header = append(t.Header, h)
		t.Right = append(t.Right, true)
		for _, p := range s.Points {
			if _, ok := seen[p.ContextLabel]; !ok {
				seen[p.ContextLabel] = len(ctxs)
				ctxs = append(ctxs, p.ContextLabel)
			}
		}
	}
	// Contexts in token order: prefill and decode contexts interleave.
	tok := map[string]int64{}
	for _, s := range a.Context {
		for _, p := range s.Points {
			tok[p.ContextLabel] = p.ContextTokens
		}
	}
	sortByTokens(ctxs, tok)
	grid := make([][]string, len(ctxs))
	idx := map[string]int{}
	for i, c := range ctxs {
		idx[c] = i
		grid[i] = make([]string, len(a.Context)+1)
		grid[i][0] = c
		for j := 1; j < len(grid[i]); j++ {
			grid[i][j] = ""
		}
	}
	for j, s := range a.Context {
		for _, p := range s.Points {
			v := num(p.Value)
			if p.State != analysis.StateValue {
				v = StateText(p.State)
			}
			grid[idx[p.ContextLabel]][j+1] = v
		}
	}
	t.Rows = grid
	return t
}

func sortByTokens(labels []string, tok map[string]int64) {
	for i := 1; i < len(labels); i++ {
		for j := i; j > 0 && tok[labels[j]] < tok[labels[j-1]]; j-- {
			labels[j], labels[j-1] = labels[j-1], labels[j]
		}
	}
}

func frontierTable(a analysis.RunAnalysis) Table {
	t := Table{
		Name:   "frontier",
		Title:  fmt.Sprintf("Throughput–interactivity frontier: %s (cells no other cell beats on both)", a.Label),
		Header: []string{"context", "N", "per-request tok/s", "total tok/s", "TTFT ms", "TBT ms"},
		Right:  []bool{false, true, true, true, true, true},
	}
	for _, p := range a.Frontier.Pareto {
		t.add(p.ContextLabel, concurrency(p.Concurrency), num(p.PerRequestTokS), FormatValue(p.TotalTokS, p.TotalSigFigs), num(p.TTFTMs), num(p.TBTMs))
	}
	return t
}

func bestTable(a analysis.RunAnalysis, minUser float64) Table {
	t := Table{
		Name:   "min_user_tps",
		Title:  fmt.Sprintf("Best throughput with ≥ %s tok/s per request: %s", num(minUser), a.Label),
		Header: []string{"context", "N", "total tok/s", "per-request tok/s", "TTFT ms", "TBT ms"},
		Right:  []bool{false, true, true, true, true, true},
	}
	for _, b := range a.BestAtUserRate {
		if !b.Found {
			t.add(noneRow(b)...)
			continue
		}
		p := b.Cell
		ctx := b.ContextLabel
		if ctx == "all" {
			ctx = "all (" + p.ContextLabel + ")"
		}
		t.add(ctx, concurrency(p.Concurrency), bestValue(b), num(p.PerRequestTokS), num(p.TTFTMs), num(p.TBTMs))
	}
	boundNote(&t, a.BestAtUserRate)
	return t
}

func sloTable(a analysis.RunAnalysis, slo analysis.SLO) Table {
	var lim []string
	if slo.MaxTTFTMs > 0 {
		lim = append(lim, "TTFT ≤ "+num(slo.MaxTTFTMs)+" ms")
	}
	if slo.MaxTBTMs > 0 {
		lim = append(lim, "TBT ≤ "+num(slo.MaxTBTMs)+" ms")
	}
	t := Table{
		Name:   "slo",
		Title:  fmt.Sprintf("Most concurrency with %s: %s", strings.Join(lim, " and "), a.Label),
		Header: []string{"context", "N", "total tok/s", "per-request tok/s", "TTFT ms", "TBT ms"},
		Right:  []bool{false, true, true, true, true, true},
	}
	for _, b := range a.MeetSLO {
		if !b.Found {
			t.add(noneRow(b)...)
			continue
		}
		p := b.Cell
		t.add(b.ContextLabel, concurrency(p.Concurrency), bestValue(b), num(p.PerRequestTokS), num(p.TTFTMs), num(p.TBTMs))
	}
	boundNote(&t, a.MeetSLO)
	return t
}

// LowerBoundNote explains the "≥" that marks an answer with cells
// beyond it the run could not measure.
const LowerBoundNote = "≥: a lower bound — the run could not measure cells beyond the answer (looped, over capacity or missing), so its true answer may be higher."

// bestValue prints the total tok/s of an answer, "≥ " first when it is a
// lower bound (as the report's targets table does).
func bestValue(b analysis.Best) string {
	v := FormatValue(b.Cell.TotalTokS, b.Cell.TotalSigFigs)
	if len(b.Beyond) > 0 {
		v = "≥ " + v
	}
	return v
}

// noneRow is the row of a context no cell answers: "none measured" when
// cells beyond were not measured, and which.
func noneRow(b analysis.Best) []string {
	if len(b.Beyond) > 0 {
		return []string{b.ContextLabel, "none measured (" + strings.Join(unmeasuredText(b.Beyond), ", ") + ")", "", "", "", ""}
	}
	return []string{b.ContextLabel, "none", "", "", "", ""}
}

// boundNote adds LowerBoundNote under t when an answer is a lower bound.
func boundNote(t *Table, bs []analysis.Best) {
	for _, b := range bs {
		if len(b.Beyond) > 0 {
			t.Notes = append(t.Notes, LowerBoundNote)
			return
		}
	}
}

// serveTable lists a run's serving curves: each load with its
// throughput and latency percentiles.
func serveTable(a analysis.RunAnalysis) Table {
	t := Table{
		Name:   "serve",
		Title:  "Serving: " + a.Label + " (latencies in ms; p50 is the median)",
		Header: []string{"context", "load", "status", "total tok/s", "per-request tok/s", "TTFT p50", "TTFT p99", "TBT p50", "TBT p99", "E2E p50", "E2E p99"},
		Right:  []bool{false, true, false, true, true, true, true, true, true, true, true},
	}
	v := func(x float64) string { return FormatValue(x, analysis.MaxSigFigs) }
	for _, sc := range a.Serve {
		for _, p := range sc.Points {
			t.Rows = append(t.Rows, []string{sc.ContextLabel, ServeLoadText(sc, p), StateText(p.State), v(p.TotalTokS), v(p.PerRequestTokS),
				v(p.TTFTMs), v(p.TTFTP99Ms), v(p.TBTMs), v(p.TBTP99Ms), v(p.E2EMs), v(p.E2EP99Ms)})
		}
	}
	t.CSV = serveCSV(a)
	return t
}
