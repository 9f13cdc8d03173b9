package runner

import (
	"context"
	"fmt"
	"math"
	"sort"
	"strings"
	"testing"
	"time"

	"speedmatrix/internal/testtool"
	"speedmatrix/runner/sim"
	"speedmatrix/schema"
)

// startSim starts a simulator with p and a client for it.
func startSim(t testing.TB, p sim.Profile, cfg ClientConfig) (*sim.Server, *Client) {
	t.Helper()
	srv, url, err := sim.Start(p)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	cfg.URL = url
	if cfg.Model == "" {
		cfg.Model = p.ModelName
	}
	if cfg.MaxConns == 0 {
		cfg.MaxConns = 64
	}
	c, err := NewClient(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return srv, c
}

// truthFigures recomputes a cell's figures from the simulator's records
// of what it sent and when, with the same window and formulas.
type truth struct {
	tokens     int64
	perRequest float64
	ttft, tbt  float64
}

func simTruth(recs []sim.RequestRecord, epoch time.Time, ws, we int64) truth {
	var tr truth
	var rates, ttfts, tbts []float64
	for _, r := range recs {
		if r.Fault != "" || r.MaxTokens <= 1 {
			continue
		}
		start := int64(r.Start.Sub(epoch))
		if start >= we {
			continue
		}
		if !r.FirstToken.IsZero() && int64(r.FirstToken.Sub(epoch)) < we {
			ttfts = append(ttfts, float64(r.FirstToken.Sub(r.Start))/1e6)
		}
		var cum, before, firstCum, lastCum int64
		firstT, lastT := int64(-1), int64(-1)
		for _, c := range r.Chunks {
			t := int64(c.At.Sub(epoch))
			cum += int64(c.Tokens)
			if t < ws {
				before = cum
				continue
			}
			if t >= we {
				break
			}
			if firstT < 0 {
				firstT, firstCum = t, cum
			}
			lastT, lastCum = t, cum
		}
		if firstT < 0 {
			continue
		}
		tr.tokens += lastCum - before
		if steps := lastCum - firstCum; steps > 0 && lastT > firstT {
			tbt := float64(lastT-firstT) / 1e6 / float64(steps)
			tbts = append(tbts, tbt)
			rates = append(rates, 1000/tbt)
		}
	}
	tr.perRequest = median(rates)
	tr.ttft = median(ttfts)
	tr.tbt = median(tbts)
	return tr
}

// edgeTokens returns the tokens the simulator sent within lag of the
// window's start or end: those a reader late by up to lag may count on the
// other side of the edge.
func edgeTokens(recs []sim.RequestRecord, epoch time.Time, ws, we, lag int64) int64 {
	var n int64
	for _, r := range recs {
		if r.Fault != "" || r.MaxTokens <= 1 {
			continue
		}
		for _, c := range r.Chunks {
			t := int64(c.At.Sub(epoch))
			if (t >= ws-lag && t < ws+lag) || (t >= we-lag && t < we+lag) {
				n += int64(c.Tokens)
			}
		}
	}
	return n
}

func within(got, want, rel, abs float64) bool {
	return math.Abs(got-want) <= math.Max(rel*math.Abs(want), abs)
}

// TestCellAgainstSimTruth runs decode cells against the simulator and
// compares the client's figures with what the simulator recorded it did:
// total tok/s within 1%, TTFT and TBT medians within 2% (or 1 ms),
// per-request tok/s within 2%, window tokens exact.
func TestCellAgainstSimTruth(t *testing.T) {
	tests := []struct {
		name    string
		mod     func(p *sim.Profile)
		noCont  bool // no continuous_usage_stats: count chunks, correct by final usage
		c       int
		maxTok  int
		exactOK bool
		// approx: without continuous usage the tokens of requests still
		// in flight at the window's end are estimated (chunks × the
		// cell's tokens per chunk; the simulator merges steps into one
		// chunk at random when its writer falls behind), so counts and
		// total tok/s are checked to 2%.
		approx bool
		// rateOnly checks tokens and total tok/s only: with 64 streams
		// and the simulator in one process on a shared 2-core machine,
		// the simulator's own HTTP handling queues for CPU, which moves
		// its recorded request start (after reading the body) away from
		// the client's; latencies are logged, not asserted.
		rateOnly bool
	}{
		{name: "1 token per chunk, C=4", c: 4, maxTok: 400, exactOK: true},
		{name: "3-token chunks, C=8", mod: func(p *sim.Profile) { p.ChunkTokens = 3 }, c: 8, maxTok: 300, exactOK: true},
		{name: "reasoning deltas, C=4", mod: func(p *sim.Profile) { p.Reasoning = true; p.ReasoningTokens = 50 }, c: 4, maxTok: 300, exactOK: true},
		{name: "reasoning field 'reasoning', 3-token chunks", mod: func(p *sim.Profile) {
			p.Reasoning, p.ReasoningTokens, p.ReasoningField, p.ChunkTokens = true, 60, "reasoning", 3
		}, c: 2, maxTok: 300, exactOK: true},
		{name: "no continuous usage, 1 token per chunk", noCont: true, c: 4, maxTok: 300, approx: true},
		{name: "no continuous usage, 3-token chunks", mod: func(p *sim.Profile) { p.ChunkTokens = 3 }, noCont: true, c: 4, maxTok: 300, approx: true},
		{name: "C=64", c: 64, maxTok: 200, exactOK: true, rateOnly: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// A cell measured while other processes starve this one (the
			// simulator shares the process and the 2 cores) can miss by a
			// scheduling delay; an attempt must meet every bound, and the
			// cell is measured up to three times before the test fails.
			var last []string
			for attempt := 1; attempt <= 3; attempt++ {
				var errs []string
				fail := func(format string, args ...any) { errs = append(errs, fmt.Sprintf(format, args...)) }
				func() {
					p := sim.DefaultProfile()
					p.StepBase = 2 * time.Millisecond
					if tt.mod != nil {
						tt.mod(&p)
					}
					srv, c := startSim(t, p, ClientConfig{MaxConns: tt.c})
					c.contUsage = !tt.noCont
					prompt := Prompt{Text: promptHead(NewTag(), "1K") + neutralText(newRand(1), 4000)}
					pool := make([]*stream, tt.c)
					for i := range pool {
						pool[i] = newStream()
					}
					cfg := cellConfig{prompt: prompt, concurrency: tt.c, duration: 1500 * time.Millisecond, maxTokens: tt.maxTok,
						idle: 10 * time.Second, startTimeout: 20 * time.Second, metrics: true, maxConsecutiveErrors: 8}
					// The scout warms the prefix cache, as the runner does.
					if sc := c.probe(context.Background(), prompt.Text); sc.failed() {
						t.Fatal(sc.err)
					}
					lag := testtool.StartSchedLag()
					run := c.runCell(context.Background(), cfg, pool)
					_, L90, L := lag.End()
					if run.ws < 0 || run.errReason != "" {
						t.Fatalf("cell did not run: %q", run.errReason)
					}
					f := figures(&run, true)
					var m schema.Measurement
					f.fill(&m)
					tr := simTruth(srv.Requests(), run.epoch, run.ws, run.we)
					// Slack for the machine's load, from what this cell
					// measured: a client read (or a simulator write, both in
					// this process) can be late by the largest scheduling
					// overrun L seen during the cell, which moves the tokens
					// the server sent within L of a window edge across it.
					// The medians (TTFT, TBT, per-request rate) move by a
					// typical delay, not the worst: a TTFT by up to 2×L90
					// (the request's way in, the first token's way out; L90
					// the overruns' 90th percentile), a request's in-window
					// span by up to 2×L90 at its two ends. On a quiet machine
					// both are tens of microseconds and the bounds are the
					// plain 1%/2%/1 ms.
					edge := edgeTokens(srv.Requests(), run.epoch, run.ws, run.we, int64(L))
					lagMs := 2 * float64(L90) / 1e6
					spanRel := 2 * float64(L90) / float64(run.we-run.ws)
					t.Logf("client: %d tokens %.1f tok/s, per-request %.1f, TTFT %.2f ms, TBT %.3f ms; truth: %d tokens, per-request %.1f, TTFT %.2f, TBT %.3f; scheduling lag p90 %v max %v (%d tokens sent within it of an edge)",
						f.tokens, f.totalTokS, *m.PerRequestTokS, *m.TTFTMs, *m.TBTMs, tr.tokens, tr.perRequest, tr.ttft, tr.tbt, L90, L, edge)
					if tt.exactOK && f.tokens != tr.tokens {
						// Chunks within microseconds of a window edge can fall on
						// the other side; allow one chunk per stream at each edge.
						if d := math.Abs(float64(f.tokens - tr.tokens)); d > float64(2*tt.c*p.ChunkTokens)+float64(edge) {
							fail("window tokens %d, truth %d", f.tokens, tr.tokens)
						}
					}
					if tt.approx && !within(float64(f.tokens), float64(tr.tokens), 0.02, float64(edge)) {
						fail("window tokens %d, truth %d (want within 2%%)", f.tokens, tr.tokens)
					}
					truthTokS := float64(tr.tokens) / f.seconds
					tol := 0.01
					if tt.approx {
						tol = 0.02
					}
					if !within(f.totalTokS, truthTokS, tol, float64(edge)/f.seconds) {
						fail("total tok/s %.2f, truth %.2f", f.totalTokS, truthTokS)
					}
					if tt.rateOnly {
						return
					}
					if !within(*m.PerRequestTokS, tr.perRequest, 0.02+spanRel, 0) {
						fail("per-request tok/s %.2f, truth %.2f", *m.PerRequestTokS, tr.perRequest)
					}
					if !within(*m.TTFTMs, tr.ttft, 0.02, max(1, lagMs)) {
						fail("TTFT %.3f ms, truth %.3f", *m.TTFTMs, tr.ttft)
					}
					if !within(*m.TBTMs, tr.tbt, 0.02+spanRel, 1) {
						fail("TBT %.3f ms, truth %.3f", *m.TBTMs, tr.tbt)
					}
					// Every finished request's token count is exact.
					bySeq := map[int64]int64{}
					for _, r := range srv.Requests() {
						if r.Err == "" && !r.Finished.IsZero() && r.MaxTokens > 1 {
							bySeq[r.OutputTokens]++
						}
					}
					var got []int64
					for _, q := range run.recs {
						if q.done {
							got = append(got, q.tokens)
						}
					}
					sort.Slice(got, func(i, j int) bool { return got[i] < got[j] })
					for _, n := range got {
						if n != int64(tt.maxTok) {
							fail("finished request has %d tokens, want max_tokens %d (ignore_eos)", n, tt.maxTok)
							break
						}
					}
					if bySeq[int64(tt.maxTok)] < int64(len(got)) {
						fail("client saw %d finished requests of %d tokens, simulator %d", len(got), tt.maxTok, bySeq[int64(tt.maxTok)])
					}
				}()
				if len(errs) == 0 {
					return
				}
				t.Logf("attempt %d: %s", attempt, strings.Join(errs, "; "))
				last = errs
			}
			for _, e := range last {
				t.Error(e)
			}
		})
	}
}
