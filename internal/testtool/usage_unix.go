//go:build unix

package testtool

import (
	"os"
	"runtime"
	"syscall"
	"time"
)

// Self returns this process's user and system CPU time.
func Self() (user, sys time.Duration) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, 0
	}
	return time.Duration(ru.Utime.Nano()), time.Duration(ru.Stime.Nano())
}

// Switches returns this process's context switches (voluntary and
// involuntary), or -1 where the platform does not count them.
func Switches() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return -1
	}
	return int64(ru.Nvcsw + ru.Nivcsw)
}

// childPeak is the peak RSS getrusage reported for a finished child.
func childPeak(ps *os.ProcessState) int64 {
	ru, ok := ps.SysUsage().(*syscall.Rusage)
	if !ok || ru == nil {
		return 0
	}
	return maxRSSBytes(int64(ru.Maxrss))
}

// maxRSSBytes converts getrusage's ru_maxrss to bytes: Darwin reports
// bytes, the other Unix systems kilobytes.
func maxRSSBytes(v int64) int64 {
	if runtime.GOOS == "darwin" || runtime.GOOS == "ios" {
		return v
	}
	return v << 10
}
