package runner

import (
	"slices"

	"speedmatrix/schema"
)

// inFlight is the in-flight count of one load over its span: the
// requests between their start (handed to the transport) and their end
// at each moment.
//
// Note: the series is a fixed number of points (schema.InFlightPoints:
// the mean over each tenth of the span), not one every 100 ms, so a 10 s
// rate and a 10 min one store rows of the same shape, the All
// measurements table gets a fixed set of columns, and the points' mean
// is avg_active_requests exactly (equal slices). A burst shorter than a
// tenth shows in max_active_requests and the percentiles, not in the
// series.
type inFlight struct {
	avg      float64
	max      int
	p50, p90 int                            // time-weighted: the count the load spent half (90%) of its span at or below
	series   [schema.InFlightPoints]float64 // mean over each tenth of the span
}

// inFlightEdge is a request's start (+1) or end (−1), ns from the epoch.
type inFlightEdge struct {
	t int64
	d int
}

// inFlightOver sweeps the start and end edges over the span [from, to).
func inFlightOver(edges []inFlightEdge, from, to int64) inFlight {
	slices.SortFunc(edges, func(a, b inFlightEdge) int {
		if a.t != b.t {
			if a.t < b.t {
				return -1
			}
			return 1
		}
		return a.d - b.d // an end before a start at the same instant
	})
	var f inFlight
	span := to - from
	var area float64
	at := map[int]int64{} // time spent at each count
	n := int64(len(f.series))
	// add counts cur requests over [t0, t1), into each slice it overlaps.
	add := func(t0, t1 int64, cur int) {
		t0, t1 = max(t0, from), min(t1, to)
		if t1 <= t0 {
			return
		}
		at[cur] += t1 - t0
		area += float64(cur) * float64(t1-t0)
		for k := range n {
			if o := min(t1, from+(k+1)*span/n) - max(t0, from+k*span/n); o > 0 {
				f.series[k] += float64(cur) * float64(o)
			}
		}
	}
	cur := 0
	for k, e := range edges {
		if k > 0 {
			add(edges[k-1].t, e.t, cur)
		}
		cur += e.d
		f.max = max(f.max, cur)
	}
	if span <= 0 { // a span of one instant: its peak only
		return f
	}
	f.avg = area / float64(span)
	for k := range f.series {
		w := from + int64(k+1)*span/n - (from + int64(k)*span/n)
		f.series[k] /= float64(w)
	}
	counts := make([]int, 0, len(at))
	for c := range at {
		counts = append(counts, c)
	}
	slices.Sort(counts)
	var sum int64
	f.p50, f.p90 = -1, -1
	for _, c := range counts {
		sum += at[c]
		if f.p50 < 0 && 2*sum >= span {
			f.p50 = c
		}
		if f.p90 < 0 && 10*sum >= 9*span {
			f.p90 = c
		}
	}
	f.p50, f.p90 = max(f.p50, 0), max(f.p90, 0)
	return f
}

// fill writes the in-flight figures into a serve row: the mean
// (avg_active_requests), the peak, the time-weighted p50 and p90, and
// the series (schema.InFlightSeriesName).
func (f *inFlight) fill(m *schema.Measurement, sec float64) {
	extra := func(name string, v float64) { m.Extra = append(m.Extra, schema.Metric{Name: name, Value: v}) }
	extra("max_active_requests", float64(f.max))
	if sec <= 0 {
		return
	}
	m.AvgActiveRequests = schema.F64(f.avg)
	extra("in_flight_p50", float64(f.p50))
	extra("in_flight_p90", float64(f.p90))
	for k, v := range f.series {
		extra(schema.InFlightSeriesName(k), roundTo(v, 0.01))
	}
}
