package testtool

import (
	"slices"
	"sync"
	"time"
)

// SchedLag measures how late this process's goroutines are woken while a
// test runs: a goroutine asks for a 1 ms sleep over and over and records
// by how much each one overran. On a quiet machine that is tens of
// microseconds; on 2 cores at load 44 it is tens of milliseconds, and
// every client read (and every simulator write in this process) can be
// that late. Timing bounds derived from it hold at any load and stay
// tight on a quiet machine, and it is measured apart from the code under
// test, so a client that mis-stamps its own events cannot widen it.
type SchedLag struct {
	stop chan struct{}
	done chan struct{}
	mu   sync.Mutex
	over []time.Duration
}

// StartSchedLag starts measuring; End stops it.
func StartSchedLag() *SchedLag {
	l := &SchedLag{stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(l.done)
		for {
			select {
			case <-l.stop:
				return
			default:
			}
			t0 := time.Now()
			time.Sleep(time.Millisecond)
			over := max(0, time.Since(t0)-time.Millisecond)
			l.mu.Lock()
			l.over = append(l.over, over)
			l.mu.Unlock()
		}
	}()
	return l
}

// End stops the measurement and returns the overruns' median, 90th
// percentile and maximum.
func (l *SchedLag) End() (p50, p90, most time.Duration) {
	close(l.stop)
	<-l.done
	if len(l.over) == 0 {
		return 0, 0, 0
	}
	slices.Sort(l.over)
	n := len(l.over)
	return l.over[n/2], l.over[9*n/10], l.over[n-1]
}
