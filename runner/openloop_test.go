package runner

import (
	"context"
	"testing"
	"time"

	"speedmatrix/internal/testtool"
	"speedmatrix/runner/sim"
)

// TestRunLoad drives the scheduler directly against the simulator: an
// open-loop load sends every request at its time (whatever the server
// does: here each takes 400 ms, so four overlap), a drain bound cuts the
// requests still streaming, and a closed loop keeps its streams busy.
func TestRunLoad(t *testing.T) {
	p := sim.DefaultProfile()
	p.StepBase, p.StepPerSeq, p.StepPerKToken = 10*time.Millisecond, 0, 0
	_, c := startSim(t, p, ClientConfig{MaxConns: 64})
	short := c.completionBody("hello", 40) // 40 steps: 400 ms
	long := c.completionBody("hello", 1000)
	base := loadConfig{label: "t", maxInFlight: 64, header: time.Minute, idle: time.Minute, drain: time.Minute}

	t.Run("open loop", func(t *testing.T) {
		cfg := base
		cfg.at = schedule(ArrivalConstant, 10, 8, 0, nil) // every 100 ms
		cfg.body = func(int) ([]byte, int64) { return short, 0 }
		lag := testtool.StartSchedLag()
		res := c.runLoad(context.Background(), cfg)
		_, _, lagMax := lag.End()
		if res.sent != 8 || res.stoppedAt >= 0 || res.interrupted {
			t.Fatalf("sent %d, stopped at %d, interrupted %v", res.sent, res.stoppedAt, res.interrupted)
		}
		for i, q := range res.recs {
			want := cfg.at[i]
			if !q.done || q.tokens != 40 || q.seq != i {
				t.Errorf("request %d: done %v, %d tokens, seq %d", i, q.done, q.tokens, q.seq)
			}
			// Sent by the clock, its lag recorded, and while the
			// previous request was still streaming (a sender waiting for
			// completions would start each 300 ms late); the lag itself
			// is a benchmark's business (BenchmarkOpenLoopSendLag), not a
			// unit test's on a shared machine.
			if lag := q.start - want; lag < 0 || lag != res.lag[i] {
				t.Errorf("request %d: started %v after its time, lag recorded %v", i, time.Duration(q.start-want), time.Duration(res.lag[i]))
			}
			// A request sent after the previous one ended is a sender that
			// waited for it, unless the machine made it that late: its
			// recorded lag is then within what the process's scheduling
			// lag (testtool.SchedLag) explains. A waiting sender is late
			// by 300 ms more with each request.
			if i > 0 && q.start >= res.recs[i-1].end && time.Duration(res.lag[i]) > 2*lagMax+10*time.Millisecond {
				t.Errorf("request %d started at %v, %v late, after request %d ended (%v): not open loop (scheduling lag max %v)",
					i, time.Duration(q.start), time.Duration(res.lag[i]), i-1, time.Duration(res.recs[i-1].end), lagMax)
			}
		}
		f := figuresOf(&res, SLO{}, false)
		if f.inFlight.max < 4 {
			t.Errorf("at most %d requests in flight, want 4 (400 ms each, one every 100 ms)", f.inFlight.max)
		}
	})
	t.Run("drain cuts", func(t *testing.T) {
		cfg := base
		cfg.at = schedule(ArrivalConstant, 10, 3, 0, nil)
		cfg.body = func(int) ([]byte, int64) { return long, 0 } // 10 s each
		cfg.drain = 300 * time.Millisecond
		res := c.runLoad(context.Background(), cfg)
		if res.sent != 3 || res.stoppedAt < 0 {
			t.Fatalf("sent %d, stopped at %d", res.sent, res.stoppedAt)
		}
		f := figuresOf(&res, SLO{}, false)
		if f.incomplete != 3 || f.completed != 0 || f.errored != 0 || f.outTokens == 0 {
			t.Errorf("incomplete %d, completed %d, errored %d, tokens %d; want 3 cut with their tokens", f.incomplete, f.completed, f.errored, f.outTokens)
		}
	})
	t.Run("closed loop", func(t *testing.T) {
		cfg := base
		cfg.n, cfg.concurrency = 6, 2
		cfg.body = func(int) ([]byte, int64) { return short, 0 }
		res := c.runLoad(context.Background(), cfg)
		f := figuresOf(&res, SLO{}, false)
		if res.sent != 6 || f.completed != 6 || f.inFlight.max != 2 {
			t.Errorf("sent %d, completed %d, at most %d in flight; want 6, 6 and 2", res.sent, f.completed, f.inFlight.max)
		}
	})
	t.Run("stop", func(t *testing.T) {
		cfg := base
		cfg.at = schedule(ArrivalConstant, 1, 10, 0, nil) // one a second
		cfg.body = func(int) ([]byte, int64) { return short, 0 }
		ctx, cancel := context.WithTimeout(context.Background(), 1500*time.Millisecond)
		defer cancel()
		began := time.Now()
		res := c.runLoad(ctx, cfg)
		if !res.interrupted || res.sent != 2 || time.Since(began) > 3*time.Second {
			t.Errorf("interrupted %v, sent %d, took %v; want the stop seen at once after 2 requests", res.interrupted, res.sent, time.Since(began))
		}
	})
}
