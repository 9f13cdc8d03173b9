package runner

import (
	"bytes"
	"os"
	"strconv"
	"time"

	"speedmatrix/internal/testtool"
)

// processCPU returns the CPU time (user + system) this process has used.
func processCPU() time.Duration {
	u, s := processCPUSplit()
	return u + s
}

// processCPUSplit returns this process's user and system CPU time.
func processCPUSplit() (user, sys time.Duration) {
	c := processCounters()
	return c.user, c.sys
}

// counters are this process's cumulative costs: CPU time, read system
// calls (/proc/self/io's syscr; -1 where it cannot be read) and context
// switches (voluntary and not), so that a benchmark can say per token
// what a client costs and why.
type counters struct {
	user, sys      time.Duration
	reads, switchs int64
}

// processCounters returns this process's counters now.
func processCounters() counters {
	u, s := testtool.Self()
	c := counters{user: u, sys: s, reads: -1, switchs: testtool.Switches()}
	if b, err := os.ReadFile("/proc/self/io"); err == nil {
		for _, line := range bytes.Split(b, []byte("\n")) {
			if v, ok := bytes.CutPrefix(line, []byte("syscr: ")); ok {
				if n, err := strconv.ParseInt(string(v), 10, 64); err == nil {
					c.reads = n
				}
			}
		}
	}
	return c
}

// sub returns the counters from c0 to c1.
func (c1 counters) sub(c0 counters) counters {
	return counters{user: c1.user - c0.user, sys: c1.sys - c0.sys,
		reads: c1.reads - c0.reads, switchs: c1.switchs - c0.switchs}
}
