package sim

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"speedmatrix/internal/testtool"
)

// rawStream sends one streaming completion over a fresh TCP connection
// with "Connection: close" and reads the response into a reused buffer
// until EOF, doing nothing else: the cheapest possible client, so that CPU
// measured in the process is mostly the server's. It returns the bytes
// read and whether the stream ended with [DONE].
func rawStream(addr string, maxTokens int, buf []byte) (int, bool, error) {
	return rawStreamPrompt(addr, "bench", maxTokens, buf)
}

// rawStreamPrompt is rawStream with a prompt (plain letters, no escaping).
func rawStreamPrompt(addr, prompt string, maxTokens int, buf []byte) (int, bool, error) {
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		return 0, false, err
	}
	defer conn.Close()
	body := fmt.Sprintf(`{"model":"sim","prompt":"%s","max_tokens":%d,"ignore_eos":true,"stream":true}`, prompt, maxTokens)
	req := fmt.Sprintf("POST /v1/completions HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s", addr, len(body), body)
	if _, err := io.WriteString(conn, req); err != nil {
		return 0, false, err
	}
	var n int
	var tail []byte
	for {
		k, err := conn.Read(buf)
		n += k
		if k > 0 {
			tail = append(tail, buf[max(0, k-64):k]...)
			tail = tail[max(0, len(tail)-64):]
		}
		if err == io.EOF {
			return n, bytes.Contains(tail, []byte("[DONE]")), nil
		}
		if err != nil {
			return n, false, err
		}
	}
}

// loadResult is what one closed batch of streams measured.
type loadResult struct {
	tokens  int64
	elapsed time.Duration
	cpu     time.Duration
	errs    int
}

// runBatch runs `streams` concurrent raw streams of maxTokens tokens each
// against s and returns the truth's token count over the wall time.
func runBatch(s *Server, addr string, streams, maxTokens int) loadResult {
	s.Reset()
	var wg sync.WaitGroup
	var mu sync.Mutex
	var errs int
	cpu0, t0 := testtool.CPU(), time.Now()
	for range streams {
		wg.Go(func() {
			buf := make([]byte, 32<<10)
			_, done, err := rawStream(addr, maxTokens, buf)
			if err != nil || !done {
				mu.Lock()
				errs++
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	r := loadResult{elapsed: time.Since(t0), cpu: testtool.CPU() - cpu0, errs: errs}
	for _, rec := range s.Requests() {
		r.tokens += rec.OutputTokens
	}
	return r
}

// BenchmarkServer measures the simulator with the default profile at
// several batch sizes: delivered tokens/s (from its own truth), process
// CPU µs per token (server plus a raw client that only reads bytes) and the
// tokens/s the profile models. Where delivered falls below modelled the
// server is saturated.
func BenchmarkServer(b *testing.B) {
	for _, batch := range []int{1, 64, 256, 1024, 2048} {
		b.Run(fmt.Sprintf("batch=%d", batch), func(b *testing.B) {
			p := DefaultProfile()
			s, base, err := Start(p)
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			addr := strings.TrimPrefix(base, "http://")
			// b.N tokens in rounds of batch streams of at most 30,000.
			per := min(max(b.N/batch, 1), 30000)
			rounds := max(1, b.N/(batch*per))
			var r loadResult
			b.ResetTimer()
			for range rounds {
				x := runBatch(s, addr, batch, per)
				r.tokens += x.tokens
				r.elapsed += x.elapsed
				r.cpu += x.cpu
				r.errs += x.errs
			}
			b.StopTimer()
			if r.errs > 0 {
				b.Fatalf("%d of %d streams failed", r.errs, batch*rounds)
			}
			b.ReportMetric(float64(r.tokens)/r.elapsed.Seconds(), "tok/s")
			b.ReportMetric(float64(r.cpu.Microseconds())/float64(r.tokens), "cpu-µs/token")
			b.ReportMetric(p.PredictTotalTokS(int64(per/2), batch), "modelled-tok/s")
			st := s.Stats()
			b.ReportMetric(float64(st.Resets), "resets")
			b.ReportMetric(float64(st.MeanOvershoot.Microseconds()), "overshoot-µs")
		})
	}
}

// TestManyStreams runs 2,048 concurrent streams through the test client and
// checks that every one completes and that what each client received
// matches the truth.
func TestManyStreams(t *testing.T) {
	const streams, tokens = 2048, 16
	s, c := startSim(t, DefaultProfile())
	c = newTestClient(c.base, streams)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var wg sync.WaitGroup
	results := make([]*result, streams)
	errs := make([]error, streams)
	for i := range streams {
		wg.Go(func() {
			results[i], errs[i] = c.post(ctx, "/v1/completions", map[string]any{
				"prompt": fmt.Sprintf("stream %d", i), "max_tokens": tokens, "ignore_eos": true, "stream": true,
				"stream_options": map[string]any{"include_usage": true},
			})
		})
	}
	wg.Wait()
	for i, r := range results {
		if errs[i] != nil || r.Status != 200 || r.ReadErr != nil || !r.sawDone() {
			t.Fatalf("stream %d: %v %+v", i, errs[i], r)
		}
		if u := r.finalUsage(); u == nil || u.CompletionTokens != tokens {
			t.Fatalf("stream %d: usage %+v", i, u)
		}
	}
	recs := s.Requests()
	if len(recs) != streams {
		t.Fatalf("%d records", len(recs))
	}
	var total int64
	first, last := recs[0].Start, recs[0].Finished
	for _, rec := range recs {
		if rec.OutputTokens != tokens || rec.Err != "" {
			t.Errorf("record %d: %d tokens, err %q", rec.N, rec.OutputTokens, rec.Err)
		}
		total += rec.OutputTokens
		if rec.Start.Before(first) {
			first = rec.Start
		}
		if rec.Finished.After(last) {
			last = rec.Finished
		}
	}
	t.Logf("%d streams, %d tokens in %v (%.0f tok/s); engine %+v", streams, total, last.Sub(first), float64(total)/last.Sub(first).Seconds(), s.Stats())
}

// BenchmarkServerCPU measures the server's own CPU per token: the raw
// client runs in a child process (this test binary, see TestMain), so the
// CPU this process spends is the simulator's (engine, handlers, HTTP,
// syscalls). It reports server and client µs per token and the delivered
// rate.
func BenchmarkServerCPU(b *testing.B) {
	for _, batch := range []int{64, 512, 2048} {
		b.Run(fmt.Sprintf("batch=%d", batch), func(b *testing.B) {
			s, base, err := Start(DefaultProfile())
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			per := min(max(b.N/batch, 1), 30000)
			cmd := exec.Command(os.Args[0])
			cmd.Env = append(os.Environ(), fmt.Sprintf("%s=%s,%d,%d", rawClientEnv, strings.TrimPrefix(base, "http://"), batch, per))
			cmd.Stderr = os.Stderr
			b.ResetTimer()
			cpu0, t0 := testtool.CPU(), time.Now()
			if err := cmd.Run(); err != nil {
				b.Fatalf("client: %v", err)
			}
			elapsed, cpu := time.Since(t0), testtool.CPU()-cpu0
			b.StopTimer()
			var tokens int64
			for _, rec := range s.Requests() {
				tokens += rec.OutputTokens
			}
			client := cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
			b.ReportMetric(float64(cpu.Nanoseconds())/1e3/float64(tokens), "server-cpu-µs/token")
			b.ReportMetric(float64(client.Nanoseconds())/1e3/float64(tokens), "client-cpu-µs/token")
			b.ReportMetric(float64(tokens)/elapsed.Seconds(), "tok/s")
		})
	}
}
