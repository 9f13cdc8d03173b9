package report

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"speedmatrix/analysis"
	"speedmatrix/schema"
)

// Summary is what a reader needs first: the outcome in words, the
// geometric-mean ratio of each phase and metric, the targets' answers of
// all runs side by side and the best configuration per context.
type Summary struct {
	// Outcome is one or two sentences per compared run, then AlsoDiffer
	// when it is not empty.
	Outcome []string `json:"outcome"`
	// AlsoDiffer names the metadata fields that differ beyond those the
	// labels name (AlsoDiffer, the function): confounds of the answer.
	AlsoDiffer string `json:"also_differ,omitempty"`
	// Ratios are per other run, phase and metric (over all contexts).
	Ratios []PhaseRatio `json:"ratios"`
	// Answers are the targets asked for (-min-user-tps, -max-ttft,
	// -max-tbt), per context, every run side by side.
	Answers []Answer `json:"answers"`
	// Best is each run's highest total throughput per phase and context.
	Best []Answer `json:"best"`
	// Disjoint lists the other runs (indexes into Comparison.Others) that
	// share no cell with the baseline.
	Disjoint []int `json:"disjoint,omitempty"`
}

// PhaseRatio is the geometric mean of one metric's ratios over one
// phase, with its spread and the cells left out.
type PhaseRatio struct {
	Run    string       `json:"run"`
	Other  int          `json:"other"`
	Phase  schema.Phase `json:"phase"`
	Metric string       `json:"metric"`
	Label  string       `json:"label"`
	// Ratio is the geometric mean; Min and Max the extreme cell ratios;
	// CILo and CIHi bound the mean where every cell has spread.
	Ratio    *float64 `json:"ratio"`
	Min      *float64 `json:"min"`
	Max      *float64 `json:"max"`
	CILo     *float64 `json:"ci_lo,omitempty"`
	CIHi     *float64 `json:"ci_hi,omitempty"`
	Verdict  string   `json:"verdict"`
	Compared int      `json:"cells_compared"`
	Excluded int      `json:"cells_excluded"`
	// Reasons say why cells were left out, with their counts.
	Reasons []Reason `json:"reasons,omitempty"`
	// SigFigs is the precision the mean carries, RangeSigFigs that of
	// the extreme cells (their printed inputs').
	SigFigs      int `json:"sig_figs"`
	RangeSigFigs int `json:"range_sig_figs"`
}

// Reason is why some cells have no ratio ("looped in INT4").
type Reason struct {
	Why   string `json:"why"`
	Cells int    `json:"cells"`
}

// Answer is one question at one context, answered by every run.
type Answer struct {
	Question string       `json:"question"`
	Phase    schema.Phase `json:"phase"`
	Context  string       `json:"context"`
	Runs     []Pick       `json:"runs"`
	// Ratios are each other run's total tok/s over the baseline's, null
	// when either has no answer.
	Ratios []*float64 `json:"ratios"`
}

// Pick is the cell a run answers with.
type Pick struct {
	Run   string `json:"run"`
	Found bool   `json:"found"`
	// Cell is "8K×128" (decode) or the load of a serving point ("8/s").
	Cell           string  `json:"cell,omitempty"`
	Concurrency    int32   `json:"concurrency,omitempty"`
	TotalTokS      float64 `json:"total_tok_s,omitempty"`
	PerRequestTokS float64 `json:"per_request_tok_s,omitempty"`
	// LowerBound is set when cells the run could not measure (looped,
	// over capacity, missing) lie beyond the answer: the true answer may
	// be higher. Why names them.
	LowerBound bool   `json:"lower_bound,omitempty"`
	Why        string `json:"why,omitempty"`
	// SigFigs is the precision of TotalTokS.
	SigFigs int `json:"sig_figs"`
	// LoadKind is how a serving answer's load was set: "concurrency",
	// "rate" or "none" (not recorded); empty for decode. Runs whose
	// answers differ in it get no ratio (ratios).
	LoadKind string `json:"load_kind,omitempty"`
	// USDPerMTok and TokPerJ are the decode cell's US dollars per million
	// output tokens and output tokens per joule, when the report answers
	// per dollar and per joule and the run has them (report/cost.go).
	USDPerMTok *float64 `json:"usd_per_mtok,omitempty"`
	TokPerJ    *float64 `json:"tok_per_j,omitempty"`
}

func summarize(r *Report) Summary {
	c := r.Comparison
	s := Summary{Answers: []Answer{}, Best: []Answer{}}
	for oi := range c.Others {
		if disjoint(c, oi) {
			s.Disjoint = append(s.Disjoint, oi)
		}
	}
	s.Ratios = phaseRatios(c, r.Report.Summary)
	s.Best = append(s.Best, best(r)...) // [] rather than null in JSON
	s.Answers = append(s.Answers, answers(r)...)
	s.Outcome = outcome(r, &s)
	runs := []*schema.Run{&c.Baseline.Run.Run}
	for _, o := range c.Others {
		runs = append(runs, &o.Run.Run)
	}
	if s.AlsoDiffer = AlsoDiffer(runs); s.AlsoDiffer != "" {
		s.Outcome = append(s.Outcome, s.AlsoDiffer)
	}
	return s
}

// disjoint reports whether other run oi shares no cell with the baseline.
func disjoint(c *analysis.Comparison, oi int) bool {
	for i := range c.Deltas[oi] {
		d := &c.Deltas[oi][i]
		if d.BaseState != analysis.StateMissing && d.ValueState != analysis.StateMissing {
			return false
		}
	}
	return true
}

func fp(v float64) *float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return nil
	}
	return &v
}

// phaseRatios turns the phase-level geometric means into PhaseRatios,
// counting the reasons of the cells without a ratio.
func phaseRatios(c *analysis.Comparison, gms []analysis.GeoMean) []PhaseRatio {
	type gk struct {
		other  int
		phase  schema.Phase
		metric string
	}
	reasons := map[gk][]Reason{}
	sig := map[gk]int{}
	for oi, ds := range c.Deltas {
		for i := range ds {
			d := &ds[i]
			k := gk{oi, c.Cells[d.Cell].Key.Phase, c.Metrics[d.Metric].Name}
			if _, ok := d.Ratio(); ok {
				bs, vs := c.Precision(oi, d)
				p, seen := sig[k]
				if !seen {
					p = analysis.MaxSigFigs
				}
				sig[k] = min(p, analysis.RatioSigFigs(bs, vs))
				continue
			}
			why := DeltaNote(c, oi, d)
			rs := reasons[k]
			j := slices.IndexFunc(rs, func(r Reason) bool { return r.Why == why })
			if j < 0 {
				rs = append(rs, Reason{Why: why})
				j = len(rs) - 1
			}
			rs[j].Cells++
			reasons[k] = rs
		}
	}
	var out []PhaseRatio
	for _, g := range gms {
		if g.ContextLabel != "" {
			continue
		}
		k := gk{g.Other, g.Phase, g.Metric.Name}
		p := PhaseRatio{Run: c.Labels[g.Other+1], Other: g.Other, Phase: g.Phase, Metric: g.Metric.Name, Label: MetricLabel(g.Metric, g.Phase),
			Verdict: VerdictText(g.Verdict), Compared: g.N, Excluded: g.Skipped, Reasons: reasons[k], SigFigs: analysis.MaxSigFigs, RangeSigFigs: analysis.MaxSigFigs}
		if g.N > 0 {
			p.Ratio, p.Min, p.Max = fp(g.Ratio), fp(g.Min), fp(g.Max)
			p.SigFigs, p.RangeSigFigs = sig[k], sig[k]
			if g.N >= 4 {
				// Note: a mean of several ratios resolves one figure more
				// than each has (2-figure cells give a 3-figure mean);
				// the range keeps the cells' precision.
				p.SigFigs = max(p.SigFigs, 3)
			}
		}
		if g.HasCI {
			p.CILo, p.CIHi = fp(g.CILo), fp(g.CIHi)
		}
		out = append(out, p)
	}
	return out
}

// cellName names a decode cell "8K×128".
func cellName(ctx string, n int32) string { return fmt.Sprintf("%s×%d", ctx, n) }

func pickOf(r *Report, ai int, phase schema.Phase, b analysis.Best) Pick {
	a := r.Runs[ai]
	p := Pick{Run: a.Label, SigFigs: analysis.MaxSigFigs}
	n := int32(0)
	if b.Found {
		p.Found, p.Cell, p.Concurrency = true, cellName(b.Cell.ContextLabel, b.Cell.Concurrency), b.Cell.Concurrency
		p.TotalTokS, p.PerRequestTokS = b.Cell.TotalTokS, b.Cell.PerRequestTokS
		n = b.Cell.Concurrency
		k := analysis.Key{Phase: phase, ContextLabel: b.Cell.ContextLabel, Concurrency: b.Cell.Concurrency}
		p.SigFigs = analysis.SigFigs(a.Cells.Get(k), analysis.TotalTokS)
	}
	if bs := r.Comparison.Beyond(a.Cells, phase, b.ContextLabel, n); len(bs) > 0 && b.ContextLabel != "all" {
		p.LowerBound, p.Why = true, strings.Join(unmeasuredText(bs), ", ")
	}
	return p
}

// ratios divides each other run's answer by the baseline's. Note: two
// serving answers at loads of different kinds (4 streams against 2
// requests/s, or a load not recorded) get none: the throughput of a
// closed loop and of an open loop at one point each says nothing of which
// setup serves better.
func ratios(picks []Pick) []*float64 {
	out := make([]*float64, 0, len(picks)-1)
	for _, p := range picks[1:] {
		if p.Found && picks[0].Found && picks[0].TotalTokS > 0 && p.LoadKind == picks[0].LoadKind {
			out = append(out, fp(p.TotalTokS/picks[0].TotalTokS))
		} else {
			out = append(out, nil)
		}
	}
	return out
}

// answers lays the runs' answers to the targets side by side.
func answers(r *Report) []Answer {
	var out []Answer
	add := func(q string, get func(a analysis.RunAnalysis) []analysis.Best) {
		var ctxs []string
		for _, a := range r.Runs {
			for _, b := range get(a) {
				if (b.ContextLabel != "all" || r.Options.AllContexts) && !slices.Contains(ctxs, b.ContextLabel) {
					ctxs = append(ctxs, b.ContextLabel)
				}
			}
		}
		for _, ctx := range ctxs {
			ans := Answer{Question: q, Phase: schema.PhaseDecode, Context: ctx}
			for ai, a := range r.Runs {
				b := analysis.Best{ContextLabel: ctx}
				for _, x := range get(a) {
					if x.ContextLabel == ctx {
						b = x
					}
				}
				ans.Runs = append(ans.Runs, pickOf(r, ai, schema.PhaseDecode, b))
			}
			ans.Ratios = ratios(ans.Runs)
			out = append(out, ans)
		}
	}
	if r.MinUserTokS > 0 {
		q := fmt.Sprintf("≥ %s tok/s per request", strconv.FormatFloat(r.MinUserTokS, 'g', -1, 64))
		add("most total tok/s with "+q, func(a analysis.RunAnalysis) []analysis.Best { return a.BestAtUserRate })
		out = append(out, serveAnswers(r, "most serving total tok/s with "+q+" (median)", true, func(sp analysis.ServePoint) (bool, string) {
			if math.IsNaN(sp.PerRequestTokS) {
				return false, "per-request tok/s"
			}
			return sp.PerRequestTokS >= r.MinUserTokS, ""
		})...)
	}
	if r.SLO.MaxTTFTMs > 0 || r.SLO.MaxTBTMs > 0 {
		var lim []string
		if r.SLO.MaxTTFTMs > 0 {
			lim = append(lim, "TTFT ≤ "+strconv.FormatFloat(r.SLO.MaxTTFTMs, 'g', -1, 64)+" ms")
		}
		if r.SLO.MaxTBTMs > 0 {
			lim = append(lim, "TBT ≤ "+strconv.FormatFloat(r.SLO.MaxTBTMs, 'g', -1, 64)+" ms")
		}
		add("most requests at once with "+strings.Join(lim, " and "), func(a analysis.RunAnalysis) []analysis.Best { return a.MeetSLO })
		// Serving runs: the most throughput whose median latencies
		// meet the targets (a point lacking a checked latency does not).
		out = append(out, serveAnswers(r, "most serving total tok/s with "+strings.Join(lim, " and ")+" (medians)", true, func(sp analysis.ServePoint) (bool, string) {
			switch {
			case r.SLO.MaxTTFTMs > 0 && math.IsNaN(sp.TTFTMs):
				return false, "TTFT p50"
			case r.SLO.MaxTBTMs > 0 && math.IsNaN(sp.TBTMs):
				return false, "TBT p50"
			}
			return withinLimit(sp.TTFTMs, r.SLO.MaxTTFTMs) && withinLimit(sp.TBTMs, r.SLO.MaxTBTMs), ""
		})...)
	}
	return out
}

// withinLimit reports whether v meets limit (no limit when it is 0); a
// missing figure (NaN) does not.
func withinLimit(v, limit float64) bool {
	return limit <= 0 || (!math.IsNaN(v) && v <= limit)
}

// best is each run's highest total tok/s per context, decode and serve.
func best(r *Report) []Answer {
	var out []Answer
	var ctxs []string
	for _, cell := range r.Comparison.Cells {
		if cell.Key.Phase == schema.PhaseDecode && !slices.Contains(ctxs, cell.Key.ContextLabel) {
			ctxs = append(ctxs, cell.Key.ContextLabel)
		}
	}
	for _, ctx := range ctxs {
		ans := Answer{Question: "highest decode total tok/s", Phase: schema.PhaseDecode, Context: ctx}
		for ai, a := range r.Runs {
			b := analysis.Best{ContextLabel: ctx}
			for _, p := range a.Frontier.Points {
				if p.ContextLabel == ctx && (!b.Found || p.TotalTokS > b.Cell.TotalTokS) {
					b.Found, b.Cell = true, p
				}
			}
			ans.Runs = append(ans.Runs, pickOf(r, ai, schema.PhaseDecode, b))
		}
		ans.Ratios = ratios(ans.Runs)
		if answered(ans) {
			out = append(out, ans)
		}
	}
	out = append(out, serveAnswers(r, "highest serving total tok/s", false, func(analysis.ServePoint) (bool, string) { return true, "" })...)
	return out
}

// serveAnswers answers question for serving runs: per context, each
// run's serving point of the highest total tok/s among those ok accepts.
//
// A target (keep) keeps contexts no run answers and says why a run has
// no answer: ok returns, beside its verdict, the figure a point lacks
// ("TBT p50"), and a run whose every point lacks one is "none (no TBT p50
// reported)", else "none (no load meets it)".
func serveAnswers(r *Report, question string, keep bool, ok func(analysis.ServePoint) (bool, string)) []Answer {
	var out []Answer
	// Serving: the contexts of every run's curves, shortest first (in the
	// order of the runs, 66, 72, 257 and 99 tokens read unsorted).
	var sctx []string
	tokens := map[string]int64{}
	for _, a := range r.Runs {
		for _, sc := range a.Serve {
			if !slices.Contains(sctx, sc.ContextLabel) {
				sctx = append(sctx, sc.ContextLabel)
				tokens[sc.ContextLabel] = sc.ContextTokens
			}
		}
	}
	slices.SortStableFunc(sctx, func(a, b string) int { return cmp.Compare(tokens[a], tokens[b]) })
	for _, ctx := range sctx {
		ans := Answer{Question: question, Phase: schema.PhaseServe, Context: ctx}
		for _, a := range r.Runs {
			p := Pick{Run: a.Label, SigFigs: analysis.MaxSigFigs}
			points, lacking := 0, map[string]int{}
			for _, sc := range a.Serve {
				if sc.ContextLabel != ctx {
					continue
				}
				for _, sp := range sc.Points {
					pass := false
					if sp.State == analysis.StateValue && !math.IsNaN(sp.TotalTokS) {
						var lacks string
						pass, lacks = ok(sp)
						points++
						if lacks != "" {
							lacking[lacks]++
						}
					}
					if pass && (!p.Found || sp.TotalTokS > p.TotalTokS) {
						p.Found, p.Cell, p.Concurrency, p.TotalTokS, p.PerRequestTokS = true, ServeLoadText(sc, sp), sp.Key.Concurrency, sp.TotalTokS, 0
						p.SigFigs = analysis.SigFigs(a.Cells.Get(sp.Key), analysis.TotalTokS)
						p.LoadKind = "rate"
						switch {
						case p.Cell == "—":
							p.Cell, p.LoadKind = "load not recorded", "none"
						case !sc.ByRate:
							p.Cell, p.LoadKind = "N="+p.Cell, "concurrency"
						}
						if !math.IsNaN(sp.PerRequestTokS) {
							p.PerRequestTokS = sp.PerRequestTokS // else absent (JSON has no NaN)
						}
					}
				}
			}
			// A run that did not measure the higher concurrencies
			// another run did (16 streams against 64) may serve more:
			// its answer is a lower bound, as a decode answer is.
			if p.Found && p.LoadKind == "concurrency" {
				if bs := r.Comparison.Beyond(a.Cells, schema.PhaseServe, ctx, p.Concurrency); len(bs) > 0 {
					p.LowerBound, p.Why = true, strings.Join(unmeasuredText(bs), ", ")
				}
			}
			if keep && !p.Found && points > 0 {
				p.Why = "no load meets it"
				for name, n := range lacking {
					if n == points {
						p.Why = "no " + name + " reported"
					}
				}
			}
			ans.Runs = append(ans.Runs, p)
		}
		ans.Ratios = ratios(ans.Runs)
		if keep || answered(ans) {
			out = append(out, ans)
		}
	}
	return out
}

// answered reports whether some run has an answer (or a bound) to a best
// question: a row of "none" alone (every cell of every run failed) says
// nothing the outcome does not.
func answered(a Answer) bool {
	return slices.ContainsFunc(a.Runs, func(p Pick) bool { return p.Found || p.LowerBound })
}
