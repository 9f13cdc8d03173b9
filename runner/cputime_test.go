package runner

import (
	"syscall"
	"time"
)

// processCPU returns the CPU time (user + system) this process has used.
func processCPU() time.Duration {
	u, s := processCPUSplit()
	return u + s
}

// processCPUSplit returns this process's user and system CPU time.
func processCPUSplit() (user, sys time.Duration) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		panic(err)
	}
	return time.Duration(ru.Utime.Nano()), time.Duration(ru.Stime.Nano())
}
