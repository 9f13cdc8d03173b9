package runner

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"speedmatrix/internal/testtool"
	"speedmatrix/runner/sim"
	"speedmatrix/schema"
)

// serveProfile is a simulator slow enough that loopback and scheduling
// noise (up to a millisecond on the loaded 2-core machine) stays below 2%
// of its latencies: 8 ms decode steps, prefill at 20K tok/s (a
// 2,048-token prompt takes 102 ms), at most 8 requests decoding at once,
// more waiting in its queue.
func serveProfile() sim.Profile {
	p := sim.DefaultProfile()
	p.PrefillTokS = []sim.RatePoint{{Context: 1, TokS: 20_000}}
	p.StepBase, p.StepPerSeq, p.StepPerKToken = 8*time.Millisecond, 0, 0
	p.MaxRunning = 8
	p.PrefixCacheTokens = 0
	p.ReasoningTokens = 0
	return p
}

// simServe is what the simulator recorded of one load's requests.
type simServe struct {
	ttft, tbt, e2e []float64 // ms, completed requests
	start          []time.Time
}

func simServeTruth(recs []sim.RequestRecord) simServe {
	var tr simServe
	for _, r := range recs {
		if r.MaxTokens <= 1 || r.Err != "" || r.Finished.IsZero() || len(r.Chunks) == 0 {
			continue
		}
		tr.start = append(tr.start, r.Start)
		tr.ttft = append(tr.ttft, float64(r.FirstToken.Sub(r.Start))/1e6)
		tr.e2e = append(tr.e2e, float64(r.Finished.Sub(r.Start))/1e6)
		first, last := r.Chunks[0], r.Chunks[len(r.Chunks)-1]
		if steps := r.OutputTokens - int64(first.Tokens); steps > 0 {
			tr.tbt = append(tr.tbt, float64(last.At.Sub(first.At))/1e6/float64(steps))
		}
	}
	return tr
}

// widestGap returns the midpoint of the widest gap between consecutive
// values of xs between their 10th and 90th percentiles, and the gap.
func widestGap(xs []float64) (mid, gap float64) {
	s := slices.Clone(xs)
	sort.Float64s(s)
	for i := len(s) / 10; i < 9*len(s)/10; i++ {
		if g := s[i+1] - s[i]; g > gap {
			gap, mid = g, (s[i]+s[i+1])/2
		}
	}
	return mid, gap
}

// TestServeAgainstSimTruth offers open-loop rates to the simulator and
// checks the serve rows against what the simulator recorded it did:
// below saturation the achieved rate within 1% of the asked one, TTFT
// and TBT p50/p90/p99 within 2% of the simulator's (or 1 ms, or the
// client's own send-lag p99 when a loaded machine starves it), goodput's count of
// good requests exact against the simulator's record; above
// saturation the queue shows in TTFT.
func TestServeAgainstSimTruth(t *testing.T) {
	if testing.Short() {
		t.Skip("open-loop loads take about 20 s")
	}
	srv, c := startSim(t, serveProfile(), ClientConfig{MaxConns: 256})
	in, _ := ParseLengths("uniform:64-2048")
	var truths []simServe
	var chosen []SLO
	r, err := New(c, Config{
		Duration: 10 * time.Second,
		Serve: &ServeConfig{
			Rates: []float64{10, 60}, Arrival: ArrivalConstant, Seed: 7,
			Input: in, Output: Fixed(16), Requests: 100, SLO: SLO{TTFT: time.Hour},
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	srv.Reset()
	r.onLoad = func(res *loadRun) {
		// The simulator records a request's end after its last write, so
		// the client may see the end first: wait for every record.
		tr := simServeTruth(srv.Requests())
		for deadline := time.Now().Add(5 * time.Second); len(tr.ttft) < res.sent && time.Now().Before(deadline); {
			time.Sleep(10 * time.Millisecond)
			tr = simServeTruth(srv.Requests())
		}
		srv.Reset()
		truths = append(truths, tr)
		// The goodput bound. Below saturation, bounds every request
		// meets: goodput counts the completed requests. Above it, the
		// TTFT bound goes in the widest gap of the simulator's TTFTs and
		// the client's together, between their 10th and 90th
		// percentiles: queued requests' TTFTs grow by tens of
		// milliseconds from one to the next, far more than a request's
		// two views of its TTFT differ (the loopback and the machine's
		// scheduling: up to a few milliseconds here), so no request
		// straddles the bound and the counts must agree exactly.
		if len(truths) == 1 {
			r.cfg.Serve.SLO = SLO{TTFT: time.Minute, TBT: time.Second, E2E: time.Minute}
			chosen = append(chosen, r.cfg.Serve.SLO)
			return
		}
		both := slices.Clone(tr.ttft)
		for _, q := range res.recs {
			if q.first >= 0 {
				both = append(both, float64(q.first-q.sent)/1e6)
			}
		}
		mid, gap := widestGap(both)
		if gap < 10 {
			t.Errorf("load %d: the TTFTs leave no gap of 10 ms between their 10th and 90th percentiles (widest %.3f ms)", len(truths), gap)
		}
		r.cfg.Serve.SLO = SLO{TTFT: time.Duration(mid * 1e6), TBT: time.Second, E2E: time.Minute}
		chosen = append(chosen, r.cfg.Serve.SLO)
	}
	lag := testtool.StartSchedLag()
	m, err := r.Run(context.Background())
	_, _, lagMax := lag.End()
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Measurements) != 2 || len(truths) != 2 {
		t.Fatalf("%d rows, %d loads, want 2", len(m.Measurements), len(truths))
	}
	pct := func(xs []float64, q float64) float64 {
		s := slices.Clone(xs)
		sort.Float64s(s)
		return quantile(s, q)
	}
	for k, x := range m.Measurements {
		tr := truths[k]
		if x.Phase != schema.PhaseServe || x.Status != schema.StatusValid || x.RequestRate == nil || x.Concurrency != nil {
			t.Fatalf("row %d: %+v", k, x)
		}
		extra := map[string]float64{}
		for _, e := range x.Extra {
			extra[e.Name] = e.Value
		}
		t.Logf("rate %v: achieved %v/s, ttft p50 %v p99 %v ms, tbt p50 %v ms, goodput %v/s, late %v, lag p99 %v ms, in flight avg %v max %v",
			*x.RequestRate, extra["achieved_request_rate"], *x.TTFTP50Ms, *x.TTFTP99Ms, *x.TBTP50Ms, deref(x.GoodputReqS), extra["late_requests"], extra["send_lag_p99_ms"], *x.AvgActiveRequests, extra["max_active_requests"])
		if got := *x.CompletedRequests; got != 100 || int(got) != len(tr.ttft) {
			t.Errorf("rate %v: %d completed, simulator %d, want 100", *x.RequestRate, got, len(tr.ttft))
		}
		// Goodput: the count of good requests, exactly.
		good := 0
		for i := range tr.ttft {
			if chosen[k].meets(tr.ttft[i], -1, tr.e2e[i]) { // every TBT is far below its bound of a second
				good++
			}
		}
		if got := math.Round(*x.GoodputReqS * *x.MeasuredS); int(got) != good {
			t.Errorf("rate %v: goodput × duration = %v good requests, the simulator's record says %d (SLO %v)", *x.RequestRate, got, good, chosen[k])
		}
		if k == 1 {
			continue
		}
		// Below saturation. The achieved rate is (sent−1) over the first
		// to the last send; each send may be late by up to the run's own
		// measured send-lag max, which stretches or shrinks that span by
		// at most the lag (at load 20 on 2 cores, hundreds of
		// milliseconds against the 9.9 s span): beyond 1% and that, the
		// schedule is wrong. The simulator records a request's start
		// once its handler has read the body: later again by up to the
		// process's scheduling lag (testtool.SchedLag's max).
		span := 99 / 10.0
		sendLag := extra["send_lag_max_ms"] / 1e3
		rateOK := func(a, lag float64) bool { return a >= 0.99*99/(span+lag) && a <= 1.01*99/max(span-lag, 1e-9) }
		if a := extra["achieved_request_rate"]; !rateOK(a, sendLag) {
			t.Errorf("achieved rate %v, want 10 within 1%% and the send-lag max %v s", a, sendLag)
		}
		// The simulator's arrival times give the same rate.
		simRate := float64(len(tr.start)-1) / tr.start[len(tr.start)-1].Sub(tr.start[0]).Seconds()
		if !rateOK(simRate, sendLag+lagMax.Seconds()) {
			t.Errorf("the simulator saw %v requests/s, want 10 within 1%% and the send-lag max %v s plus the scheduling lag %v", simRate, sendLag, lagMax)
		}
		// A client starved of CPU reads a byte late by as much as it
		// hands a request over late; the run measures that itself (its
		// send-lag p99, a fraction of a millisecond on a quiet machine,
		// tens of milliseconds under a full test suite on 2 loaded
		// cores). One late read moves the p99 of 100 TTFTs by that much,
		// so a TTFT may differ by the larger of 2% and that lag. A TBT
		// is the gap between two reads, either of which may be late by
		// as much: one late read lengthens one gap and shortens the next
		// (at load 44 on 2 cores the client's TBT p99 was 32.2 ms against
		// the simulator's 34.7), so a TBT may differ by that lag too. A
		// client that mis-stamps or mis-splits its tokens is off by a
		// whole decode step (~30 ms here) or a share of all TBTs, not by
		// the lag it measured itself.
		slack := max(1, extra["send_lag_p99_ms"])
		for _, q := range []struct {
			name string
			got  *float64
			xs   []float64
			p    float64
			abs  float64
		}{
			{"ttft p50", x.TTFTP50Ms, tr.ttft, 0.5, slack}, {"ttft p90", x.TTFTP90Ms, tr.ttft, 0.9, slack}, {"ttft p99", x.TTFTP99Ms, tr.ttft, 0.99, slack},
			{"tbt p50", x.TBTP50Ms, tr.tbt, 0.5, slack}, {"tbt p90", x.TBTP90Ms, tr.tbt, 0.9, slack}, {"tbt p99", x.TBTP99Ms, tr.tbt, 0.99, slack},
		} {
			want := pct(q.xs, q.p)
			if q.got == nil || !within(*q.got, want, 0.02, q.abs) {
				t.Errorf("%s = %v ms, the simulator's %.4f ms: not within 2%% (or %.3g ms)", q.name, deref(q.got), want, q.abs)
			}
		}
	}
	// Above saturation (60/s against about 30/s of capacity) requests
	// queue: TTFT grows far past the prefill the unloaded rate shows.
	// A late read lengthens the unloaded rate's TTFTs by up to the
	// scheduling lag; queueing lengthens the saturated rate's by far more
	// (about a second at the median here).
	lo, hi := m.Measurements[0], m.Measurements[1]
	slow := float64(lagMax) / 1e6
	if *hi.TTFTP99Ms < 5*(*lo.TTFTP99Ms-slow) || *hi.TTFTP50Ms < 3*(*lo.TTFTP50Ms-slow) {
		t.Errorf("above saturation TTFT p50 %v p99 %v ms, below %v and %v: no queueing seen", *hi.TTFTP50Ms, *hi.TTFTP99Ms, *lo.TTFTP50Ms, *lo.TTFTP99Ms)
	}
	if *hi.RequestThroughput > 0.8*60 {
		t.Errorf("above saturation %v requests/s completed of 60 asked: the simulator did not saturate", *hi.RequestThroughput)
	}
}

// TestServeSweep runs a sweep against the simulator: a synchronous probe
// (one stream), a saturation probe (8 streams), then rates spread up to
// the saturation
// rate, each a row of its own.
func TestServeSweep(t *testing.T) {
	if testing.Short() {
		t.Skip("five loads take several seconds")
	}
	_, c := startSim(t, serveProfile(), ClientConfig{MaxConns: 64})
	r, err := New(c, Config{Serve: &ServeConfig{Sweep: 3, ProbeConcurrency: 8, Requests: 24, Input: Fixed(256), Output: Fixed(8), Seed: 3}})
	if err != nil {
		t.Fatal(err)
	}
	m, err := r.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Measurements) != 5 {
		t.Fatalf("%d rows, want 5", len(m.Measurements))
	}
	syncRow, sat := m.Measurements[0], m.Measurements[1]
	if syncRow.Concurrency == nil || *syncRow.Concurrency != 1 || syncRow.RequestRate != nil {
		t.Errorf("synchronous row: %+v", syncRow)
	}
	if sat.Concurrency == nil || *sat.Concurrency != 8 || sat.RequestRate != nil {
		t.Errorf("saturation row: %+v", sat)
	}
	lo, hi := *syncRow.RequestThroughput, *sat.RequestThroughput
	if hi < 2*lo {
		t.Errorf("saturation %v requests/s, synchronous %v: 8 streams of a 4-slot server should more than double it", hi, lo)
	}
	prev := lo
	for k, x := range m.Measurements[2:] {
		if x.RequestRate == nil || x.Concurrency != nil || *x.RequestRate <= prev {
			t.Errorf("rate row %d: %+v", k, x)
			continue
		}
		prev = *x.RequestRate
		if want := lo + (hi-lo)*float64(k+1)/3; !within(*x.RequestRate, want, 1e-3, 0) {
			t.Errorf("rate %d = %v, want %v", k, *x.RequestRate, want)
		}
	}
	if got := m.Run.RunID; got == "" || m.Measurements[4].RunID != got {
		t.Errorf("run id %q not on the rows", got)
	}
}

// TestServeSweepFlatServer: a server whose throughput does not rise with
// streams (here the saturation probe's requests are served one at a
// time, each 40 ms late, so 8 streams measure less than one) still gets a
// sweep of distinct rates, spread up to the higher probe's rate, and the
// run says why. Before, every rate was the synchronous rate (the sweep
// ran one rate n times) and the document did not read back.
func TestServeSweepFlatServer(t *testing.T) {
	var one sync.Mutex
	_, c := startFaulty(t, fastProfile(), func(f *faulty, w http.ResponseWriter, r *http.Request) bool {
		if strings.Contains(r.Header.Get(RequestIDHeader), "-"+ServeRequestLabel(0, 8)+"-") {
			one.Lock()
			defer one.Unlock()
			time.Sleep(40 * time.Millisecond)
		}
		return false
	})
	r, err := New(c, Config{Serve: &ServeConfig{Sweep: 3, ProbeConcurrency: 8, Requests: 16, Input: Fixed(256), Output: Fixed(8), Seed: 3}})
	if err != nil {
		t.Fatal(err)
	}
	m, err := r.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Measurements) != 5 {
		t.Fatalf("%d rows, want 5", len(m.Measurements))
	}
	lo, hi := *m.Measurements[0].RequestThroughput, *m.Measurements[1].RequestThroughput
	if hi >= lo {
		t.Fatalf("saturation probe %v requests/s, synchronous %v: the test wants it lower", hi, lo)
	}
	prev := 0.0
	for k, x := range m.Measurements[2:] {
		if x.RequestRate == nil || *x.RequestRate <= prev {
			t.Fatalf("rate row %d: %v after %v, want ascending distinct rates", k, x.RequestRate, prev)
		}
		prev = *x.RequestRate
	}
	if want := roundSig(lo, 4); prev != want {
		t.Errorf("last rate %v, want the synchronous rate %v", prev, want)
	}
	if v := metadataValue(m, "Sweep"); !strings.Contains(v, "spread from 0") {
		t.Errorf("sweep metadata %q", v)
	}
}

func TestSweepRates(t *testing.T) {
	tests := []struct {
		lo, hi float64
		n      int
		want   []float64
	}{
		{1, 11, 5, []float64{3, 5, 7, 9, 11}},
		{47.64, 47.64, 5, []float64{9.528, 19.06, 28.58, 38.11, 47.64}},
		{47.64, 31.2, 5, []float64{9.528, 19.06, 28.58, 38.11, 47.64}},
		{47.64, 50, 2, []float64{25, 50}},
		{1e-9, 1e-9, 3, []float64{3.333e-10, 6.667e-10, 1e-9}},
		{5, 5.001, 3, []float64{1.667, 3.334, 5.001}},
	}
	for _, tc := range tests {
		got, how := sweepRates(tc.lo, tc.hi, tc.n, 16)
		if fmt.Sprint(got) != fmt.Sprint(tc.want) || how == "" {
			t.Errorf("sweepRates(%v, %v, %d) = %v (%s), want %v", tc.lo, tc.hi, tc.n, got, how, tc.want)
		}
	}
}

// TestServeResumeSweep: a sweep interrupted after its two probes resumes
// from their checkpointed rows: the probes are not measured again, the
// rates are planned from their rows, and the metadata is written once.
func TestServeResumeSweep(t *testing.T) {
	_, c := startSim(t, fastProfile(), ClientConfig{MaxConns: 16})
	sc := func() *ServeConfig {
		return &ServeConfig{Sweep: 2, ProbeConcurrency: 4, Requests: 8, Input: Fixed(256), Output: Fixed(8), Seed: 5}
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var saved *schema.Matrix
	r, err := New(c, Config{Serve: sc(), Tag: "0badc0de", Checkpoint: func(m *schema.Matrix) error {
		b, _ := json.Marshal(m)
		saved = &schema.Matrix{}
		json.Unmarshal(b, saved)
		if len(m.Measurements) == 2 {
			cancel()
		}
		return nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Run(ctx); err == nil {
		t.Fatal("the interrupted sweep returned no error")
	}
	if saved == nil || len(saved.Measurements) != 2 {
		t.Fatalf("checkpoint %+v, want the two probes", saved)
	}
	r, err = New(c, Config{Serve: sc(), Tag: "0badc0de", Done: saved})
	if err != nil {
		t.Fatal(err)
	}
	var loads []string
	r.onLoad = func(l *loadRun) { loads = append(loads, fmt.Sprint(len(l.recs))) }
	m, err := r.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(loads) != 2 || len(m.Measurements) != 4 {
		t.Fatalf("resumed: %d loads measured, %d rows; want 2 and 4", len(loads), len(m.Measurements))
	}
	lo, hi := *saved.Measurements[0].RequestThroughput, *saved.Measurements[1].RequestThroughput
	want, _ := sweepRates(lo, hi, 2, 4)
	for k, x := range m.Measurements[2:] {
		if x.RequestRate == nil || *x.RequestRate != want[k] {
			t.Errorf("rate %d: %v, want %v", k, x.RequestRate, want[k])
		}
	}
	n := 0
	for _, f := range m.Run.Metadata {
		if f.Key == "Sweep" {
			n++
		}
	}
	if n != 1 {
		t.Errorf("%d Sweep facts in %v", n, m.Run.Metadata)
	}
}

// TestServeSweepProbesFail: a server that fails every request of a
// sweep's probes leaves no rates to plan; the run still returns the
// probes' rows (errors, with their reasons) and says why no rate was
// run. Before, the run ended with an error and the rows were lost.
func TestServeSweepProbesFail(t *testing.T) {
	_, c := startFaulty(t, fastProfile(), func(f *faulty, w http.ResponseWriter, r *http.Request) bool {
		if strings.Contains(r.Header.Get(RequestIDHeader), "-serve-") {
			http.Error(w, `{"error":{"message":"overloaded"}}`, http.StatusServiceUnavailable)
			return true
		}
		return false
	})
	r, err := New(c, Config{Serve: &ServeConfig{Sweep: 3, ProbeConcurrency: 4, Requests: 4, Input: Fixed(256), Output: Fixed(8), Seed: 3}})
	if err != nil {
		t.Fatal(err)
	}
	m, err := r.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Measurements) != 2 || m.Measurements[0].Status != schema.StatusError || !strings.Contains(m.Measurements[1].StatusReason, "overloaded") {
		t.Fatalf("rows %+v", m.Measurements)
	}
	if v := metadataValue(m, "Sweep"); !strings.Contains(v, "not run: the probes measured no request throughput") {
		t.Errorf("sweep metadata %q", v)
	}
}
