package testtool

// What a process has cost: its CPU time (user and system), its context
// switches, and the peak resident memory of a child process that has
// finished. The benchmarks report these figures beside wall time, which
// on a shared machine mostly measures the neighbours. They come from
// getrusage(2) on Unix and GetProcessTimes on Windows; what a platform
// does not say is reported as unknown (a peak of 0, switches of -1)
// rather than guessed, so that the tests build and run everywhere.

import (
	"os"
	"time"
)

// CPU returns the CPU time (user + system) this process has used.
func CPU() time.Duration {
	u, s := Self()
	return u + s
}

// Child returns the CPU time (user + system) of a finished child process
// and its peak resident set in bytes (0 where the platform does not say).
func Child(ps *os.ProcessState) (cpu time.Duration, peakRSS int64) {
	return ps.UserTime() + ps.SystemTime(), childPeak(ps)
}
