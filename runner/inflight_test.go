package runner

import (
	"context"
	"slices"
	"testing"
	"time"

	"speedmatrix/runner/sim"
	"speedmatrix/schema"
)

// TestInFlightOver sweeps hand-made edges whose in-flight figures are
// known.
func TestInFlightOver(t *testing.T) {
	type span struct{ start, end int64 }
	for _, c := range []struct {
		name          string
		reqs          []span
		from, to      int64
		avg           float64
		max, p50, p90 int
		series        []float64
	}{
		{"one request over the span", []span{{0, 100}}, 0, 100, 1, 1, 1, 1, []float64{1, 1, 1, 1, 1, 1, 1, 1, 1, 1}},
		{"staircase", []span{{0, 100}, {10, 100}, {20, 100}, {30, 100}}, 0, 100, 3.4, 4, 4, 4, []float64{1, 2, 3, 4, 4, 4, 4, 4, 4, 4}},
		{"mostly idle", []span{{0, 5}, {95, 100}}, 0, 100, 0.1, 1, 0, 0, []float64{0.5, 0, 0, 0, 0, 0, 0, 0, 0, 0.5}},
		{"back to back, an end before a start", []span{{0, 50}, {50, 100}}, 0, 100, 1, 1, 1, 1, []float64{1, 1, 1, 1, 1, 1, 1, 1, 1, 1}},
		{"uneven tenths (integer edges 0, 1, 3, 4, …)", []span{{0, 15}, {0, 3}}, 0, 15, 1.2, 2, 1, 2, []float64{2, 2, 1, 1, 1, 1, 1, 1, 1, 1}},
		{"an instant (an end counts before a start at the same time)", []span{{7, 7}}, 7, 7, 0, 0, 0, 0, make([]float64, 10)},
	} {
		t.Run(c.name, func(t *testing.T) {
			var edges []inFlightEdge
			for _, r := range c.reqs {
				edges = append(edges, inFlightEdge{r.start, 1}, inFlightEdge{r.end, -1})
			}
			f := inFlightOver(edges, c.from, c.to)
			if !within(f.avg, c.avg, 1e-12, 1e-12) || f.max != c.max || f.p50 != c.p50 || f.p90 != c.p90 {
				t.Errorf("avg %v max %d p50 %d p90 %d, want %v %d %d %d", f.avg, f.max, f.p50, f.p90, c.avg, c.max, c.p50, c.p90)
			}
			for k, want := range c.series {
				if !within(f.series[k], want, 1e-12, 1e-12) {
					t.Errorf("series %v, want %v", f.series, c.series)
					break
				}
			}
		})
	}
}

// TestInFlightAgainstSim offers 20 requests/s for 3 s to the simulator,
// each request 400 ms of decoding (so about 8 are in flight once the
// load has ramped up), and checks the row's in-flight series against the
// simulator's record of when it held each request: every point within
// what the loopback and a loaded machine can move it (each request's
// start and end seen late by up to the run's own send-lag p99, or 1 ms),
// its mean the row's avg_active_requests, and the middle of the load at
// about 8.
func TestInFlightAgainstSim(t *testing.T) {
	if testing.Short() {
		t.Skip("an open-loop load of 3 s")
	}
	p := sim.DefaultProfile()
	p.StepBase, p.StepPerSeq, p.StepPerKToken = 10*time.Millisecond, 0, 0
	p.MaxRunning = 64
	srv, c := startSim(t, p, ClientConfig{MaxConns: 64})
	body := c.completionBody("hello", 40) // 40 steps: 400 ms
	srv.Reset()
	res := c.runLoad(context.Background(), loadConfig{label: "t", maxInFlight: 64, header: time.Minute, idle: time.Minute, drain: time.Minute,
		at: schedule(ArrivalConstant, 20, 60, 0, nil), body: func(int) ([]byte, int64) { return body, 0 }})
	f := figuresOf(&res, SLO{}, false)
	var m schema.Measurement
	f.fill(&m)
	series := schema.InFlightSeries(&m)
	if series == nil {
		t.Fatalf("no in-flight series in the row's extras: %v", m.Extra)
	}
	var recs []sim.RequestRecord
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if recs = srv.Requests(); len(recs) == 60 && !slices.ContainsFunc(recs, func(r sim.RequestRecord) bool { return r.Finished.IsZero() }) {
			break
		}
	}
	if len(recs) != 60 {
		t.Fatalf("the simulator recorded %d requests, want 60", len(recs))
	}
	// The truth, counted independently: the simulator's held requests,
	// sampled every 0.1 ms over each tenth of the client's span.
	from, to := f.firstStart, f.lastEnd
	width := float64(to-from) / schema.InFlightPoints
	// How far the client's edges lie from the simulator's: its k-th
	// start against the simulator's k-th start, and so for ends (the
	// pairing of sorted times moves no edge further than any other
	// pairing does). On a quiet machine about a millisecond; on a loaded
	// one the handler starts and the last read end late by what the
	// scheduler makes them wait, and every edge may move by that much.
	var cs, ce, ss, se []int64
	for _, q := range res.recs {
		cs, ce = append(cs, q.start), append(ce, q.end)
	}
	for _, r := range recs {
		ss, se = append(ss, int64(r.Start.Sub(res.epoch))), append(se, int64(r.Finished.Sub(res.epoch)))
	}
	var offsets []float64
	for _, pair := range [][2][]int64{{cs, ss}, {ce, se}} {
		slices.Sort(pair[0])
		slices.Sort(pair[1])
		for i := range pair[0] {
			offsets = append(offsets, float64(max(pair[0][i]-pair[1][i], pair[1][i]-pair[0][i])))
		}
	}
	slack := max(1e6, float64(quantileOf(f.lag, 0.99))*1e6, quantileOf(offsets, 1)) // ns
	var sum float64
	for k, got := range series {
		s0, s1 := from+int64(float64(k)*width), from+int64(float64(k+1)*width)
		var held, samples, edges float64
		for at := s0; at < s1; at += 100_000 {
			samples++
			for _, r := range recs {
				if st, end := int64(r.Start.Sub(res.epoch)), int64(r.Finished.Sub(res.epoch)); st <= at && at < end {
					held++
				}
			}
		}
		for _, r := range recs {
			for _, e := range []time.Time{r.Start, r.Finished} {
				if at := int64(e.Sub(res.epoch)); s0 <= at && at < s1 {
					edges++
				}
			}
		}
		want := held / samples
		// Each edge in the slice may move by the slack, the sampling by
		// one step per edge, and the stored point is rounded to 0.01.
		tol := 0.011 + edges*(slack+100_000)/width
		if d := got - want; d > tol || d < -tol {
			t.Errorf("point %d: %v in flight, the simulator held %.3f (tolerance %.3f, %v edges)", k+1, got, want, tol, edges)
		}
		sum += got
	}
	if avg := *m.AvgActiveRequests; !within(sum/schema.InFlightPoints, avg, 0, 0.006) {
		t.Errorf("the series' mean %v is not avg_active_requests %v", sum/schema.InFlightPoints, avg)
	}
	// Little's law with the simulator's own request durations: 20/s ×
	// 400 ms = 8 on a quiet machine; a simulator starved of CPU holds
	// each request longer, and more are in flight. The client sees each
	// request for longer than the simulator holds it by at most the
	// edges' slack at both ends: 20/s × 2 × slack more in flight.
	var held time.Duration
	for _, r := range recs {
		held += r.Finished.Sub(r.Start)
	}
	little := 20 * (held / time.Duration(len(recs))).Seconds()
	if mid := series[4]; !within(mid, little, 0.1, 20*2*slack/1e9) {
		t.Errorf("the middle of the load holds %v in flight, want about %.2f (20/s × the simulator's mean request time %v, edges within %.1f ms)", mid, little, held/time.Duration(len(recs)), slack/1e6)
	}
	t.Logf("in flight over time %v (avg %.3f, p50 %d, p90 %d, max %d), edges within %.3f ms", series, *m.AvgActiveRequests, f.inFlight.p50, f.inFlight.p90, f.inFlight.max, slack/1e6)
}

// quantileOf returns the q-quantile of xs (unsorted).
func quantileOf(xs []float64, q float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	return quantile(s, q)
}
