package runner

import (
	"context"
	"slices"
	"testing"
	"time"

	"speedmatrix/runner/sim"
)

// BenchmarkOpenLoopSendLag offers 2,000 requests/s (Poisson arrivals) to
// the simulator for 2 s per iteration and reports how late the client
// handed requests to the transport: send-lag p50, p99 and max (ms),
// requests late by more than 10 ms, and the achieved rate. Each request
// is a short prompt with 8 output tokens, so the simulator keeps up and
// the lag is the client's own. The simulator runs in this process
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

// benchSendLag is one sub-benchmark of BenchmarkOpenLoopSendLag.
func benchSendLag(b *testing.B, c *Client) {
	body := c.completionBody("A short prompt for the send-lag benchmark.", 8)
	const rate, seconds = 2000, 2
	var lags []float64
	var sent, late, failed int
	var span time.Duration
	cpu0 := processCPU()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		at := schedule(ArrivalPoisson, rate, 0, seconds*time.Second, newRand(uint64(i+1)))
		res := c.runLoad(context.Background(), loadConfig{label: "bench", at: at, body: func(int) []byte { return body },
			maxInFlight: 1024, header: time.Minute, idle: time.Minute, drain: time.Minute})
		for k, l := range res.lag {
			lags = append(lags, float64(l)/1e6)
			if l > lateAfter {
				late++
			}
			if res.recs[k].failed() {
				failed++
			}
		}
		sent += res.sent
		span += time.Duration(res.recs[len(res.recs)-1].start - res.recs[0].start)
	}
	b.StopTimer()
	b.ReportMetric(float64(processCPU()-cpu0)/float64(time.Millisecond)/float64(sent), "cpu-ms/req")

	slices.Sort(lags)
	b.ReportMetric(quantile(lags, 0.5), "lag-p50-ms")
	b.ReportMetric(quantile(lags, 0.99), "lag-p99-ms")
	b.ReportMetric(lags[len(lags)-1], "lag-max-ms")
	b.ReportMetric(float64(late), "late")
	b.ReportMetric(float64(failed), "failed")
	b.ReportMetric(float64(sent-b.N)/span.Seconds(), "req/s")
}
