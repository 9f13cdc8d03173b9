package runner

import (
	"context"
	"time"
)

// clockKind chooses how an open-loop load waits for its send times.
type clockKind int

const (
	// clockTimer is the default: it parks on a runtime timer, whose
	// wake-up can be a millisecond late when every P is idle (see
	// sendclock_linux.go).
	//
	// Note: the timerfd clock (clockPrecise) wakes about ten times closer
	// to its time when measured alone (BenchmarkSendClock), but with
	// requests on a quiet machine (load average 0.7–3.7, 2026-12-03,
	// `go test ./runner -run '^$' -bench OpenLoopSendLag -benchtime 3x
	// -count 3`, the clocks interleaved) its send-lag p99 was 1.9–5.9 ms
	// in the same process against the timer's 1.2–2.2 ms (one outlier
	// line: 74), and its p50 0.10–0.14 ms against 0.07–0.09: its extra
	// wake-up per request costs more than the rounding it saves.
	clockTimer clockKind = iota
	// clockPrecise waits on the most precise clock the platform has (a
	// timerfd through the runtime's poller on Linux), the runtime timer
	// elsewhere; kept for the benchmark's comparison.
	clockPrecise
	// clockSleep is a hybrid kept for the benchmark's comparison: a
	// runtime timer until 1.2 ms before the send time, then
	// clock_nanosleep (Linux; the timer elsewhere).
	clockSleep
)

// String names the kind as the send-lag benchmark prints it.
func (k clockKind) String() string {
	switch k {
	case clockPrecise:
		return "precise"
	case clockSleep:
		return "sleep"
	}
	return "timer"
}

// sendClock waits for the send times of one load, epoch-relative.
type sendClock interface {
	// until returns at epoch+at (ns), or false when the load's context
	// ended first.
	until(at int64) bool
	// close releases what the clock holds.
	close()
}

// newSendClock returns the clock of kind for a load that starts at epoch
// and stops with ctx; a precise clock the system refuses falls back to
// the timer.
func newSendClock(ctx context.Context, epoch time.Time, kind clockKind) sendClock {
	switch kind {
	case clockPrecise:
		if c, err := newPreciseClock(ctx, epoch); err == nil {
			return c
		}
	case clockSleep:
		if c, err := newSleepClock(ctx, epoch); err == nil {
			return c
		}
	}
	return &timerClock{ctx: ctx, epoch: epoch}
}

// timerClock waits on a runtime timer.
type timerClock struct {
	ctx   context.Context
	epoch time.Time
}

func (c *timerClock) until(at int64) bool {
	d := time.Until(c.epoch.Add(time.Duration(at)))
	if d <= 0 {
		return c.ctx.Err() == nil
	}
	t := time.NewTimer(d)
	select {
	case <-t.C:
		return true
	case <-c.ctx.Done():
		t.Stop()
		return false
	}
}

func (c *timerClock) close() {}
