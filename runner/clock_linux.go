//go:build linux

package runner

import (
	"runtime"
	"time"

	"golang.org/x/sys/unix"
)

// Note: the runtime's timers wake a goroutine through the scheduler,
// which on a loaded machine runs it behind every runnable goroutine (a
// 2,000 requests/s load measured a send-lag p99 of 30–300 ms that way,
// against 17–18 ms with this, the machine shared with other builds). The
// dispatcher of an open-loop load therefore locks its OS thread, lowers
// its timer slack to 1 ns and sleeps with clock_nanosleep(TIMER_ABSTIME),
// so the kernel wakes it at the send time, as runner/sim's engine does.

// lockDispatchThread prepares the calling goroutine's thread for precise
// sleeps; the returned func undoes the lock.
func lockDispatchThread() func() {
	runtime.LockOSThread()
	_ = unix.Prctl(unix.PR_SET_TIMERSLACK, 1, 0, 0, 0)
	return runtime.UnlockOSThread
}

// sleepFor blocks the thread for d (CLOCK_MONOTONIC, absolute, so an
// interrupted sleep resumes to the same instant).
func sleepFor(d time.Duration) {
	var now unix.Timespec
	if unix.ClockGettime(unix.CLOCK_MONOTONIC, &now) != nil {
		time.Sleep(d)
		return
	}
	ts := unix.NsecToTimespec(now.Nano() + int64(d))
	for unix.ClockNanosleep(unix.CLOCK_MONOTONIC, unix.TIMER_ABSTIME, &ts, nil) == unix.EINTR {
	}
}
