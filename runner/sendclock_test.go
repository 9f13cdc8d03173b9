package runner

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"
)

// TestSendClock: each clock returns at or after every send time (never
// early, whatever its mechanism), in order, and returns false at once
// when the load's context ends during a wait.
func TestSendClock(t *testing.T) {
	for _, kind := range []clockKind{clockTimer, clockSleep, clockPrecise} {
		t.Run(kind.String(), func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			epoch := time.Now()
			c := newSendClock(ctx, epoch, kind)
			defer c.close()
			// Gaps from 0 to 3 ms, some in the past already.
			at := []int64{0, 100e3, 150e3, 1e6, 1.2e6, 4.2e6, 4.2e6, 4.3e6, 7e6}
			for _, a := range at {
				if !c.until(a) {
					t.Fatalf("until(%v) = false with the context alive", time.Duration(a))
				}
				if now := int64(time.Since(epoch)); now < a {
					t.Errorf("until(%v) returned at %v: early", time.Duration(a), time.Duration(now))
				}
			}
			go func() { time.Sleep(20 * time.Millisecond); cancel() }()
			began := time.Now()
			if c.until(int64(time.Since(epoch) + time.Hour)) {
				t.Error("until an hour from now = true after the context ended")
			}
			if d := time.Since(began); d > 5*time.Second {
				t.Errorf("the stop took %v to be seen", d)
			}
			if c.until(0) {
				t.Error("until a past time = true after the context ended")
			}
		})
	}
}

// BenchmarkSendClock waits for a Poisson schedule of 2,000 send times a
// second (1 s per clock and iteration, the clocks interleaved, nothing
// sent) and reports how late each clock returned: p50, p99 and max (ms)
// and the CPU per wait. It isolates the clock from the requests that
// BenchmarkOpenLoopSendLag sends.
//
//	go test ./runner -run '^$' -bench SendClock -benchtime 3x
func BenchmarkSendClock(b *testing.B) {
	clocks := []clockKind{clockTimer, clockSleep, clockPrecise}
	late := make([][]float64, len(clocks))
	cpu := make([]time.Duration, len(clocks))
	for i := 0; i < b.N; i++ {
		at := schedule(ArrivalPoisson, 2000, 0, time.Second, newRand(uint64(i+1)))
		for k := range clocks {
			if i%2 == 1 {
				k = len(clocks) - 1 - k
			}
			cpu0 := processCPU()
			epoch := time.Now()
			c := newSendClock(context.Background(), epoch, clocks[k])
			for _, a := range at {
				c.until(a)
				late[k] = append(late[k], float64(int64(time.Since(epoch))-a)/1e6)
			}
			c.close()
			cpu[k] += processCPU() - cpu0
		}
	}
	for k, xs := range late {
		slices.Sort(xs)
		name := func(m string) string { return fmt.Sprintf("%s-%s", clocks[k], m) }
		b.ReportMetric(quantile(xs, 0.5), name("late-p50-ms"))
		b.ReportMetric(quantile(xs, 0.99), name("late-p99-ms"))
		b.ReportMetric(xs[len(xs)-1], name("late-max-ms"))
		b.ReportMetric(float64(cpu[k])/1e3/float64(len(xs)), name("cpu-us/wait"))
	}
}
