//go:build linux

package sim

import (
	"runtime"

	"golang.org/x/sys/unix"
)

// Note: time.Sleep and timers wake through the runtime's netpoller, whose
// resolution here is about a millisecond (a 200 µs sleep measured 1.1 ms
// on this machine), too coarse for sub-millisecond decode steps. The
// engine goroutine therefore locks its OS thread, lowers that thread's
// timer slack to 1 ns and sleeps with clock_nanosleep(TIMER_ABSTIME) on
// CLOCK_MONOTONIC until the step's deadline (measured overshoot ~45 µs
// median), so no library timer fits.

// pinEngineThread prepares the calling goroutine's thread for precise
// sleeps. It must run on the engine goroutine.
func pinEngineThread() {
	runtime.LockOSThread()
	_ = unix.Prctl(unix.PR_SET_TIMERSLACK, 1, 0, 0, 0)
}

// monoNow returns CLOCK_MONOTONIC in nanoseconds.
func monoNow() int64 {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_MONOTONIC, &ts); err != nil {
		panic("sim: clock_gettime: " + err.Error())
	}
	return ts.Nano()
}

// sleepUntil blocks the thread until CLOCK_MONOTONIC reaches deadline (ns).
func sleepUntil(deadline int64) {
	ts := unix.NsecToTimespec(deadline)
	for {
		err := unix.ClockNanosleep(unix.CLOCK_MONOTONIC, unix.TIMER_ABSTIME, &ts, nil)
		if err != unix.EINTR {
			return
		}
	}
}
