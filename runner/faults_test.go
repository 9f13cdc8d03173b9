package runner

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"speedmatrix/runner/sim"
	"speedmatrix/schema"
)

// Misbehaving servers: each test ends in bounded time with a clear reason
// and loses nothing. A test of a hang runs its subject under endsWithin, so
// that without the bound it fails instead of hanging.

// shortTimeouts are client timeouts short enough for unit tests.
func shortTimeouts() Timeouts {
	return Timeouts{Connect: time.Second, Request: 500 * time.Millisecond, Metrics: 300 * time.Millisecond,
		Header: 500 * time.Millisecond, Idle: 500 * time.Millisecond}
}

// endsWithin runs f and fails the test when f has not returned after d.
func endsWithin(t *testing.T, d time.Duration, what string, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		f()
	}()
	select {
	case <-done:
	case <-time.After(d):
		t.Fatalf("%s still running after %v: it hangs", what, d)
	}
}

// faulty serves a simulator behind h: h answers the requests it wants to
// misbehave on (returning true) and leaves the others to the simulator.
// Handlers that hang wait for quit too, so that a test that fails on a
// hang still shuts its server down.
type faulty struct {
	sim  *sim.Server
	quit chan struct{}
	url  string
}

func startFaulty(t *testing.T, p sim.Profile, h func(f *faulty, w http.ResponseWriter, r *http.Request) bool) (*faulty, *Client) {
	t.Helper()
	f := &faulty{sim: sim.New(p), quit: make(chan struct{})}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if h == nil || !h(f, w, r) {
			f.sim.ServeHTTP(w, r)
		}
	}))
	t.Cleanup(f.sim.Close)
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(f.quit) })
	f.url = srv.URL
	c, err := NewClient(ClientConfig{URL: srv.URL, Model: p.ModelName, MaxConns: 16, Timeouts: shortTimeouts()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return f, c
}

// hang holds a request until the client goes away or the test ends.
func (f *faulty) hang(r *http.Request) {
	select {
	case <-r.Context().Done():
	case <-f.quit:
	}
}

// ended reports whether the test has ended.
func (f *faulty) ended() bool {
	select {
	case <-f.quit:
		return true
	default:
		return false
	}
}

// runMatrix runs cfg against the server behind c and returns the matrix.
func runMatrix(t *testing.T, c *Client, cfg Config) *schema.Matrix {
	t.Helper()
	r, err := New(c, cfg)
	if err != nil {
		t.Fatal(err)
	}
	m, err := r.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// isGenerate reports whether r asks for a completion.
func isGenerate(r *http.Request) bool {
	return strings.HasSuffix(r.URL.Path, "/completions")
}

// maxTokensOf reads max_tokens from a completion request, leaving the body
// readable.
func maxTokensOf(r *http.Request) int {
	b, _ := io.ReadAll(r.Body)
	r.Body = io.NopCloser(strings.NewReader(string(b)))
	var v struct {
		MaxTokens int `json:"max_tokens"`
	}
	_ = json.Unmarshal(b, &v)
	return v.MaxTokens
}

// TestProbeEndsOnMisbehavingServers covers cases 4, 5 and 7 for one
// one-token probe: a server that never sends headers, sends headers and
// no event, stalls after a token, or streams without end.
func TestProbeEndsOnMisbehavingServers(t *testing.T) {
	tests := []struct {
		name    string
		serve   func(f *faulty, w http.ResponseWriter, r *http.Request)
		errWant string // "" when the probe must succeed
		errAlt  string // another error that ends the probe as well
		overran bool
	}{
		{"no headers", func(f *faulty, w http.ResponseWriter, r *http.Request) { f.hang(r) }, "stalled: no response headers within 500ms", "", false},
		{"headers and no event", func(f *faulty, w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/event-stream")
			w.WriteHeader(http.StatusOK)
			w.(http.Flusher).Flush()
			f.hang(r)
		}, "stalled: no event within 500ms", "", false},
		{"stall after the first token", func(f *faulty, w http.ResponseWriter, r *http.Request) {
			fmt.Fprint(w, content("a")+"\n\n")
			w.(http.Flusher).Flush()
			f.hang(r)
		}, "stalled: no bytes for 500ms", "", false},
		{"endless tokens", func(f *faulty, w http.ResponseWriter, r *http.Request) {
			for i := 0; r.Context().Err() == nil && !f.ended(); i++ {
				if _, err := fmt.Fprint(w, content(fmt.Sprintf("w%d ", i))+"\n\n"); err != nil {
					return
				}
				w.(http.Flusher).Flush()
			}
		}, "", "", true},
		{"endless line", func(f *faulty, w http.ResponseWriter, r *http.Request) {
			fmt.Fprint(w, `data: {"choices":[{"index":0,"delta":{"content":"`)
			chunk := []byte(strings.Repeat("x", 64<<10))
			for r.Context().Err() == nil && !f.ended() {
				if _, err := w.Write(chunk); err != nil {
					return
				}
			}
		}, "response longer than the client reads for it", "stalled: no event within", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, c := startFaulty(t, fastProfile(), func(f *faulty, w http.ResponseWriter, r *http.Request) bool {
				if !isGenerate(r) {
					return false
				}
				tt.serve(f, w, r)
				return true
			})
			var rec record
			start := time.Now()
			endsWithin(t, 10*time.Second, "probe", func() { rec = c.probe(context.Background(), "hello") })
			t.Logf("%v: err %q, tokens %d, overran %v", time.Since(start).Round(time.Millisecond), rec.err, rec.tokens, rec.overran)
			// Note: 8 MiB of one line may take longer than the idle
			// bound on a slow machine (the race detector): the watchdog,
			// which stamps events, not reads, ends it first.
			if tt.errWant != "" && !strings.Contains(rec.err, tt.errWant) && (tt.errAlt == "" || !strings.Contains(rec.err, tt.errAlt)) {
				t.Fatalf("err %q, want %q", rec.err, tt.errWant)
			}
			if tt.errWant == "" && rec.failed() {
				t.Fatalf("unexpected error %q", rec.err)
			}
			if rec.overran != tt.overran || rec.tokens > probeMaxTokens {
				t.Fatalf("overran %v with %d tokens; want overran %v and at most %d", rec.overran, rec.tokens, tt.overran, probeMaxTokens)
			}
		})
	}
}

// TestStartupRequestsBounded covers case 5 at startup: /v1/models (and
// every discovery request) answered by a server that never sends headers
// ends with the limit in the error; a /metrics that hangs is only absent.
func TestStartupRequestsBounded(t *testing.T) {
	t.Run("models", func(t *testing.T) {
		_, c := startFaulty(t, fastProfile(), func(f *faulty, w http.ResponseWriter, r *http.Request) bool {
			if r.Method != http.MethodGet {
				return false
			}
			f.hang(r)
			return true
		})
		r, err := New(c, testConfig())
		if err != nil {
			t.Fatal(err)
		}
		endsWithin(t, 10*time.Second, "Run", func() { _, err = r.Run(context.Background()) })
		if err == nil || !strings.Contains(err.Error(), "GET /v1/models: no answer within 500ms") {
			t.Fatalf("err %v", err)
		}
	})
	t.Run("metrics", func(t *testing.T) {
		_, c := startFaulty(t, fastProfile(), func(f *faulty, w http.ResponseWriter, r *http.Request) bool {
			if r.URL.Path != "/metrics" {
				return false
			}
			f.hang(r)
			return true
		})
		var info ServerInfo
		var err error
		endsWithin(t, 10*time.Second, "Discover", func() { info, err = c.Discover(context.Background(), 0) })
		if err != nil || info.Metrics || info.MaxModelLen == 0 {
			t.Fatalf("info %+v, err %v", info, err)
		}
	})
	t.Run("Ollama's version", func(t *testing.T) {
		// A server without /version whose /api/version never answers: the
		// version is unknown, the run goes on.
		_, c := startFaulty(t, fastProfile(), func(f *faulty, w http.ResponseWriter, r *http.Request) bool {
			switch r.URL.Path {
			case "/version":
				http.NotFound(w, r)
			case "/api/version":
				f.hang(r)
			default:
				return false
			}
			return true
		})
		var info ServerInfo
		var err error
		endsWithin(t, 10*time.Second, "Discover", func() { info, err = c.Discover(context.Background(), 0) })
		if err != nil || info.Version != "" || info.MaxModelLen == 0 {
			t.Fatalf("info %+v, err %v", info, err)
		}
	})
}

// TestRunEndsWhenProbesStall covers case 4 in a run: one-token probes
// (negotiation, tokenize check, prefill, scout) meet a server that never
// answers them. When the first request of the run gets no answer, the run
// stops before any load; when later ones get none, every cell is an error
// saying why.
func TestRunEndsWhenProbesStall(t *testing.T) {
	for _, tt := range []struct {
		name    string
		from    int64 // the first probe that hangs
		errWant string
	}{
		{"negotiation", 1, "the first request got no answer: stalled: no response headers within 500ms"},
		{"tokenize check, prefill and scout", 2, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var probes atomic.Int64
			_, c := startFaulty(t, fastProfile(), func(f *faulty, w http.ResponseWriter, r *http.Request) bool {
				if !isGenerate(r) || maxTokensOf(r) != 1 || probes.Add(1) < tt.from {
					return false
				}
				f.hang(r)
				return true
			})
			cfg := testConfig()
			cfg.Contexts, cfg.Concurrency = []int64{1024}, []int{1}
			r, err := New(c, cfg)
			if err != nil {
				t.Fatal(err)
			}
			var m *schema.Matrix
			endsWithin(t, 30*time.Second, "Run", func() { m, err = r.Run(context.Background()) })
			if tt.errWant != "" {
				if err == nil || !strings.Contains(err.Error(), tt.errWant) {
					t.Fatalf("err %v, want %q", err, tt.errWant)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(m.Measurements) != 2 {
				t.Fatalf("%d cells, want 2", len(m.Measurements))
			}
			for _, x := range m.Measurements {
				t.Logf("%s %s: %s (%s)", x.Phase, x.ContextLabel, x.Status, x.StatusReason)
				if x.Status != schema.StatusError || !strings.Contains(x.StatusReason, "stalled: no response headers within 500ms") {
					t.Errorf("%s cell: %s (%s)", x.Phase, x.Status, x.StatusReason)
				}
			}
			if fit := r.info.PromptFit; !strings.Contains(fit.Note, "stalled") {
				t.Errorf("tokenize check: %+v", fit)
			}
		})
	}
}

// TestMetricsHangMidCell covers case 6: /metrics hangs once the window is
// open. The cell ends on time with a note, and no load is sent after the
// run returns.
func TestMetricsHangMidCell(t *testing.T) {
	var hangMetrics atomic.Bool
	f, c := startFaulty(t, fastProfile(), func(f *faulty, w http.ResponseWriter, r *http.Request) bool {
		if r.URL.Path != "/metrics" || !hangMetrics.Load() {
			return false
		}
		f.hang(r)
		return true
	})
	cfg := testConfig()
	cfg.Contexts, cfg.Concurrency, cfg.Duration = []int64{1024}, []int{2}, 1500*time.Millisecond
	cfg.Progress = func(p Progress) {
		if p.Phase == "measure" {
			hangMetrics.Store(true)
		}
	}
	r, err := New(c, cfg)
	if err != nil {
		t.Fatal(err)
	}
	var m *schema.Matrix
	endsWithin(t, 20*time.Second, "Run", func() { m, err = r.Run(context.Background()) })
	if err != nil {
		t.Fatal(err)
	}
	d := cellsByKey(m)[cellKey(schema.PhaseDecode, "1K", 2)]
	t.Logf("%s: %s; measured %v s", d.Status, d.StatusReason, *d.MeasuredS)
	if d.Status != schema.StatusValid || !strings.Contains(d.StatusReason, "/metrics") || d.MeasuredS == nil || *d.MeasuredS > 1.6 {
		t.Fatalf("status %s (%s), measured %v", d.Status, d.StatusReason, d.MeasuredS)
	}
	if d.ServerGenerationTokens != nil {
		t.Errorf("server figures kept from a failed scrape")
	}
	n := len(f.sim.Requests())
	time.Sleep(300 * time.Millisecond)
	if after := len(f.sim.Requests()); after != n {
		t.Fatalf("%d requests sent after the run returned", after-n)
	}
}

// endlessServer ignores max_tokens: every completion streams tokens, with
// usage in every chunk, until the client goes away (case 9, and case 7
// for its probes). Its /tokenize counts as its usage does, 5 tokens less.
func endlessServer(t *testing.T) *Client {
	return endlessServerWith(t, endless{tokenize: true})
}

// endless shapes endlessServerWith's server.
type endless struct {
	// tokenize serves POST /tokenize.
	tokenize bool
	// promptTokens, when above 0, is the usage.prompt_tokens reported for
	// every prompt (a server whose usage is wrong); else one token per 4
	// bytes, plus 5.
	promptTokens int64
	// noUsage sends no usage: a server that sends it only in its final
	// chunk, which never comes.
	noUsage bool
}

// endlessServerWith is endlessServer shaped by e.
func endlessServerWith(t *testing.T, e endless) *Client {
	t.Helper()
	quit := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		count := func(b []byte) int64 {
			var v struct {
				Prompt   string `json:"prompt"`
				Messages []struct {
					Content string `json:"content"`
				} `json:"messages"`
			}
			_ = json.Unmarshal(b, &v)
			n := len(v.Prompt)
			for _, m := range v.Messages {
				n += len(m.Content)
			}
			return int64(n+3) / 4
		}
		b, _ := io.ReadAll(r.Body)
		switch {
		case r.URL.Path == "/v1/models":
			fmt.Fprint(w, `{"data":[{"id":"m","max_model_len":32768}]}`)
		case r.URL.Path == "/tokenize" && e.tokenize:
			fmt.Fprintf(w, `{"count":%d}`, count(b))
		case r.URL.Path == "/v1/chat/completions":
			prompt := count(b) + 5
			if e.promptTokens > 0 {
				prompt = e.promptTokens
			}
			w.Header().Set("Content-Type", "text/event-stream")
			for i := int64(1); r.Context().Err() == nil; i++ {
				select {
				case <-quit:
					return
				default:
				}
				usage := fmt.Sprintf(`,"usage":{"prompt_tokens":%d,"completion_tokens":%d}`, prompt, i)
				if e.noUsage {
					usage = ""
				}
				_, err := fmt.Fprintf(w, `data: {"choices":[{"index":0,"delta":{"content":"w%d "}}]%s}`+"\n\n", i*7919%10007, usage)
				if err != nil {
					return
				}
				w.(http.Flusher).Flush()
				time.Sleep(time.Millisecond)
			}
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(quit) })
	c, err := NewClient(ClientConfig{URL: srv.URL, Model: "m", Timeouts: shortTimeouts()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c
}

// TestEndlessServerWrongUsage: a server that streams without end from
// its first request (no /tokenize, so prompts are fitted with probes)
// fails every cell with the server's faults named (it ignored
// max_tokens; its usage is wrong or missing), not with their symptom
// ("padding text too short for 1024 tokens").
func TestEndlessServerWrongUsage(t *testing.T) {
	for _, tc := range []struct {
		name string
		e    endless
		want []string
	}{
		{"10 prompt tokens for any prompt", endless{promptTokens: 10}, []string{"ignored max_tokens=1", "reported 10 prompt tokens for 4", "usage counts are wrong"}},
		{"no usage", endless{noUsage: true}, []string{"ignored max_tokens=1", "no usage.prompt_tokens"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := endlessServerWith(t, tc.e)
			cfg := testConfig()
			cfg.Contexts, cfg.Concurrency, cfg.MaxTokens = []int64{1024}, []int{1}, 50
			r, err := New(c, cfg)
			if err != nil {
				t.Fatal(err)
			}
			var m *schema.Matrix
			endsWithin(t, 30*time.Second, "Run", func() { m, err = r.Run(context.Background()) })
			if err != nil {
				t.Fatal(err)
			}
			if len(m.Measurements) == 0 {
				t.Fatal("no cells")
			}
			for _, x := range m.Measurements {
				t.Logf("%s: %s (%s)", x.Phase, x.Status, x.StatusReason)
				if x.Status != schema.StatusError || strings.Contains(x.StatusReason, "too short") {
					t.Errorf("%s cell: %s (%s), want an error naming the server's faults", x.Phase, x.Status, x.StatusReason)
				}
				for _, w := range tc.want {
					if !strings.Contains(x.StatusReason, w) {
						t.Errorf("%s cell: reason %q lacks %q", x.Phase, x.StatusReason, w)
					}
				}
			}
		})
	}
}

// TestPromptWrongCounts: a counter that says 10 tokens for any text (a
// server whose usage is wrong, though it honours max_tokens) is named as
// wrong, not as padding text too short; a body genuinely too short still
// says so.
func TestPromptWrongCounts(t *testing.T) {
	head := promptHead("0123abcd", "1K")
	ten := func(context.Context, string) (int64, error) { return 10, nil }
	for _, exact := range []bool{true, false} {
		_, err := fitPrompt(context.Background(), head, neutralText(newRand(3), 12000), 1024, ten, exact)
		if err == nil || !strings.Contains(err.Error(), "counts 10 tokens for") || !strings.Contains(err.Error(), "token counts are wrong") {
			t.Errorf("exact %v: error %v, want the counts named wrong", exact, err)
		}
	}
	if _, err := fitPrompt(context.Background(), head, neutralText(newRand(3), 1000), 100000, wordCounter(0), true); err == nil || !strings.Contains(err.Error(), "padding text too short") {
		t.Errorf("short padding: error %v", err)
	}
}

// TestServerIgnoresMaxTokens covers case 9: the run ends; its prefill
// cell is valid with a note (a first token's time does not depend on
// max_tokens), its decode cell is an error that names the fault, its
// figures kept: streams that never end are not the workload asked for.
func TestServerIgnoresMaxTokens(t *testing.T) {
	c := endlessServer(t)
	cfg := testConfig()
	cfg.Contexts, cfg.Concurrency, cfg.MaxTokens = []int64{1024}, []int{1}, 50
	r, err := New(c, cfg)
	if err != nil {
		t.Fatal(err)
	}
	var m *schema.Matrix
	endsWithin(t, 30*time.Second, "Run", func() { m, err = r.Run(context.Background()) })
	if err != nil {
		t.Fatal(err)
	}
	want := map[schema.Phase]schema.Status{schema.PhasePrefill: schema.StatusValid, schema.PhaseDecode: schema.StatusError}
	for _, x := range m.Measurements {
		t.Logf("%s: %s (%s)", x.Phase, x.Status, x.StatusReason)
		if x.Status != want[x.Phase] || !strings.Contains(x.StatusReason, "ignored max_tokens") {
			t.Errorf("%s cell: %s (%s), want %s naming the ignored max_tokens", x.Phase, x.Status, x.StatusReason, want[x.Phase])
		}
	}
	d := cellsByKey(m)[cellKey(schema.PhaseDecode, "1K", 1)]
	if d.OutputTokens == nil || *d.OutputTokens <= 50 {
		t.Errorf("decode cell counted %v tokens", d.OutputTokens)
	}
	if !strings.Contains(d.StatusReason, "max_tokens=50: 1 of 1 requests streamed past it") {
		t.Errorf("decode cell: reason %q", d.StatusReason)
	}
}

// staleConns serves p's simulator but drops every POST (completions,
// /tokenize) that is the dropEvery-th on its connection without a byte, as a server
// closing an idle keep-alive connection while the request goes out.
func staleConns(t *testing.T, p sim.Profile, dropEvery int32) (*sim.Server, *Client) {
	t.Helper()
	s := sim.New(p)
	type counter struct{ n atomic.Int32 }
	type key struct{}
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := r.Context().Value(key{}).(*counter).n.Add(1)
		if r.Method == http.MethodPost && n%dropEvery == 0 {
			conn, _, err := http.NewResponseController(w).Hijack()
			if err == nil {
				conn.Close()
			}
			return
		}
		s.ServeHTTP(w, r)
	}))
	srv.Config.ConnContext = func(ctx context.Context, _ net.Conn) context.Context {
		return context.WithValue(ctx, key{}, &counter{})
	}
	srv.Start()
	t.Cleanup(s.Close)
	t.Cleanup(srv.Close)
	c, err := NewClient(ClientConfig{URL: srv.URL, Model: p.ModelName, MaxConns: 16})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return s, c
}

// TestStaleConnectionRetried: a request that finds its reused connection
// closed before any response byte is sent once more on a new connection,
// and counted.
func TestStaleConnectionRetried(t *testing.T) {
	t.Run("probe", func(t *testing.T) {
		// Note: whether a connection goes back to the pool depends on
		// whether the end of its body arrived with [DONE], a race; ten
		// probes reuse some.
		_, c := staleConns(t, fastProfile(), 2)
		retries := 0
		for i := range 10 {
			rec := c.probe(context.Background(), "hello")
			if rec.failed() || rec.first < 0 {
				t.Fatalf("probe %d: err %q", i, rec.err)
			}
			retries += int(rec.retries)
		}
		if retries == 0 {
			t.Fatal("no probe met a closed connection")
		}
	})
	t.Run("tokenize", func(t *testing.T) {
		_, c := staleConns(t, fastProfile(), 2)
		for i := range 10 {
			if _, err := c.tokenizeAs(context.Background(), tokenizeOpenAI, "hello"); err != nil {
				t.Fatalf("request %d: %v", i, err)
			}
		}
	})
	t.Run("cell", func(t *testing.T) {
		_, c := staleConns(t, fastProfile(), 3)
		cfg := testConfig()
		cfg.Contexts, cfg.Concurrency, cfg.MaxTokens = []int64{1024}, []int{4}, 20
		m := runMatrix(t, c, cfg)
		d := cellsByKey(m)[cellKey(schema.PhaseDecode, "1K", 4)]
		var retries float64
		for _, e := range d.Extra {
			if e.Name == "client_retries" {
				retries = e.Value
			}
		}
		errored := int64(-1)
		if d.ErroredRequests != nil {
			errored = *d.ErroredRequests
		}
		t.Logf("%s (%s): errored %d, retries %v", d.Status, d.StatusReason, errored, retries)
		if d.Status != schema.StatusValid || errored != 0 || retries == 0 {
			t.Fatalf("status %s (%s), errored %d, retries %v", d.Status, d.StatusReason, errored, retries)
		}
	})
	t.Run("rate", func(t *testing.T) {
		// An open-loop row reports its retries as a cell does (it did
		// not: client_retries was missing from every rate row).
		_, c := staleConns(t, fastProfile(), 3)
		cfg := Config{Duration: time.Second, Serve: &ServeConfig{Rates: []float64{20}, Input: Fixed(256), Output: Fixed(20), Seed: 1}}
		m := runMatrix(t, c, cfg)
		if len(m.Measurements) != 1 {
			t.Fatalf("%d rows", len(m.Measurements))
		}
		x := m.Measurements[0]
		retries := extraOf(x, "client_retries")
		errored := int64(-1)
		if x.ErroredRequests != nil {
			errored = *x.ErroredRequests
		}
		t.Logf("%s (%s): errored %d, retries %v", x.Status, x.StatusReason, errored, retries)
		if x.Status != schema.StatusValid || errored != 0 || retries == 0 {
			t.Fatalf("status %s (%s), errored %d, retries %v", x.Status, x.StatusReason, errored, retries)
		}
	})
}

// extraOf returns the extra metric name of x, 0 when absent.
func extraOf(x schema.Measurement, name string) float64 {
	for _, e := range x.Extra {
		if e.Name == name {
			return e.Value
		}
	}
	return 0
}

// TestRatesEndlessServer: open-loop rates against a server that streams
// without end (`-rates 5,10 -duration 2s` took 129.5 s, a fixed minute
// of drain per rate, and stored valid rows): each request is read only
// to its max_tokens, so the run ends soon after the last arrival, and
// each row is an error that names the fault.
func TestRatesEndlessServer(t *testing.T) {
	c := endlessServer(t)
	cfg := Config{Duration: time.Second, Serve: &ServeConfig{Rates: []float64{5, 10}, Input: Fixed(256), Output: Fixed(16), Seed: 1}}
	r, err := New(c, cfg)
	if err != nil {
		t.Fatal(err)
	}
	var m *schema.Matrix
	start := time.Now()
	endsWithin(t, 20*time.Second, "Run", func() { m, err = r.Run(context.Background()) })
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d rows in %v", len(m.Measurements), time.Since(start))
	if len(m.Measurements) != 2 {
		t.Fatalf("%d rows, want 2", len(m.Measurements))
	}
	for _, x := range m.Measurements {
		t.Logf("%v req/s: %s (%s)", deref(x.RequestRate), x.Status, x.StatusReason)
		if x.Status != schema.StatusError || !strings.Contains(x.StatusReason, "ignored max_tokens") {
			t.Errorf("rate %v: %s (%s), want an error naming the ignored max_tokens", deref(x.RequestRate), x.Status, x.StatusReason)
		}
		if n := extraOf(x, "incomplete_requests"); n != 0 {
			t.Errorf("rate %v: %v requests cut by the drain, want none held", deref(x.RequestRate), n)
		}
	}
}

// TestUnservableContexts: a context the server cannot hold is a clear
// error before any load, never a negative or silently halved context.
func TestUnservableContexts(t *testing.T) {
	tests := []struct {
		name      string
		contexts  []int64
		maxTokens int
		errWant   string // "" when the run goes ahead
	}{
		{"no room left for the prompt", []int64{256}, 1000, "context 256 (256 tokens) cannot be served: the server holds 1024 tokens per request, and 1000 output tokens plus a margin of 64 leave -40"},
		{"2K of a 1K slot", []int64{512, 2048}, 256, "context 2K (2048 tokens) cannot be served"},
		{"fits", []int64{512}, 256, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := fastProfile()
			p.MaxModelLen = 1024
			srv, c := startSim(t, p, ClientConfig{Timeouts: shortTimeouts()})
			cfg := testConfig()
			cfg.Contexts, cfg.Concurrency, cfg.MaxTokens, cfg.Duration = tt.contexts, []int{1}, tt.maxTokens, 300*time.Millisecond
			r, err := New(c, cfg)
			if err != nil {
				t.Fatal(err)
			}
			m, err := r.Run(context.Background())
			if tt.errWant == "" {
				if err != nil {
					t.Fatal(err)
				}
				for _, x := range m.Measurements {
					if x.Status != schema.StatusValid || *x.ContextTokens != tt.contexts[0] {
						t.Errorf("%s %s: %s (%s)", x.Phase, x.ContextLabel, x.Status, x.StatusReason)
					}
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.errWant) {
				t.Fatalf("err %v, want %q", err, tt.errWant)
			}
			if n := len(srv.Requests()); n != 0 {
				t.Fatalf("%d requests sent before the error", n)
			}
		})
	}
}

// TestConcurrencyAboveSlots: C above a llama.cpp server's slots is warned
// about up front, in the run's metadata too, and the window opens once the
// slots run and the rest wait, which the cell's note says (the warning
// was on stderr only, and the cell read as C streams at once); when the slots are unknown, the drain wait is bounded by
// DrainTimeout and the cell says so.
func TestConcurrencyAboveSlots(t *testing.T) {
	for _, props := range []bool{true, false} {
		t.Run(fmt.Sprintf("props=%v", props), func(t *testing.T) {
			p := fastProfile()
			p.MaxRunning = 2
			_, c := startFaulty(t, p, func(f *faulty, w http.ResponseWriter, r *http.Request) bool {
				switch {
				case props && r.URL.Path == "/version":
					http.NotFound(w, r)
				case props && r.URL.Path == "/props":
					fmt.Fprintf(w, `{"default_generation_settings":{"n_ctx":%d},"total_slots":2,"build_info":"b1-test"}`, p.MaxModelLen)
				default:
					return false
				}
				return true
			})
			cfg := testConfig()
			cfg.Contexts, cfg.Concurrency, cfg.MaxTokens = []int64{1024}, []int{4}, 100
			cfg.StartTimeout, cfg.DrainTimeout = 5*time.Second, 30*time.Second
			if !props {
				cfg.DrainTimeout = 500 * time.Millisecond
			}
			var warned []string
			cfg.Warn = func(s string) { warned = append(warned, s) }
			m := runMatrix(t, c, cfg)
			d := cellsByKey(m)[cellKey(schema.PhaseDecode, "1K", 4)]
			t.Logf("warnings %q; %s (%s)", warned, d.Status, d.StatusReason)
			if d.Status != schema.StatusValid {
				t.Fatalf("status %s (%s)", d.Status, d.StatusReason)
			}
			if props {
				if len(warned) != 1 || !strings.Contains(warned[0], "concurrency 4 exceeds the server's 2 slots") ||
					d.StatusReason != "note: 2 of the 4 requests at once queue behind the server's 2 slots" {
					t.Fatalf("warnings %q, reason %q", warned, d.StatusReason)
				}
				if v := metadataValue(m, NoteSlots); v != warned[0] {
					t.Fatalf("run metadata %q = %q, want the warning %q", NoteSlots, v, warned[0])
				}
			} else if !strings.Contains(d.StatusReason, "window opened with the server's queue not drained") {
				t.Fatalf("reason %q", d.StatusReason)
			}
		})
	}
}

// TestKVCacheFull: a server that answers HTTP 500 "Context size has been
// exceeded." when more than two decode requests run (llama.cpp with a full
// shared KV cache) makes the cell over capacity, and larger cells are not
// run.
func TestKVCacheFull(t *testing.T) {
	var inflight atomic.Int32
	_, c := startFaulty(t, fastProfile(), func(f *faulty, w http.ResponseWriter, r *http.Request) bool {
		if !isGenerate(r) || maxTokensOf(r) <= 1 {
			return false
		}
		defer inflight.Add(-1)
		if inflight.Add(1) > 2 {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusInternalServerError)
			fmt.Fprint(w, `{"error":{"code":500,"message":"Context size has been exceeded.","type":"server_error"}}`)
			return true
		}
		f.sim.ServeHTTP(w, r)
		return true
	})
	cfg := testConfig()
	cfg.Contexts, cfg.Concurrency, cfg.MaxTokens, cfg.Duration = []int64{1024, 2048}, []int{1, 4}, 50, 500*time.Millisecond
	m := runMatrix(t, c, cfg)
	cells := cellsByKey(m)
	for _, tt := range []struct {
		label  string
		c      int32
		status schema.Status
		reason string
	}{
		{"1K", 1, schema.StatusValid, ""},
		{"1K", 4, schema.StatusOverCapacity, `the server's KV cache is full`},
		{"2K", 1, schema.StatusValid, ""},
		{"2K", 4, schema.StatusOverCapacity, "the server's KV cache overflowed at 1K × 4"},
	} {
		d := cells[cellKey(schema.PhaseDecode, tt.label, tt.c)]
		t.Logf("%s×%d: %s (%s)", tt.label, tt.c, d.Status, d.StatusReason)
		if d.Status != tt.status || !strings.Contains(d.StatusReason, tt.reason) {
			t.Errorf("%s×%d: %s (%s), want %s (%s)", tt.label, tt.c, d.Status, d.StatusReason, tt.status, tt.reason)
		}
	}
}

// metadataValue returns the value of the run metadata key, "" when absent.
func metadataValue(m *schema.Matrix, key string) string {
	for _, f := range m.Run.Metadata {
		if f.Key == key {
			return f.Value
		}
	}
	return ""
}
