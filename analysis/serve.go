package analysis

import (
	"cmp"
	"math"
	"slices"

	"speedmatrix/schema"
)

// ServeMetrics are the figures a serving curve follows, beyond the
// default metrics: latency percentiles and end-to-end latency.
var ServeMetrics = func() []Metric {
	var out []Metric
	for _, n := range []string{"ttft_p99_ms", "tbt_p99_ms", "e2e_p50_ms", "e2e_p99_ms"} {
		mt, err := MetricByName(n)
		if err != nil {
			panic(err) // a column of schema.Measurement: a programming error
		}
		out = append(out, mt)
	}
	return out
}()

// ServePoint is one load level of a serving benchmark (phase serve): the
// figures other tools' serving runs report. Figures a cell lacks are NaN.
type ServePoint struct {
	Key Key
	// Load is what the benchmark offered: its concurrency, or its request
	// rate (+Inf for "all at once") when the curve is by rate.
	Load  float64
	State State
	// TotalTokS is output tok/s over all requests, PerRequestTokS the
	// median decode speed one request sees.
	TotalTokS, PerRequestTokS float64
	// TTFT and TBT median and p99, end-to-end latency median and p99, ms.
	TTFTMs, TTFTP99Ms, TBTMs, TBTP99Ms, E2EMs, E2EP99Ms float64
	// ReqS is the requests completed per second (request_throughput,
	// else completed_requests ÷ measured_s), not the rate offered;
	// GoodputReqS those of them that met the run's own SLO (run -slo,
	// aiperf's goodput). Both NaN when the cell lacks them.
	ReqS, GoodputReqS float64
}

// ServeCurve is one run's serving points at one context (input length),
// ordered by load.
type ServeCurve struct {
	ContextLabel  string
	ContextTokens int64
	// ByRate is true when the load is the offered request rate (no point
	// has a concurrency limit), false when it is the concurrency.
	ByRate bool
	Points []ServePoint
}

// Serve returns a run's serving curves, one per context, in context
// order; nil when the run has no serve cells.
func Serve(cs *Cells) []ServeCurve {
	var out []ServeCurve
	for _, c := range cs.Phase(schema.PhaseServe) {
		if len(out) == 0 || out[len(out)-1].ContextLabel != c.Key.ContextLabel {
			out = append(out, ServeCurve{ContextLabel: c.Key.ContextLabel, ContextTokens: c.ContextTokens, ByRate: true})
		}
		cur := &out[len(out)-1]
		st, _ := stateOf(c, TotalTokS)
		if st == StateNoValue {
			st = StateValue // valid; single figures may still be missing (NaN)
		}
		p := ServePoint{Key: c.Key, State: st,
			TotalTokS: valueOrNaN(c, TotalTokS), PerRequestTokS: valueOrNaN(c, PerRequestTokS),
			TTFTMs: valueOrNaN(c, TTFTMs), TBTMs: valueOrNaN(c, TBTMs),
			TTFTP99Ms: valueOrNaN(c, ServeMetrics[0]), TBTP99Ms: valueOrNaN(c, ServeMetrics[1]),
			E2EMs: valueOrNaN(c, ServeMetrics[2]), E2EP99Ms: valueOrNaN(c, ServeMetrics[3]),
			ReqS: reqS(c), GoodputReqS: valueOrNaN(c, GoodputReqS)}
		if c.Key.Concurrency != 0 {
			cur.ByRate = false // a concurrency limit is the load, whatever the rate
		}
		cur.Points = append(cur.Points, p)
	}
	for i := range out {
		c := &out[i]
		for j := range c.Points {
			p := &c.Points[j]
			p.Load = float64(p.Key.Concurrency)
			if c.ByRate {
				p.Load = p.Key.RequestRate
			}
		}
		slices.SortStableFunc(c.Points, func(a, b ServePoint) int { return cmp.Compare(a.Load, b.Load) })
	}
	return out
}

// reqS is the requests cell c completed per second: its
// request_throughput, else its completed requests over its measured
// seconds (SGLang's bench_serving prints "completed" and "duration"
// only); NaN when it has neither.
func reqS(c *Cell) float64 {
	if v := valueOrNaN(c, reqMetrics[0]); !math.IsNaN(v) {
		return v
	}
	n, s := valueOrNaN(c, reqMetrics[1]), valueOrNaN(c, reqMetrics[2])
	if s > 0 && n >= 0 {
		return n / s
	}
	return math.NaN()
}

// reqMetrics are the columns reqS reads.
var reqMetrics = func() []Metric {
	var out []Metric
	for _, n := range []string{"request_throughput", "completed_requests", "measured_s"} {
		mt, err := MetricByName(n)
		if err != nil {
			panic(err) // a column of schema.Measurement: a programming error
		}
		out = append(out, mt)
	}
	return out
}()
