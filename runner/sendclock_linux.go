//go:build linux

package runner

import (
	"context"
	"fmt"
	"os"
	"time"

	"golang.org/x/sys/unix"
)

// Note: a runtime timer fires late by up to a millisecond when every P
// is idle: the thread that waits for work blocks in epoll_pwait, whose
// timeout is in whole milliseconds, and netpoll (runtime/netpoll_epoll.go,
// Go 1.26) rounds a wait under 1 ms up to 1 ms and truncates a longer one
// to whole ms. At 2,000 requests/s the gaps are 0.5 ms on average, so the
// send lag's p99 sat at about 1 ms. preciseClock arms a timerfd
// (CLOCK_MONOTONIC, absolute, an hrtimer without the task's timer slack)
// and reads it through the runtime's poller: the expiry makes epoll_pwait
// return at once, the dispatcher runs, and no thread sleeps holding a P
// (a locked thread in clock_nanosleep does, so the request goroutine it
// starts waits for another P to steal it). A Go timer set for the same
// instant races it: when both Ps are busy the poller is read only between
// goroutines, while timers are checked at every schedule, so the clock
// wakes at whichever comes first. Measured by BenchmarkSendClock (the
// clocks alone: median lateness 0.04 ms against the timer's 0.55–0.6 ms,
// for 25–45 µs more CPU per wait, one wake-up per request where the
// late timer serves several) and BenchmarkOpenLoopSendLag (with
// requests). Also measured, and not kept: yielding in a loop for the
// last 1.5 ms (each yield queues the dispatcher behind every runnable
// goroutine, and it takes a core from the server: twice the p99), and
// clock_nanosleep on a locked thread (the request goroutine it starts
// waits for sysmon to take back the P the sleeping thread holds: up to
// 10 ms). sleepClock, the hybrid of a timer and clock_nanosleep on an
// unlocked thread, is kept for the benchmarks' comparison only. A timer
// plus a timerfd nobody reads, armed just after each send time to wake
// an idle poller (branch sendclock-kick), was ten times closer alone and
// no better with requests (README, "Send lag"), so it is not here.

// preciseClock waits on a timerfd read through the runtime's poller, with
// a runtime timer as its backstop.
type preciseClock struct {
	ctx   context.Context
	epoch time.Time
	f     *os.File
	fd    int
	mono0 int64 // CLOCK_MONOTONIC at epoch, ns
	buf   [8]byte
	stop  func() bool
	// backstop sets a past read deadline: a runtime timer reset for
	// every wait, so it races the timerfd.
	backstop *time.Timer
}

// newPreciseClock opens the timerfd of a load that starts at epoch.
func newPreciseClock(ctx context.Context, epoch time.Time) (sendClock, error) {
	fd, err := unix.TimerfdCreate(unix.CLOCK_MONOTONIC, unix.TFD_NONBLOCK|unix.TFD_CLOEXEC)
	if err != nil {
		return nil, fmt.Errorf("timerfd_create: %w", err)
	}
	f := os.NewFile(uintptr(fd), "sendclock")
	if err := f.SetReadDeadline(time.Time{}); err != nil { // not pollable: no use
		f.Close()
		return nil, fmt.Errorf("timerfd not pollable: %w", err)
	}
	mono0, err := monoAt(epoch)
	if err != nil {
		f.Close()
		return nil, err
	}
	c := &preciseClock{ctx: ctx, epoch: epoch, f: f, fd: fd, mono0: mono0}
	wake := func() { f.SetReadDeadline(time.Unix(1, 0)) }
	c.stop = context.AfterFunc(ctx, wake)
	c.backstop = time.AfterFunc(time.Hour, wake)
	c.backstop.Stop()
	return c, nil
}

func (c *preciseClock) until(at int64) bool {
	due := c.epoch.Add(time.Duration(at))
	for {
		d := time.Until(due)
		if d <= 0 || c.ctx.Err() != nil {
			return c.ctx.Err() == nil
		}
		spec := unix.ItimerSpec{Value: unix.NsecToTimespec(c.mono0 + at)}
		if err := unix.TimerfdSettime(c.fd, unix.TFD_TIMER_ABSTIME, &spec, nil); err != nil {
			return (&timerClock{ctx: c.ctx, epoch: c.epoch}).until(at)
		}
		c.backstop.Reset(d)
		_, err := c.f.Read(c.buf[:])
		if !c.backstop.Stop() || err != nil {
			// The timer won, or the load stopped: clear the deadline
			// (a backstop still running may set it again: the loop
			// then reads the time and waits anew, never returning
			// early). The next arming resets the timerfd's count.
			c.f.SetReadDeadline(time.Time{})
		}
	}
}

func (c *preciseClock) close() {
	c.stop()
	c.backstop.Stop()
	c.f.Close()
}

// sleepClock is the hybrid the benchmark compares: a runtime timer until
// 1.2 ms before the send time (it wakes at most about a millisecond
// late), then clock_nanosleep(TIMER_ABSTIME) with the thread's timer
// slack at 1 ns. The sleeping thread holds its P for that last stretch.
type sleepClock struct {
	timerClock
	mono0 int64
}

// newSleepClock returns the hybrid clock of a load that starts at epoch.
func newSleepClock(ctx context.Context, epoch time.Time) (sendClock, error) {
	mono0, err := monoAt(epoch)
	if err != nil {
		return nil, err
	}
	return &sleepClock{timerClock{ctx, epoch}, mono0}, nil
}

// monoAt returns CLOCK_MONOTONIC at epoch, in ns, never earlier than it
// was: the runtime's clock is read first, so the moments between the two
// reads make the estimate late, not early (read the other way round,
// clock_nanosleep returned 1.3 µs before its send time in CI).
func monoAt(epoch time.Time) (int64, error) {
	since := int64(time.Since(epoch))
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_MONOTONIC, &ts); err != nil {
		return 0, fmt.Errorf("clock_gettime: %w", err)
	}
	return ts.Nano() - since, nil
}

func (c *sleepClock) until(at int64) bool {
	const coarse = 1200 * time.Microsecond
	if time.Until(c.epoch.Add(time.Duration(at))) > coarse && !c.timerClock.until(at-int64(coarse)) {
		return false
	}
	// The goroutine may run on another thread than last time.
	_ = unix.Prctl(unix.PR_SET_TIMERSLACK, 1, 0, 0, 0)
	ts := unix.NsecToTimespec(c.mono0 + at)
	for unix.ClockNanosleep(unix.CLOCK_MONOTONIC, unix.TIMER_ABSTIME, &ts, nil) == unix.EINTR {
	}
	// The same guard as the other clocks: never return before the send
	// time by the runtime's clock, whatever the estimate of mono0.
	for time.Until(c.epoch.Add(time.Duration(at))) > 0 {
	}
	return c.ctx.Err() == nil
}
