//go:build !linux

package runner

import "time"

// lockDispatchThread does nothing where clock_nanosleep is not used.
func lockDispatchThread() func() { return func() {} }

// sleepFor sleeps with the runtime's timers.
func sleepFor(d time.Duration) { time.Sleep(d) }
