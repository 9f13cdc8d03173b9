package report

import (
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
	// when either has no answer; requests/s over the baseline's for a
	// serving target, whose RatioOf is "req_s".
	Ratios  []*float64 `json:"ratios"`
	RatioOf string     `json:"ratio_of,omitempty"`
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
	// ReqS is a serving target's answer (servetargets.go): the requests
	// completed per second at the load that meets the targets, with
	// its precision ReqSSigFigs (TotalTokS is the throughput beside it).
	// GoodputReqS is the part of them that met the run's own SLO,
	// GoodputSLO, where the run measured goodput (run -slo).
	ReqS        *float64 `json:"req_s,omitempty"`
	ReqSSigFigs int      `json:"req_s_sig_figs,omitempty"`
	GoodputReqS *float64 `json:"goodput_req_s,omitempty"`
	GoodputSLO  string   `json:"goodput_slo,omitempty"`
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
//
// A serving target's answers (ReqS set) are divided by their requests/s.
func ratios(picks []Pick) []*float64 {
	out := make([]*float64, 0, len(picks)-1)
	b := picks[0]
	for _, p := range picks[1:] {
		switch {
		case !p.Found || !b.Found || p.LoadKind != b.LoadKind || (p.ReqS == nil) != (b.ReqS == nil):
			out = append(out, nil)
		case p.ReqS != nil && *b.ReqS > 0:
			out = append(out, fp(*p.ReqS / *b.ReqS))
		case p.ReqS == nil && b.TotalTokS > 0:
			out = append(out, fp(p.TotalTokS/b.TotalTokS))
		default:
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
		out = append(out, serveAnswers(r, serveQuestion{question: "most requests/s with " + q + " (median)", target: true, ok: func(sp analysis.ServePoint) (bool, string) {
			if math.IsNaN(sp.PerRequestTokS) {
				return false, "per-request tok/s"
			}
			return sp.PerRequestTokS >= r.MinUserTokS, ""
		}})...)
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
		// Serving runs: the most requests/s whose p99 latencies meet the
		// targets (servetargets.go; a point lacking one does not).
		out = append(out, serveAnswers(r, serveQuestion{question: "most requests/s with " + strings.Join(lim, " and ") + " (p99)", target: true, ok: func(sp analysis.ServePoint) (bool, string) {
			switch {
			case r.SLO.MaxTTFTMs > 0 && math.IsNaN(sp.TTFTP99Ms):
				return false, "TTFT p99"
			case r.SLO.MaxTBTMs > 0 && math.IsNaN(sp.TBTP99Ms):
				return false, "TBT p99"
			}
			return withinLimit(sp.TTFTP99Ms, r.SLO.MaxTTFTMs) && withinLimit(sp.TBTP99Ms, r.SLO.MaxTBTMs), ""
		}})...)
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
	out = append(out, serveAnswers(r, serveQuestion{question: "highest serving total tok/s", ok: func(analysis.ServePoint) (bool, string) { return true, "" }})...)
	return out
}

// answered reports whether some run has an answer (or a bound) to a best
// question: a row of "none" alone (every cell of every run failed) says
// nothing the outcome does not.
func answered(a Answer) bool {
	return slices.ContainsFunc(a.Runs, func(p Pick) bool { return p.Found || p.LowerBound })
}
