package runner

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

var (
	simBinOnce sync.Once
	simBin     string
	simBinErr  error
)

// simProcess starts the simulator in its own process (testdata/simserver)
// and returns its URL; the process ends with the test.
func simProcess(tb testing.TB, args ...string) string {
	tb.Helper()
	simBinOnce.Do(func() {
		dir, err := os.MkdirTemp("", "simserver")
		if err != nil {
			simBinErr = err
			return
		}
		simBin = filepath.Join(dir, "simserver")
		out, err := exec.Command("go", "build", "-o", simBin, "./testdata/simserver").CombinedOutput()
		if err != nil {
			simBinErr = fmt.Errorf("build simserver: %v\n%s", err, out)
		}
	})
	if simBinErr != nil {
		tb.Fatal(simBinErr)
	}
	cmd := exec.Command(simBin, args...)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		tb.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		tb.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		stdin.Close()
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			cmd.Process.Kill()
			<-done
		}
	})
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		tb.Fatal(err)
	}
	return strings.TrimSpace(line)
}

type procTruth struct {
	StartNs int64      `json:"start_ns"`
	FirstNs int64      `json:"first_ns"`
	Fault   string     `json:"fault"`
	Max     int64      `json:"max_tokens"`
	Chunks  [][2]int64 `json:"chunks"`
}

// fetchTruth returns the simulator process's window tokens for a window
// given in wall-clock nanoseconds, and resets its records.
func fetchTruth(tb testing.TB, url string, ws, we int64) (tokens int64) {
	return fetchRunTruth(tb, url, ws, we).window
}

// runTruth is the simulator process's record of a cell: the tokens it sent
// in a window, and each streaming request's total (probes of one token
// left out), in no order.
type runTruth struct {
	window int64
	totals []int64
}

// fetchRunTruth returns the simulator process's record for a window given
// in wall-clock nanoseconds, and resets its records.
func fetchRunTruth(tb testing.TB, url string, ws, we int64) (truth runTruth) {
	resp, err := http.Get(url + "/_truth")
	if err != nil {
		tb.Fatal(err)
	}
	defer resp.Body.Close()
	var recs []procTruth
	if err := json.NewDecoder(resp.Body).Decode(&recs); err != nil {
		tb.Fatal(err)
	}
	for _, r := range recs {
		if r.Fault != "" || r.Max <= 1 {
			continue
		}
		var total int64
		for _, c := range r.Chunks {
			total += c[1]
			if c[0] >= ws && c[0] < we {
				truth.window += c[1]
			}
		}
		truth.totals = append(truth.totals, total)
	}
	return truth
}

// cellInProcess runs one decode cell against url with C streams.
func cellAgainst(tb testing.TB, url string, C, maxTokens int, d time.Duration) (cellRun, *Client) {
	c, err := NewClient(ClientConfig{URL: url, Model: "sim", MaxConns: C})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(c.Close)
	pool := make([]*stream, C)
	for i := range pool {
		pool[i] = newStream()
	}
	prompt := Prompt{Text: promptHead(NewTag(), "1K") + neutralText(newRand(7), 1000)}
	cfg := cellConfig{prompt: prompt, concurrency: C, duration: d, maxTokens: maxTokens,
		idle: 30 * time.Second, startTimeout: 60 * time.Second, metrics: false, maxConsecutiveErrors: 2 * C}
	return c.runCell(context.Background(), cfg, pool), c
}

// BenchmarkClientCPUPerToken measures the client's whole cost per
// streamed token, end to end: the simulator runs in its own process, and
// the client process's CPU time (getrusage: user + system) over a cell is
// divided by the tokens the client received in it. It also compares the
// client's window tokens with the simulator's record of what it sent in
// the same window (truth-diff-%), and reports the server's achieved
// rate against its configured one (server-eff-%) to show where the
// server, on the same machine, saturates.
//
// The server is strict (one token per SSE event, each its own write and
// flush, whatever the client's lag) or merging (a lagging writer sends the
// tokens that piled up as one event, as vLLM does, which spares a slow
// client reads): the strict server is the client's worst case.
func BenchmarkClientCPUPerToken(b *testing.B) {
	const step = 2 * time.Millisecond
	for _, mode := range []string{"strict", "merging"} {
		for _, C := range []int{1, 16, 64, 128, 512, 2048} {
			b.Run(fmt.Sprintf("%s/C=%d", mode, C), func(b *testing.B) {
				benchClientCPU(b, mode, C, step)
			})
		}
	}
}

// benchClientCPU is one sub-benchmark of BenchmarkClientCPUPerToken.
func benchClientCPU(b *testing.B, mode string, C int, step time.Duration) {
	url := simProcess(b, "-step", step.String(), "-strict="+fmt.Sprint(mode == "strict"))
	var (
		used                      counters
		all                       int64
		diff, tokS, eff, perEvent float64
	)
	for i := 0; i < b.N; i++ {
		runtime.GC()
		c0 := processCounters()
		run, _ := cellAgainst(b, url, C, 400, 2*time.Second)
		used = processCounters().sub(c0)
		if run.ws < 0 || run.errReason != "" {
			b.Fatalf("cell failed: %s", run.errReason)
		}
		var events int64 // token events received, window or not
		all = 0          // every token received, window or not
		for _, q := range run.recs {
			if !q.failed() {
				all += q.tokens
				events += int64(q.t1 - q.t0)
			}
		}
		f := figures(&run, false)
		wsWall := run.epoch.UnixNano() + run.ws
		truth := fetchTruth(b, url, wsWall, wsWall+(run.we-run.ws))
		diff = 100 * (float64(f.tokens) - float64(truth)) / float64(truth)
		tokS = f.totalTokS
		eff = 100 * tokS / (float64(C) * float64(time.Second) / float64(step))
		perEvent = float64(all) / float64(events)
	}
	reportCounters(b, used, all)
	b.ReportMetric(perEvent, "tokens/event")
	b.ReportMetric(tokS, "tok/s")
	b.ReportMetric(diff, "truth-diff-%")
	b.ReportMetric(eff, "server-eff-%")
}

// TestManyStreams runs 2,048 concurrent streams against the simulator in
// its own process: every stream must produce tokens in the window and no
// request may fail.
func TestManyStreams(t *testing.T) {
	url := simProcess(t, "-step", "20ms")
	run, _ := cellAgainst(t, url, 2048, 60, 4*time.Second)
	if run.ws < 0 || run.errReason != "" {
		t.Fatalf("cell failed: %s", run.errReason)
	}
	f := figures(&run, true)
	inWindow := map[int]bool{}
	for _, q := range run.recs {
		if q.failed() {
			t.Fatalf("request failed: %s", q.err)
		}
	}
	for _, q := range run.recs {
		ticks := run.streams[q.slot].log[q.t0:q.t1]
		for _, tk := range ticks {
			if tk.t >= run.ws && tk.t < run.we {
				inWindow[q.slot] = true
				break
			}
		}
	}
	wsWall := run.epoch.UnixNano() + run.ws
	truth := fetchRunTruth(t, url, wsWall, wsWall+(run.we-run.ws))
	t.Logf("2048 streams: %d requests, %d window tokens (server sent %d), %.0f tok/s, avg active %.1f, TTFT p50 %.1f ms",
		len(run.recs), f.tokens, truth.window, f.totalTokS, f.activeAvg, median(f.ttft))
	if f.errored != 0 || len(inWindow) != 2048 {
		t.Fatalf("%d errors, %d of 2048 streams produced tokens in the window", f.errored, len(inWindow))
	}
	// The server's own pace decides whether the window count can be held
	// to the server's: while it sends at least 97% of its modelled rate
	// (2,048 streams × one token per 20 ms) the delivery lag between its
	// write and the client's read is steady, so the client's window count
	// must be within 1% of what the server sent in the same window. Past
	// that (a starved machine: at load 44 on 2 cores the server fell to
	// 17%) the lag grows during the window and moves tokens across its
	// edges by any amount, so the window comparison says nothing about the
	// client; BenchmarkClientCPUPerToken reports it (truth-diff-%) and the
	// exact counts below check what a client that drops or double-counts
	// chunks would get wrong, whatever the load.
	// Note: the issue asks for 1% "up to the point where the server on the
	// same machine saturates"; the README reports where that is.
	window := float64(run.we-run.ws) / float64(time.Second)
	pace := float64(truth.window) / window / (2048 * 50)
	off := math.Abs(float64(f.tokens-truth.window)) / float64(truth.window)
	t.Logf("server pace %.1f%% of its modelled rate; client window count off by %.2f%%", 100*pace, 100*off)
	if pace >= 0.97 && off > 0.01 {
		t.Fatalf("server kept its pace (%.1f%%) but window tokens %d, server sent %d", 100*pace, f.tokens, truth.window)
	}
	checkExactCounts(t, run, truth)
}

// checkExactCounts compares the client's records of a cell with the
// simulator's record of the same requests, by counts that no delivery lag
// moves: the server saw every request the client sent and got an answer
// to, and none it did not send, and every
// request the client saw finish carried, by its chunks as counted and by
// its final usage, as many tokens as one the server finished sending.
func checkExactCounts(t *testing.T, run cellRun, truth runTruth) {
	t.Helper()
	// A request cut at the window's end may not have reached the server;
	// one that received a token did, and a retried one was sent twice.
	sends, answered := len(run.recs), 0
	for _, q := range run.recs {
		sends += int(q.retries)
		if q.first >= 0 {
			answered++
		}
	}
	if len(truth.totals) < answered || len(truth.totals) > sends {
		t.Fatalf("the client sent %d requests and %d were answered, the server saw %d", sends, answered, len(truth.totals))
	}
	sent := map[int64]int{} // tokens a request was sent in all → requests
	for _, n := range truth.totals {
		sent[n]++
	}
	done := 0
	for _, q := range run.recs {
		if q.failed() || !q.done {
			continue
		}
		done++
		var chunks int64
		if q.t1 > q.t0 {
			chunks = int64(run.streams[q.slot].log[q.t1-1].cum)
		}
		if chunks != q.tokens {
			t.Fatalf("request %d/%d: its chunks count %d tokens, its usage %d", q.slot, q.seq, chunks, q.tokens)
		}
		if sent[q.tokens] == 0 {
			t.Fatalf("request %d/%d finished with %d tokens; no request the server sent has that many (server totals %v)",
				q.slot, q.seq, q.tokens, sent)
		}
		sent[q.tokens]--
	}
	if done == 0 {
		t.Fatal("no request finished")
	}
	t.Logf("%d requests sent, %d answered, %d seen by the server; %d finished with the server's exact token counts", sends, answered, len(truth.totals), done)
}

// TestNoPerTokenAllocation streams one long request from the simulator in
// its own process and counts this process's heap allocations: the
// per-request ones (net/http, the record) are a fixed few dozen, so the
// count per token must be far below one.
func TestNoPerTokenAllocation(t *testing.T) {
	url := simProcess(t, "-step", "50us")
	c, err := NewClient(ClientConfig{URL: url, Model: "sim"})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	s := newStream()
	s.log = make([]tick, 0, 30000)
	body := c.completionBody("a short prompt", 20000)
	var warm record
	c.do(context.Background(), c.completionBody("warm up the connection", 10), time.Now(), s, &warm)
	s.log = s.log[:0]
	var ms0, ms1 runtime.MemStats
	runtime.ReadMemStats(&ms0)
	var rec record
	c.do(context.Background(), body, time.Now(), s, &rec)
	runtime.ReadMemStats(&ms1)
	if rec.err != "" || rec.tokens != 20000 {
		t.Fatalf("request: %d tokens, err %q", rec.tokens, rec.err)
	}
	allocs := ms1.Mallocs - ms0.Mallocs
	perToken := float64(allocs) / float64(rec.tokens)
	t.Logf("%d allocations for %d tokens (%.4f per token)", allocs, rec.tokens, perToken)
	if perToken > 0.02 {
		t.Fatalf("%.4f allocations per token", perToken)
	}
}

// BenchmarkBaselineDiscard is the floor the client's cost is compared
// with: C goroutines send the same streaming requests over a plain
// net/http client and discard the bodies unread (io.Copy to io.Discard),
// against the same simulator process. CPU per token is this process's
// CPU time over the tokens the simulator sent in the same interval.
func BenchmarkBaselineDiscard(b *testing.B) {
	const step = 2 * time.Millisecond
	for _, C := range []int{1, 16, 64, 128, 512} {
		b.Run(fmt.Sprintf("strict/C=%d", C), func(b *testing.B) {
			url := simProcess(b, "-step", step.String(), "-strict")
			var used counters
			var tokens int64
			for i := 0; i < b.N; i++ {
				used, tokens = discardFor(b, url, C, 2*time.Second)
			}
			reportCounters(b, used, tokens)
		})
	}
}

// BenchmarkClientOverFloor runs the client's cell and the discarding
// net/http client (BenchmarkBaselineDiscard) alternately against one
// strict simulator process at each C, so that both meet the same load on
// a busy machine, and reports the mean over its iterations of the
// client's CPU per token over the floor's (over-floor-x) beside the means
// of both figures.
func BenchmarkClientOverFloor(b *testing.B) {
	const step = 2 * time.Millisecond
	for _, C := range []int{1, 16, 64, 128, 512} {
		b.Run(fmt.Sprintf("strict/C=%d", C), func(b *testing.B) {
			url := simProcess(b, "-step", step.String(), "-strict")
			var client, floor, ratio float64
			for i := 0; i < b.N; i++ {
				used, tokens := clientFor(b, url, C, 2*time.Second)
				cl := perToken(used.user+used.sys, tokens)
				used, tokens = discardFor(b, url, C, 2*time.Second)
				fl := perToken(used.user+used.sys, tokens)
				client, floor, ratio = client+cl, floor+fl, ratio+cl/fl
			}
			n := float64(b.N)
			b.ReportMetric(client/n, "µs-cpu/token")
			b.ReportMetric(floor/n, "floor-µs-cpu/token")
			b.ReportMetric(ratio/n, "over-floor-x")
		})
	}
}

// clientFor runs one decode cell of C streams for d against url and
// returns this process's counters over it and the tokens received.
func clientFor(tb testing.TB, url string, C int, d time.Duration) (counters, int64) {
	runtime.GC()
	c0 := processCounters()
	run, _ := cellAgainst(tb, url, C, 400, d)
	used := processCounters().sub(c0)
	if run.ws < 0 || run.errReason != "" {
		tb.Fatalf("cell failed: %s", run.errReason)
	}
	var all int64
	for _, q := range run.recs {
		if !q.failed() {
			all += q.tokens
		}
	}
	return used, all
}

// discardFor runs C goroutines sending streaming requests to url for d
// over the client's transport, discarding the bodies unread, and returns
// this process's counters over it and the tokens the server sent meanwhile.
func discardFor(tb testing.TB, url string, C int, d time.Duration) (counters, int64) {
	c, err := NewClient(ClientConfig{URL: url, Model: "sim", MaxConns: C})
	if err != nil {
		tb.Fatal(err)
	}
	defer c.Close()
	body := c.completionBody(promptHead(NewTag(), "1K")+neutralText(newRand(7), 1000), 400)
	runtime.GC()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	start := time.Now()
	c0 := processCounters()
	var wg sync.WaitGroup
	for g := 0; g < C; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				req, _ := c.newRequest(ctx, http.MethodPost, c.path(), body)
				resp, err := c.http.Do(req)
				if err != nil {
					continue
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			}
		}()
	}
	wg.Wait()
	used := processCounters().sub(c0)
	return used, fetchTruth(tb, url, start.UnixNano(), time.Now().UnixNano())
}

// perToken is d in µs per token.
func perToken(d time.Duration, tokens int64) float64 {
	return float64(d.Nanoseconds()) / 1e3 / float64(tokens)
}

// reportCounters reports used per token on b: CPU, user and system µs,
// read system calls and context switches.
func reportCounters(b *testing.B, used counters, tokens int64) {
	b.ReportMetric(perToken(used.user+used.sys, tokens), "µs-cpu/token")
	b.ReportMetric(perToken(used.user, tokens), "µs-user/token")
	b.ReportMetric(float64(used.reads)/float64(tokens), "reads/token")
	b.ReportMetric(float64(used.switchs)/float64(tokens), "switches/token")
}
