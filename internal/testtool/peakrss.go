package testtool

import (
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"
)

// ResetPeakRSS frees what the calling test process holds and resets its
// peak RSS to its current RSS, which it returns in MB. Benchmarks that
// read a child's peak RSS (ru_maxrss of os/exec's ProcessState) call it
// just before starting the child.
//
// Note: os/exec starts children with vfork (CLONE_VM), and Linux carries
// the parent's peak RSS into the child's ru_maxrss at exec: without the
// reset, compare's listing reported the 258 MB peak of the benchmark
// writing its archive for a listing whose own peak was 130 MB, and
// ingest's three corpus sizes run in one process all reported the
// parent's 167 MB. Writing 5 to /proc/self/clear_refs (Linux 4.0 and
// later) resets it; where that fails, the figure may include this
// process's peak, and the benchmark log says so.
func ResetPeakRSS(tb testing.TB) float64 {
	tb.Helper()
	runtime.GC()
	debug.FreeOSMemory()
	if err := os.WriteFile("/proc/self/clear_refs", []byte("5"), 0); err != nil {
		tb.Logf("peak-MB includes this process's peak RSS: %v", err)
	}
	st, err := os.ReadFile("/proc/self/status")
	if err != nil {
		tb.Logf("peak-MB may include this process's RSS: %v", err)
		return 0
	}
	for _, l := range strings.Split(string(st), "\n") {
		if f := strings.Fields(l); len(f) == 3 && f[0] == "VmHWM:" {
			kb, _ := strconv.ParseFloat(f[1], 64)
			return kb / 1024
		}
	}
	return 0
}
