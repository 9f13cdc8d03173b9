package runcmd

import (
	"bytes"
	"context"
	"fmt"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"speedmatrix/analysis"
	"speedmatrix/schema"
)

// TestOllamaRates offers two short open-loop rates to a real engine
// (Ollama serving the tiny llama model) through the recording proxy: the
// serve rows land in the archive, their requests are the ones the engine
// saw under each rate's request ids (serve-r2, serve-r4), their token
// counts are the engine's, the achieved rate is the asked one, the
// document reads back to the archived rows, and the run compares against
// itself cell by cell.
func TestOllamaRates(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	const parallel, numCtx, outTokens = 4, 1024, 16
	o := startOllama(t, ctx, parallel, numCtx)
	proxy := newEngineProxy(o.URL)
	srv := httptest.NewServer(proxy)
	defer srv.Close()

	dir := t.TempDir()
	arch := filepath.Join(dir, "archive")
	out := filepath.Join(dir, "rates.md")
	var stdout, stderr bytes.Buffer
	began := time.Now()
	code := run(ctx, []string{"-url", srv.URL, "-model", o.Model, "-rates", "2,4", "-duration", "3s", "-arrival", "constant",
		"-seed", "5", "-input-tokens", "128", "-output-tokens", fmt.Sprint(outTokens), "-slo", "ttft:2s,tbt:200ms",
		"-engine", "ollama", "-archive", arch, "-out", out},
		strings.NewReader(""), &stdout, &stderr)
	t.Logf("run took %v", time.Since(began).Round(time.Millisecond))
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, stdout.String(), stderr.String())
	}
	m := archivedRun(t, ctx, arch)
	documentMatches(t, out, m)
	if len(m.Measurements) != 2 {
		t.Fatalf("%d rows archived, want 2", len(m.Measurements))
	}
	byLabel := map[string][]*proxied{}
	for _, r := range proxy.requests() {
		byLabel[cellOfID(r.id)] = append(byLabel[cellOfID(r.id)], r)
	}
	for i, x := range m.Measurements {
		rate := []float64{2, 4}[i]
		label := fmt.Sprintf("serve-r%g", rate)
		reqs := byLabel[label]
		extra := map[string]float64{}
		for _, e := range x.Extra {
			extra[e.Name] = e.Value
		}
		t.Logf("%s: %d requests at the engine; achieved %v/s, %v completed/s, goodput %v/s, TTFT p50 %v ms p99 %v, TBT p50 %v ms, in flight %v, send lag p99 %v ms",
			label, len(reqs), extra["achieved_request_rate"], deref(x.RequestThroughput), deref(x.GoodputReqS),
			deref(x.TTFTP50Ms), deref(x.TTFTP99Ms), deref(x.TBTP50Ms), deref(x.AvgActiveRequests), extra["send_lag_p99_ms"])
		if x.Phase != schema.PhaseServe || x.Status != schema.StatusValid || x.RequestRate == nil || *x.RequestRate != rate {
			t.Errorf("row %d: %s %s rate %v: %q", i, x.Phase, x.Status, deref(x.RequestRate), x.StatusReason)
		}
		// Constant arrivals for 3 s: 6 and 12 requests, every one at the
		// engine under its rate's id, answered in full.
		want := int(3 * rate)
		if len(reqs) != want || int(extra["requests_sent"]) != want || deref(x.CompletedRequests) != int64(want) {
			t.Errorf("%s: %d requests at the engine, %v sent, %d completed; want %d", label, len(reqs), extra["requests_sent"], deref(x.CompletedRequests), want)
		}
		var engineOut, enginePrompt int64
		for _, r := range reqs {
			if r.status != 200 || r.usage == nil || r.usage.Completion != outTokens || r.maxTokens != outTokens {
				t.Errorf("%s request %s: HTTP %d, usage %v, max_tokens %d", label, r.id, r.status, r.usage, r.maxTokens)
				continue
			}
			engineOut += r.usage.Completion
			enginePrompt += r.usage.Prompt
		}
		if deref(x.OutputTokens) != engineOut || deref(x.InputTokensTotal) != enginePrompt {
			t.Errorf("%s: %d output and %d input tokens, the engine counted %d and %d", label, deref(x.OutputTokens), deref(x.InputTokensTotal), engineOut, enginePrompt)
		}
		// The achieved rate is (sent−1) over the first to the last send;
		// each send may be late by up to the run's own measured send-lag
		// max (a loaded machine: 2.3 s at p99 once), which stretches or
		// shrinks that span by at most the lag. Beyond that slack (and
		// 1%) the schedule itself is wrong.
		n, lag := extra["requests_sent"], extra["send_lag_max_ms"]/1e3
		span := (n - 1) / rate
		lo, hi := 0.99*(n-1)/(span+lag), 1.01*(n-1)/max(span-lag, 1e-9)
		if lag == 0 {
			lo, hi = 0.99*rate, 1.01*rate
		}
		if a := extra["achieved_request_rate"]; a < lo || a > hi {
			t.Errorf("%s: achieved %v requests/s, want %v to %v (rate %v, %v sent, send lag max %v s)", label, a, lo, hi, rate, n, lag)
		}
		if x.GoodputReqS == nil || x.TTFTP99Ms == nil || x.TBTP50Ms == nil || x.E2EP50Ms == nil || x.AvgActiveRequests == nil {
			t.Errorf("%s: figures missing: %+v", label, x)
		}
	}
	// The run compares against itself: both rates align, every figure
	// equal.
	c, err := analysis.Compare(m, []*schema.Matrix{m}, analysis.Options{Metrics: []string{"ttft_p99_ms", "goodput_req_s"}})
	if err != nil {
		t.Fatal(err)
	}
	serve := 0
	for _, cell := range c.Cells {
		if cell.Key.Phase == schema.PhaseServe {
			serve++
		}
	}
	values := 0
	for _, d := range c.Deltas[0] {
		if r, ok := d.Ratio(); ok {
			values++
			if r != 1 {
				t.Errorf("cell %v metric %s: ratio %v against itself", c.Cells[d.Cell].Key, c.Metrics[d.Metric].Name, r)
			}
		}
	}
	if serve != 2 || values < 2*4 {
		t.Errorf("compared against itself: %d serve cells, %d figures; want 2 cells and at least 8 figures", serve, values)
	}
}
