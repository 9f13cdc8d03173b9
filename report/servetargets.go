package report

import (
	"cmp"
	"math"
	"slices"
	"strings"

	"speedmatrix/analysis"
	"speedmatrix/schema"
)

// Serving runs (phase serve: run -rates, other tools' serving
// benchmarks) answer the targets (-min-user-tps, -max-ttft, -max-tbt)
// as people set serving SLOs: the most requests per second a setup
// completes while its latencies stay within them.
//
// Note: the latency targets are checked at p99 (TTFT p99, TBT p99), as
// MLPerf's server scenario and most serving SLOs state them: a median
// within 500 ms leaves half the users above it. Every serving source
// that keeps percentiles stores p99 (run -rates, vLLM's bench serve,
// AIPerf, guidellm); a point without it does not qualify and the answer
// says "none (no TTFT p99 reported)". The per-request speed of
// -min-user-tps is the median (the only figure the sources give), as
// for decode cells; decode cells check median latencies, all their
// documents print.

// serveQuestion is one question serveAnswers asks of every serving curve.
type serveQuestion struct {
	question string
	// target marks an answer to a target: it ranks points by the
	// requests they completed per second (ReqS) and keeps contexts no
	// run answers, saying why a run has no answer. Without it, points
	// rank by total tok/s ("highest serving total tok/s").
	target bool
	// ok says whether a point meets the question and, beside it, the
	// figure it lacks to be checked ("TBT p99"), "" when none.
	ok func(analysis.ServePoint) (bool, string)
}

// serveTargetNote says how a serving target is answered, under the
// answers table.
const serveTargetNote = "Serving targets (most requests/s with …): the most requests completed per second (not the rate offered) at a load whose TTFT and TBT p99 (for tok/s per request: the median) meet the targets, its output tok/s beside it; the ratio is of requests/s. Where a run has request-rate loads (open loop), only they count: a closed loop of N streams queues no request and reads faster than users arriving on their own would see."

// serveAnswers answers q for serving runs: per context, each run's
// serving point that q.ok accepts with the most requests/s (q.target)
// or the highest total tok/s.
//
// A target keeps contexts no run answers and says why a run has no
// answer: ok returns, beside its verdict, the figure a point lacks ("TBT
// p99"), and a run whose every point lacks one is "none (no TBT p99
// reported)", else "none (no load meets it)". A point without the
// requests it completed per second lacks "requests/s".
func serveAnswers(r *Report, q serveQuestion) []Answer {
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
		ans := Answer{Question: q.question, Phase: schema.PhaseServe, Context: ctx}
		if q.target {
			ans.RatioOf = "req_s"
		}
		for _, a := range r.Runs {
			ans.Runs = append(ans.Runs, servePick(r, a, ctx, q))
		}
		ans.Ratios = ratios(ans.Runs)
		if q.target || answered(ans) {
			out = append(out, ans)
		}
	}
	return out
}

// servePick is run a's answer to q at context ctx.
func servePick(r *Report, a analysis.RunAnalysis, ctx string, q serveQuestion) Pick {
	p := Pick{Run: a.Label, SigFigs: analysis.MaxSigFigs}
	open := q.target && slices.ContainsFunc(a.Serve, func(sc analysis.ServeCurve) bool {
		return sc.ContextLabel == ctx && slices.ContainsFunc(sc.Points, openLoop)
	})
	var best *analysis.ServePoint
	var bestCurve analysis.ServeCurve
	points, lacking := 0, map[string]int{}
	for _, sc := range a.Serve {
		if sc.ContextLabel != ctx {
			continue
		}
		for i := range sc.Points {
			sp := &sc.Points[i]
			if sp.State != analysis.StateValue || math.IsNaN(sp.TotalTokS) || (open && !openLoop(*sp)) {
				continue
			}
			points++
			pass, lacks := q.ok(*sp)
			if q.target && lacks == "" && math.IsNaN(sp.ReqS) {
				pass, lacks = false, "requests/s"
			}
			if lacks != "" {
				lacking[lacks]++
			}
			if pass && (best == nil || better(*sp, *best, q.target)) {
				best, bestCurve = sp, sc
			}
		}
	}
	if best != nil {
		sp := best
		p.Found, p.Cell, p.Concurrency, p.TotalTokS = true, ServeLoadText(bestCurve, *sp), sp.Key.Concurrency, sp.TotalTokS
		p.SigFigs = analysis.SigFigs(a.Cells.Get(sp.Key), analysis.TotalTokS)
		// Note: the kind is the point's own: run -rates probes 1 and N
		// streams (closed loops) before its rates, so one curve holds
		// both kinds; its rate points are no concurrency ("N=117/s").
		p.LoadKind = "rate"
		switch {
		case p.Cell == "—":
			p.Cell, p.LoadKind = "load not recorded", "none"
		case sp.Key.Concurrency != 0:
			p.Cell, p.LoadKind = "N="+p.Cell, "concurrency"
		}
		if !math.IsNaN(sp.PerRequestTokS) {
			p.PerRequestTokS = sp.PerRequestTokS // else absent (JSON has no NaN)
		}
		if q.target {
			p.ReqS, p.ReqSSigFigs = fp(sp.ReqS), analysis.SigFigs(a.Cells.Get(sp.Key), reqSMetric)
			if p.GoodputReqS = fp(sp.GoodputReqS); p.GoodputReqS != nil {
				p.GoodputSLO = goodputSLO(a.Cells.Run)
			}
		}
	}
	// A run that did not measure the higher concurrencies another run
	// did (16 streams against 64) may serve more: its answer is a lower
	// bound, as a decode answer is.
	if p.Found && p.LoadKind == "concurrency" {
		if bs := r.Comparison.Beyond(a.Cells, schema.PhaseServe, ctx, p.Concurrency); len(bs) > 0 {
			p.LowerBound, p.Why = true, strings.Join(unmeasuredText(bs), ", ")
		}
	}
	if q.target && !p.Found && points > 0 {
		p.Why = "no load meets it"
		for name, n := range lacking {
			if n == points {
				p.Why = "no " + name + " reported"
			}
		}
	}
	return p
}

// better reports whether serving point x answers before y: more
// requests/s for a target (then more tok/s), else more tok/s.
func better(x, y analysis.ServePoint, target bool) bool {
	if target && x.ReqS != y.ReqS {
		return x.ReqS > y.ReqS
	}
	return x.TotalTokS > y.TotalTokS
}

// openLoop reports whether a serving point's load was a request rate
// with no limit on the requests in flight (open loop).
func openLoop(sp analysis.ServePoint) bool {
	return sp.Key.Concurrency == 0 && sp.Key.RequestRate != 0
}

// reqSMetric is the column a serving target's requests/s is printed
// from, for its precision.
var reqSMetric = func() analysis.Metric {
	mt, err := analysis.MetricByName("request_throughput")
	if err != nil {
		panic(err) // a column of schema.Measurement: a programming error
	}
	return mt
}()

// goodputSLO is the SLO a run measured goodput under, as run -slo
// records it ("ttft:500ms,tbt:50ms"), "" when the run does not say.
func goodputSLO(m *schema.Matrix) string {
	if m == nil {
		return ""
	}
	for _, f := range m.Run.Metadata {
		if strings.EqualFold(f.Key, "Goodput SLO") {
			return f.Value
		}
	}
	return ""
}

// reqSText prints a serving target's answer: "110.3 req/s, 7,057.8 tok/s
// (117/s offered; goodput 99.27 req/s)".
func reqSText(p Pick) string {
	load := p.Cell
	if p.LoadKind == "rate" {
		load += " offered"
	}
	if p.GoodputReqS != nil {
		load += "; goodput " + FormatSig(*p.GoodputReqS, analysis.MaxSigFigs) + " req/s"
	}
	return FormatSig(*p.ReqS, p.ReqSSigFigs) + " req/s, " + FormatValue(p.TotalTokS, p.SigFigs) + " tok/s (" + load + ")"
}

// serveTargetNotes are the answers table's notes on serving targets:
// how they are answered, and the SLO each run's goodput was measured
// under, when one answer shows goodput.
func serveTargetNotes(as []Answer) []string {
	var out []string
	slos := map[string]string{}
	var runs []string
	for _, a := range as {
		if a.RatioOf != "req_s" {
			continue
		}
		if len(out) == 0 {
			out = append(out, serveTargetNote)
		}
		for _, p := range a.Runs {
			if _, seen := slos[p.Run]; p.GoodputReqS != nil && !seen {
				slo := p.GoodputSLO
				if slo == "" {
					slo = "its SLO not recorded"
				}
				slos[p.Run] = slo
				runs = append(runs, p.Run)
			}
		}
	}
	if len(runs) > 0 {
		var each []string
		for _, run := range runs {
			each = append(each, run+": "+slos[run])
		}
		out = append(out, "Goodput: the requests/s that met the run's own SLO, as the run measured it ("+strings.Join(each, "; ")+").")
	}
	return out
}
