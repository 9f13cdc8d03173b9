package runner

import (
	"slices"
	"testing"
	"time"

	"speedmatrix/schema"
)

// TestLoadFigures computes a load's figures from hand-made records whose
// figures are known: three requests over one second, one failed, one
// late, one cut when the load stopped.
func TestLoadFigures(t *testing.T) {
	ms := int64(time.Millisecond)
	s := &stream{log: []tick{
		// request 0: first token at 100 ms, then 10 ms per token, 5 tokens.
		{100 * ms, 1}, {110 * ms, 2}, {120 * ms, 3}, {130 * ms, 4}, {140 * ms, 5},
		// request 1: first at 400 ms (TTFT 300 ms), 20 ms per token, 3 tokens.
		{400 * ms, 1}, {420 * ms, 2}, {440 * ms, 3},
		// request 3 (cut): two tokens.
		{900 * ms, 1}, {950 * ms, 2},
	}}
	run := &loadRun{
		streams: []*stream{s},
		recs: []record{
			{start: 0, sent: 0, first: 100 * ms, firstContent: 100 * ms, end: 150 * ms, t0: 0, t1: 5, prompt: 10, tokens: 5, done: true},
			{start: 100 * ms, sent: 100 * ms, first: 400 * ms, firstContent: 400 * ms, end: 1000 * ms, t0: 5, t1: 8, prompt: 30, tokens: 3, done: true},
			{start: 500 * ms, sent: 500 * ms, first: -1, firstContent: -1, end: 600 * ms, err: "HTTP 500: boom", t0: 8, t1: 8},
			{start: 800 * ms, sent: 800 * ms, first: 900 * ms, firstContent: 900 * ms, end: -1, t0: 8, t1: 10, prompt: 20, tokens: 2, cut: true},
		},
		lag:       []int64{0, 0, 20 * ms, 1 * ms},
		stoppedAt: 1000 * ms,
	}
	f := figuresOf(run, SLO{TTFT: 200 * time.Millisecond, TBT: 15 * time.Millisecond}, true)
	var m schema.Measurement
	f.fill(&m)
	checks := []struct {
		name      string
		got, want float64
	}{
		{"completed", float64(*m.CompletedRequests), 2},
		{"errored", float64(*m.ErroredRequests), 1},
		{"good", float64(f.good), 1}, // request 1 misses the TTFT bound
		{"late", float64(f.late), 1},
		{"incomplete", float64(f.incomplete), 1},
		{"measured s", *m.MeasuredS, 1},
		{"output tok/s", *m.TotalTokS, 10}, // 5 + 3 + 2 tokens in 1 s
		{"input tok/s", *m.InputTokS, 60},  // 10 + 30 + 20
		{"request throughput", *m.RequestThroughput, 2},
		{"ttft p50", *m.TTFTP50Ms, 100}, // 100, 300, 100
		{"tbt p50", *m.TBTP50Ms, 20},    // 10, 20, 50
		{"e2e mean", *m.E2EMeanMs, (150 + 900) / 2.0},
		{"chunk gap p99", *m.ChunkGapP99Ms, 48.2}, // gaps 10×4, 20×2, 50
		// in flight: [0,150) 1, [100,150) 2, then 1 until 500, 2 until
		// 600, 1 until 800, 2 until 1000: area 1,350 ms over 1,000 ms.
		{"avg active", *m.AvgActiveRequests, 1.35},
		{"max active", float64(f.inFlight.max), 2},
		// 650 ms at 1, 350 ms at 2.
		{"in flight p50", float64(f.inFlight.p50), 1},
		{"in flight p90", float64(f.inFlight.p90), 2},
	}
	for _, c := range checks {
		if !within(c.got, c.want, 1e-9, 1e-9) {
			t.Errorf("%s = %v, want %v", c.name, c.got, c.want)
		}
	}
	extra := map[string]float64{}
	for _, e := range m.Extra {
		extra[e.Name] = e.Value
	}
	if got := extra["achieved_request_rate"]; !within(got, 3/0.8, 1e-5, 0) {
		t.Errorf("achieved rate %v, want 3.75 (3 gaps in 0.8 s)", got)
	}
	if extra["late_requests"] != 1 || extra["send_lag_max_ms"] != 20 || extra["max_active_requests"] != 2 {
		t.Errorf("extra %v", extra)
	}
	// The series: tenths of 100 ms; [100, 200) holds 2 for 50 ms.
	wantSeries := []float64{1, 1.5, 1, 1, 1, 2, 1, 1, 2, 2}
	if got := schema.InFlightSeries(&m); !slices.Equal(got, wantSeries) {
		t.Errorf("in-flight series %v, want %v", got, wantSeries)
	}
	if extra["in_flight_p50"] != 1 || extra["in_flight_p90"] != 2 {
		t.Errorf("in flight p50 %v p90 %v, want 1 and 2", extra["in_flight_p50"], extra["in_flight_p90"])
	}
	if len(f.samples) != 4 || f.samples[2].Error == "" || f.samples[0].TTFTMs == nil || *f.samples[0].TTFTMs != 100 {
		t.Errorf("samples %+v", f.samples)
	}
}
