package runner

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"speedmatrix/runner/sim"
)

// BenchmarkOpenLoopSendLag offers 2,000 requests/s (Poisson arrivals) to
// the simulator for 2 s per load and reports how late the client handed
// requests to the transport, for each send clock (timer: the runtime
// timer; precise: the default, a timerfd on Linux), the two interleaved
// in every iteration (their order alternating) so they see the same
// machine: send-lag p50, p99 and max (ms; scheduled time → the request's
// goroutine, body built, calls net/http), the written lag p99 (scheduled
// time → request written on its connection), requests late by more than
// 10 ms, the achieved rate and the process CPU per request. Each request
// is a short prompt with 8 output tokens, so the simulator keeps up and
// the lag is the client's own. Bodies are built per request, by the
// dispatcher before each send time. The simulator runs in this process
// (sim=in-process: the client's goroutines share two Ps with the
// server's, and cpu-ms/req counts both) or in its own (sim=own-process:
// the client alone in this process, as against a real server).
//
//	go test ./runner -run '^$' -bench OpenLoopSendLag -benchtime 3x
func BenchmarkOpenLoopSendLag(b *testing.B) {
	b.Run("sim=in-process", func(b *testing.B) {
		p := sim.DefaultProfile()
		p.MaxRecords = 1024
		_, c := startSim(b, p, ClientConfig{MaxConns: 1024})
		benchSendLag(b, c)
	})
	b.Run("sim=own-process", func(b *testing.B) {
		url := simProcess(b, "-step", "2ms")
		c, err := NewClient(ClientConfig{URL: url, Model: "sim", MaxConns: 1024})
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(c.Close)
		benchSendLag(b, c)
	})
}

// lagTally gathers one send clock's loads in BenchmarkOpenLoopSendLag.
type lagTally struct {
	lags, wrote        []float64
	sent, late, failed int
	span, cpu          time.Duration
}

// benchSendLag is one sub-benchmark of BenchmarkOpenLoopSendLag.
func benchSendLag(b *testing.B, c *Client) {
	// Each body is built per request, as a rate run's are.
	body := func(int) ([]byte, int64) { return c.completionBody("A short prompt for the send-lag benchmark.", 8), 8 }
	const rate, seconds = 2000, 2
	clocks := []clockKind{clockTimer, clockSleep, clockPrecise}
	tally := make([]lagTally, len(clocks))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		at := schedule(ArrivalPoisson, rate, 0, seconds*time.Second, newRand(uint64(i+1)))
		for k := range clocks {
			if i%2 == 1 { // alternate which clock goes first
				k = len(clocks) - 1 - k
			}
			t := &tally[k]
			cpu0 := processCPU()
			res := c.runLoad(context.Background(), loadConfig{label: "bench", at: at, body: body,
				maxInFlight: 1024, header: time.Minute, idle: time.Minute, drain: time.Minute, clock: clocks[k]})
			t.cpu += processCPU() - cpu0
			for j, l := range res.lag {
				t.lags = append(t.lags, float64(l)/1e6)
				if l > lateAfter {
					t.late++
				}
				q := &res.recs[j]
				if q.failed() {
					t.failed++
				}
				t.wrote = append(t.wrote, float64(q.sent-at[j])/1e6)
			}
			t.sent += res.sent
			t.span += time.Duration(res.recs[len(res.recs)-1].start - res.recs[0].start)
		}
	}
	b.StopTimer()
	for k, t := range tally {
		name := func(m string) string { return fmt.Sprintf("%s-%s", clocks[k], m) }
		slices.Sort(t.lags)
		slices.Sort(t.wrote)
		b.ReportMetric(float64(t.cpu)/float64(time.Millisecond)/float64(t.sent), name("cpu-ms/req"))
		b.ReportMetric(quantile(t.lags, 0.5), name("lag-p50-ms"))
		b.ReportMetric(quantile(t.lags, 0.99), name("lag-p99-ms"))
		b.ReportMetric(t.lags[len(t.lags)-1], name("lag-max-ms"))
		b.ReportMetric(quantile(t.wrote, 0.99), name("wrote-p99-ms"))
		b.ReportMetric(float64(t.late), name("late"))
		b.ReportMetric(float64(t.failed), name("failed"))
		b.ReportMetric(float64(t.sent-b.N)/t.span.Seconds(), name("req/s"))
	}
}
