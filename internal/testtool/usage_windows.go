//go:build windows

package testtool

import (
	"os"
	"syscall"
	"time"
)

// Self returns this process's user and system (kernel) CPU time.
func Self() (user, sys time.Duration) {
	h, err := syscall.GetCurrentProcess()
	if err != nil {
		return 0, 0
	}
	var creation, exit, kernel, usr syscall.Filetime
	if err := syscall.GetProcessTimes(h, &creation, &exit, &kernel, &usr); err != nil {
		return 0, 0
	}
	return filetimeSpan(usr), filetimeSpan(kernel)
}

// filetimeSpan is a FILETIME that holds a span (100-nanosecond units), not
// a date: Filetime.Nanoseconds would subtract the epoch.
func filetimeSpan(f syscall.Filetime) time.Duration {
	return time.Duration(int64(f.HighDateTime)<<32|int64(f.LowDateTime)) * 100
}

// Switches returns -1: Windows does not count a process's context
// switches where syscall can read them.
func Switches() int64 { return -1 }

// childPeak returns 0: the peak working set of a finished child needs
// psapi, which syscall does not wrap.
func childPeak(*os.ProcessState) int64 { return 0 }
