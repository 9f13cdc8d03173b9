//go:build !unix && !windows

package testtool

import (
	"os"
	"time"
)

// Self returns zero: the platform does not report a process's CPU time
// through syscall.
func Self() (user, sys time.Duration) { return 0, 0 }

// Switches returns -1 (unknown).
func Switches() int64 { return -1 }

// childPeak returns 0 (unknown).
func childPeak(*os.ProcessState) int64 { return 0 }
