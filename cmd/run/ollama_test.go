package runcmd

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"speedmatrix/archive"
	"speedmatrix/internal/testtool"
	"speedmatrix/internal/tinyllama"
	"speedmatrix/parse"
	"speedmatrix/runner"
	"speedmatrix/schema"
)

// stampedLines is a writer that remembers when each line was written.
type stampedLines struct {
	mu    sync.Mutex
	part  []byte
	lines []stamped
}

type stamped struct {
	at   time.Time
	text string
}

func (s *stampedLines) Write(b []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := time.Now()
	s.part = append(s.part, b...)
	for {
		i := bytes.IndexByte(s.part, '\n')
		if i < 0 {
			break
		}
		s.lines = append(s.lines, stamped{now, string(s.part[:i])})
		s.part = s.part[i+1:]
	}
	return len(b), nil
}

func (s *stampedLines) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var b strings.Builder
	for _, l := range s.lines {
		b.WriteString(l.text + "\n")
	}
	return b.String() + string(s.part)
}

// startOllama serves the tiny model with a real Ollama (llama.cpp on the
// CPU) for the test, and stops it when the test ends.
func startOllama(t *testing.T, ctx context.Context, parallel, numCtx int) *tinyllama.Ollama {
	t.Helper()
	bin := testtool.Ollama(t)
	dir := t.TempDir()
	start, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	o, err := tinyllama.StartOllama(start, tinyllama.OllamaConfig{
		Bin: bin, Dir: dir, Parallel: parallel, Context: numCtx, Weights: tinyllama.DefaultConfig(),
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		o.Close()
		if t.Failed() {
			if b, err := os.ReadFile(o.LogPath); err == nil {
				t.Logf("ollama log (last 3 KB):\n%s", b[max(0, len(b)-3000):])
			}
		}
	})
	return o
}

var cellLine = regexp.MustCompile(`^cell \d+/\d+ (prefill|decode) (\S+)(?: ×(\d+))?: (\S+?),`)

// cellSpan is one cell of the run as its progress line tells it: the cell's
// requests reached the proxy after the previous cell's line and before its own.
type cellSpan struct {
	phase, label string
	c            int
	status       string
	from, to     time.Time
}

func cellSpans(t *testing.T, began time.Time, lines []stamped) []cellSpan {
	t.Helper()
	var spans []cellSpan
	from := began
	for _, l := range lines {
		g := cellLine.FindStringSubmatch(l.text)
		if g == nil {
			continue
		}
		c := 1
		if g[3] != "" {
			fmt.Sscan(g[3], &c)
		}
		spans = append(spans, cellSpan{phase: g[1], label: g[2], c: c, status: g[4], from: from, to: l.at})
		from = l.at
	}
	return spans
}

// TestOllamaEndToEnd measures a short matrix against a real engine (Ollama
// serving the tiny llama model: llama.cpp on the CPU, no /tokenize and no
// /metrics, so prompts are fitted from usage.prompt_tokens) through a
// proxy that records what the engine said and when, and checks the run
// against the engine's own accounting: prompt tokens of every request,
// tokens per request, window tokens, TTFT and TBT, no errors, and the
// document reading back to the archived rows. It logs the figures it
// compared (go test -v).
func TestOllamaEndToEnd(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	const parallel, numCtx, maxTokens = 4, 1024, 32
	o := startOllama(t, ctx, parallel, numCtx)
	proxy := newEngineProxy(o.URL)
	srv := httptest.NewServer(proxy)
	defer srv.Close()

	dir := t.TempDir()
	arch := filepath.Join(dir, "archive")
	out := filepath.Join(dir, "run.md")
	var stdout bytes.Buffer
	stderr := &stampedLines{}
	began := time.Now()
	probe := testtool.StartSchedLag()
	code := run(ctx, []string{"-url", srv.URL, "-model", o.Model, "-contexts", "128,256", "-concurrency", "1,4",
		"-duration", "1s", "-max-tokens", fmt.Sprint(maxTokens), "-engine", "ollama", "-archive", arch, "-out", out},
		strings.NewReader(""), &stdout, stderr)
	_, lag, lagMax := probe.End()
	t.Logf("run took %v; scheduling lag p90 %v max %v", time.Since(began).Round(time.Millisecond), lag, lagMax)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, stdout.String(), stderr)
	}
	m := archivedRun(t, ctx, arch)
	documentMatches(t, out, m)
	// Ollama has no /tokenize: the prompts went the calibration path.
	if !strings.Contains(m.Run.Dataset, "calibrated with max_tokens=1 probes") {
		t.Errorf("dataset %q: want prompts calibrated with probes", m.Run.Dataset)
	}

	spans := cellSpans(t, began, stderr.lines)
	if len(spans) != 6 || len(m.Measurements) != 6 {
		t.Fatalf("%d cell lines, %d cells archived, want 6:\n%s", len(spans), len(m.Measurements), stderr)
	}
	reqs := proxy.requests()
	for _, r := range reqs {
		// A request cut at a window's end while queued has no status.
		if r.status != 200 && !(r.cut && r.status == 0) {
			t.Errorf("request at %s: the engine answered HTTP %d", r.arrived.Format("15:04:05.000"), r.status)
		}
		// The client went away only from requests cut at a window's end;
		// every other one ended as the engine says it did.
		if !r.cut && (!r.done || r.usage == nil || r.finish != "length") {
			t.Errorf("request at %s: done %v, usage %v, finish %q", r.arrived.Format("15:04:05.000"), r.done, r.usage, r.finish)
		}
		// Tokens counted (chunks that carried text) against the engine's
		// completion_tokens; the model never ends early, so both are
		// max_tokens.
		if r.usage != nil && (int64(len(r.chunks)) != r.usage.Completion || r.usage.Completion != int64(r.maxTokens)) {
			t.Errorf("request at %s: %d chunks, usage.completion_tokens %d, max_tokens %d",
				r.arrived.Format("15:04:05.000"), len(r.chunks), r.usage.Completion, r.maxTokens)
		}
	}
	for _, x := range m.Measurements {
		if x.Status != schema.StatusValid || (x.ErroredRequests != nil && *x.ErroredRequests != 0) {
			t.Errorf("%s %s ×%d: %s %q, %v errored", x.Phase, x.ContextLabel, deref(x.Concurrency), x.Status, x.StatusReason, deref(x.ErroredRequests))
		}
		// Prompt lengths are calibrated from usage (no /tokenize): the
		// run promises ±1% of the context. A decode cell whose every
		// request was cut at the window's end has none (checked below
		// against the engine).
		if x.PromptTokens == nil && x.Phase == schema.PhaseDecode {
			continue
		}
		if x.PromptTokens == nil || x.ContextTokens == nil || !within(float64(*x.PromptTokens), float64(*x.ContextTokens), 0.01) {
			t.Errorf("%s %s: prompt tokens %v for a context of %v", x.Phase, x.ContextLabel, deref(x.PromptTokens), deref(x.ContextTokens))
		}
	}
	for _, sp := range spans {
		if sp.status != "valid" {
			t.Errorf("cell %s %s ×%d: %s", sp.phase, sp.label, sp.c, sp.status)
		}
		x := findCell(t, m, sp)
		if sp.phase == "prefill" {
			checkPrefillCell(t, sp, x, reqs)
			continue
		}
		// A decode cell's requests are the ones its id names: the last
		// request of a window, sent just before the window ended and cut,
		// may reach the proxy after the cell's progress line.
		var cell []*proxied
		label := runner.CellRequestLabel(sp.label, sp.c)
		for _, r := range reqs {
			if r.maxTokens == maxTokens && cellOfID(r.id) == label {
				cell = append(cell, r)
			}
		}
		var samples []schema.Sample
		for _, s := range m.Samples {
			if string(s.Phase) == "decode" && s.ContextLabel == sp.label && int(s.Concurrency) == sp.c {
				samples = append(samples, s)
			}
		}
		checkDecodeCell(t, sp, x, samples, cell, lag)
	}
}

// cellOfID returns the cell label of a request id
// (sm-<nonce>-<label>-<n>), "" when id is not of that form.
func cellOfID(id string) string {
	rest, ok := strings.CutPrefix(id, "sm-")
	if !ok {
		return ""
	}
	_, rest, _ = strings.Cut(rest, "-")
	if i := strings.LastIndexByte(rest, '-'); i > 0 {
		return rest[:i]
	}
	return ""
}

// promptsAgree reports whether the prompt tokens the runner recorded per
// request (0 when it read no usage) are the engine's: every count the
// runner read is one the engine sent, and the engine counted more only
// for requests the runner stopped reading at the window's end before
// their usage came through (the usage can pass the proxy a moment before
// the runner cancels): at most one per stream.
func promptsAgree(runner, engine []int64, streams int) bool {
	if len(runner) != len(engine) {
		return false
	}
	left := slices.Clone(engine)
	zeros := 0
	for _, p := range runner {
		if p == 0 {
			zeros++
			continue
		}
		i := slices.Index(left, p)
		if i < 0 {
			return false
		}
		left = slices.Delete(left, i, i+1)
	}
	unread := 0
	for _, p := range left {
		if p != 0 {
			unread++
		}
	}
	return unread <= streams && len(left) == zeros
}

// checkPrefillCell sets a prefill cell against the engine: its figure is
// the cold one-token request that ended the cell's span (the last prompt
// the calibration tried), so its prompt tokens are that request's usage
// and its TTFT the time to that request's one chunk.
func checkPrefillCell(t *testing.T, sp cellSpan, x schema.Measurement, reqs []*proxied) {
	t.Helper()
	var last *proxied
	for _, r := range reqs {
		if r.maxTokens == 1 && r.usage != nil && len(r.chunks) == 1 && r.arrived.After(sp.from) && !r.arrived.After(sp.to) {
			last = r
		}
	}
	if last == nil {
		t.Errorf("prefill %s: no one-token request reached the engine", sp.label)
		return
	}
	engTTFT := ms(last.chunks[0].Sub(last.arrived))
	t.Logf("prefill %s: prompt tokens %d (engine usage %d, context %d); TTFT %.1f ms (engine %.1f); %.1f tok/s",
		sp.label, deref(x.PromptTokens), last.usage.Prompt, deref(x.ContextTokens), deref(x.TTFTMs), engTTFT, deref(x.TotalTokS))
	if deref(x.PromptTokens) != last.usage.Prompt {
		t.Errorf("prefill %s: prompt tokens %d, the engine counted %d", sp.label, deref(x.PromptTokens), last.usage.Prompt)
	}
	if rt := deref(x.TTFTMs); !(rt > 0) || math.Abs(rt-engTTFT) > max(25, 0.25*engTTFT) {
		t.Errorf("prefill %s: TTFT %.2f ms, the engine's %.2f ms", sp.label, rt, engTTFT)
	}
}

// checkDecodeCell sets one decode cell's figures against the requests the
// proxy saw during it.
func checkDecodeCell(t *testing.T, sp cellSpan, x schema.Measurement, samples []schema.Sample, cell []*proxied, lag time.Duration) {
	t.Helper()
	name := fmt.Sprintf("decode %s ×%d", sp.label, sp.c)
	// The counts differ only by requests cut at the window's end, at most
	// one per stream: one a stream sent just after the window closed (the
	// engine saw it, cut; the runner keeps no sample of a request sent
	// after its window), or one the runner cut before the engine had read
	// it (a sample the engine never saw). Every request the engine
	// finished is one of the samples.
	cut := 0
	for _, r := range cell {
		if r.cut {
			cut++
		}
	}
	if len(cell) < sp.c || len(cell)-cut > len(samples) || len(cell)-len(samples) > cut ||
		abs(int64(len(samples)-len(cell))) > int64(sp.c) {
		t.Errorf("%s: %d samples, the engine saw %d requests (%d cut)", name, len(samples), len(cell), cut)
		return
	}
	// Prompt tokens of every request: the samples' against the engine's
	// usage (0 for requests cut before their usage came), and every one
	// the engine reported within ±1% of the context.
	var runnerPrompt, enginePrompt []int64
	for _, s := range samples {
		runnerPrompt = append(runnerPrompt, s.PromptTokens)
		if s.Error != "" {
			t.Errorf("%s: request %d failed: %s", name, s.Request, s.Error)
		}
	}
	var chunks int64
	for _, r := range cell {
		p := int64(0)
		if r.usage != nil {
			p = r.usage.Prompt
			if !within(float64(p), float64(*x.ContextTokens), 0.01) {
				t.Errorf("%s: the engine counted %d prompt tokens for a context of %d", name, p, *x.ContextTokens)
			}
		}
		enginePrompt = append(enginePrompt, p)
		chunks += int64(len(r.chunks))
	}
	// A request one side has and the other has not (above) read no
	// usage on the runner's side, or none reached the engine: a zero.
	for len(runnerPrompt) < len(enginePrompt) {
		runnerPrompt = append(runnerPrompt, 0)
	}
	for len(enginePrompt) < len(runnerPrompt) {
		enginePrompt = append(enginePrompt, 0)
	}
	if !promptsAgree(runnerPrompt, enginePrompt, sp.c) {
		t.Errorf("%s: prompt tokens per request: runner %v, engine %v", name, runnerPrompt, enginePrompt)
	}
	// Window tokens: the samples add up to the cell's, which is what the
	// proxy saw pass in a window of the same length that opens when every
	// one of the C streams has its first token (no /metrics here).
	var sum int64
	for _, s := range samples {
		sum += s.OutputTokens
	}
	window := deref(x.OutputTokens)
	if sum != window || window <= 0 || window > chunks {
		t.Errorf("%s: window tokens %d, samples add to %d, the engine sent %d in the cell", name, window, sum, chunks)
	}
	first := slices.Clone(cell)
	slices.SortFunc(first, func(a, b *proxied) int { return a.arrived.Compare(b.arrived) })
	var ws time.Time
	for _, r := range first[:sp.c] {
		if len(r.chunks) > 0 && r.chunks[0].After(ws) {
			ws = r.chunks[0]
		}
	}
	we := ws.Add(time.Duration(*x.MeasuredS * float64(time.Second)))
	var inWindow int64
	for _, r := range cell {
		for _, at := range r.chunks {
			if !at.Before(ws) && at.Before(we) {
				inWindow++
			}
		}
	}
	// Tokens within a few milliseconds of either edge may fall either
	// side: allow two per stream and 1%.
	if tol := 2*int64(sp.c) + inWindow/100; abs(window-inWindow) > tol {
		t.Errorf("%s: %d window tokens, the engine sent %d in the same window (tolerance %d)", name, window, inWindow, tol)
	}
	// TTFT and TBT: the runner's per-request medians against the times
	// the proxy saw (its TTFT starts when it has read the request, a
	// little after the runner sent it; its chunks pass a little before
	// the runner reads them). TTFT may differ by 25 ms or 25%, TBT by
	// 1 ms or 15%, plus what the machine's load adds: each end of a
	// request's in-window span may be read late by the scheduling lag the
	// test measured during the run (its 90th percentile, lag), which moves
	// a per-request TBT by up to 2×lag over its fewest in-window gaps.
	var runTTFT, runTBT, engTTFT, engTBT []float64
	fewest := 0 // the fewest in-window gaps of a request
	for _, s := range samples {
		if s.TTFTMs != nil {
			runTTFT = append(runTTFT, *s.TTFTMs)
		}
		if s.TBTMs != nil {
			runTBT = append(runTBT, *s.TBTMs)
		}
	}
	for _, r := range cell {
		if len(r.chunks) > 0 {
			engTTFT = append(engTTFT, ms(r.chunks[0].Sub(r.arrived)))
		}
		// TBT as the runner defines it: per request, over its chunks
		// inside the window (one token each).
		var in []time.Time
		for _, at := range r.chunks {
			if !at.Before(ws) && at.Before(we) {
				in = append(in, at)
			}
		}
		if len(in) > 1 {
			engTBT = append(engTBT, ms(in[len(in)-1].Sub(in[0]))/float64(len(in)-1))
			if fewest == 0 || len(in)-1 < fewest {
				fewest = len(in) - 1
			}
		}
	}
	rt, et, rb, eb := medianOf(runTTFT), medianOf(engTTFT), medianOf(runTBT), medianOf(engTBT)
	withUsage := 0
	for _, p := range enginePrompt {
		if p > 0 {
			withUsage++
		}
	}
	if withUsage == 0 && deref(x.PromptTokens) != 0 {
		t.Errorf("%s: prompt tokens %d, but no request of the cell finished with usage", name, deref(x.PromptTokens))
	}
	t.Logf("%s: prompt tokens per request, runner = engine usage: %d (context %d) in the %d of %d requests that finished; "+
		"completion tokens = chunks counted = max_tokens = %d in each finished; window tokens %d in %.2f s, engine sent %d in the same window, %d in the cell; "+
		"TTFT median %.2f ms (engine %.2f); TBT median %.3f ms (engine %.3f, same window)",
		name, deref(x.PromptTokens), *x.ContextTokens, withUsage, len(cell), cell[0].maxTokens, window, *x.MeasuredS, inWindow, chunks, rt, et, rb, eb)
	if !(rt > 0 && rt < 60000) || math.Abs(rt-et) > max(25, 0.25*et) {
		t.Errorf("%s: TTFT median %.2f ms, the engine's %.2f ms", name, rt, et)
	}
	tbtSlack := max(1, 0.15*eb) + 2*ms(lag)/float64(max(fewest, 1))
	if !(rb > 0 && rb < 1000) || math.Abs(rb-eb) > tbtSlack {
		t.Errorf("%s: TBT median %.3f ms, the engine's %.3f ms (tolerance %.3f ms with the scheduling lag %v)", name, rb, eb, tbtSlack, lag)
	}
}

func findCell(t *testing.T, m *schema.Matrix, sp cellSpan) schema.Measurement {
	t.Helper()
	for _, x := range m.Measurements {
		if string(x.Phase) == sp.phase && x.ContextLabel == sp.label && int(deref(x.Concurrency)) == sp.c {
			return x
		}
	}
	t.Fatalf("no archived cell %s %s ×%d", sp.phase, sp.label, sp.c)
	return schema.Measurement{}
}

// archivedRun loads the archive's one run.
func archivedRun(t *testing.T, ctx context.Context, arch string) *schema.Matrix {
	t.Helper()
	a, err := archive.Open(arch)
	if err != nil {
		t.Fatal(err)
	}
	runs, err := a.Runs(ctx)
	if err != nil || len(runs) != 1 {
		t.Fatalf("archive runs %v, %v", runs, err)
	}
	got, err := a.Load(ctx, runs[0].RunID)
	if err != nil {
		t.Fatal(err)
	}
	return got[0]
}

// documentMatches parses the -out document and checks it holds exactly
// the archived run's rows.
func documentMatches(t *testing.T, path string, m *schema.Matrix) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	doc, err := parse.Parse(f, path, "")
	if err != nil {
		t.Fatal(err)
	}
	if doc.Run.RunID != m.Run.RunID || len(doc.Measurements) != len(m.Measurements) {
		t.Fatalf("document: run %s with %d cells; archive: run %s with %d", doc.Run.RunID, len(doc.Measurements), m.Run.RunID, len(m.Measurements))
	}
	for i := range m.Measurements {
		if g, w := columns(&doc.Measurements[i]), columns(&m.Measurements[i]); fmt.Sprint(g) != fmt.Sprint(w) {
			t.Errorf("row %d:\ndocument %v\narchived %v", i, g, w)
		}
	}
}

func within(got, want, rel float64) bool { return math.Abs(got-want) <= rel*want }

func abs(x int64) int64 { return max(x, -x) }

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

func medianOf(x []float64) float64 {
	if len(x) == 0 {
		return math.NaN()
	}
	x = slices.Clone(x)
	slices.Sort(x)
	if n := len(x); n%2 == 1 {
		return x[n/2]
	} else {
		return (x[n/2-1] + x[n/2]) / 2
	}
}

func deref[T any](p *T) T {
	var z T
	if p == nil {
		return z
	}
	return *p
}

func TestPromptsAgree(t *testing.T) {
	tests := []struct {
		runner, engine []int64
		streams        int
		want           bool
	}{
		{[]int64{128, 128, 0}, []int64{0, 128, 128}, 1, true},
		{[]int64{128, 0, 0}, []int64{128, 128, 0}, 1, true},    // one usage unread at the window's end
		{[]int64{128, 0, 0}, []int64{128, 128, 128}, 1, false}, // two unread with one stream
		{[]int64{128, 0, 0}, []int64{128, 128, 128}, 2, true},
		{[]int64{127, 128}, []int64{128, 128}, 2, false}, // a count the engine never sent
		{[]int64{128, 128}, []int64{128, 0}, 2, false},   // the runner read usage the engine never sent
		{[]int64{128}, []int64{128, 0}, 2, false},
	}
	for _, tt := range tests {
		if got := promptsAgree(tt.runner, tt.engine, tt.streams); got != tt.want {
			t.Errorf("promptsAgree(%v, %v, %d) = %v, want %v", tt.runner, tt.engine, tt.streams, got, tt.want)
		}
	}
}
