package runner

import (
	"context"
	"time"
)

// clockKind chooses how an open-loop load waits for its send times.
type clockKind int

const (
	// clockPrecise is the default: the most precise clock the platform
	// has (a timerfd through the runtime's poller on Linux), the runtime
	// timer elsewhere.
	clockPrecise clockKind = iota
	// clockTimer parks on a runtime timer, whose wake-up can be a
	// millisecond late when every P is idle (see sendclock_linux.go).
	clockTimer
	// clockSleep is a hybrid kept for the benchmark's comparison: a
	// runtime timer until 1.2 ms before the send time, then
	// clock_nanosleep (Linux; the timer elsewhere).
	clockSleep
)

// String names the kind as the send-lag benchmark prints it.
func (k clockKind) String() string {
	switch k {
	case clockTimer:
		return "timer"
	case clockSleep:
		return "sleep"
	}
	return "precise"
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
