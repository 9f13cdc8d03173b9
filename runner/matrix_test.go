package runner

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"speedmatrix/runner/sim"
	"speedmatrix/schema"
)

// fastProfile is a simulator profile quick enough for unit tests.
func fastProfile() sim.Profile {
	p := sim.DefaultProfile()
	p.StepBase = time.Millisecond
	return p
}

func testConfig() Config {
	return Config{
		Contexts:     []int64{1024, 2048},
		Concurrency:  []int{1, 2},
		Duration:     time.Second,
		MaxTokens:    200,
		IdleTimeout:  5 * time.Second,
		StartTimeout: 20 * time.Second,
	}
}

func cellsByKey(m *schema.Matrix) map[string]schema.Measurement {
	out := map[string]schema.Measurement{}
	for _, x := range m.Measurements {
		c := int32(0)
		if x.Concurrency != nil {
			c = *x.Concurrency
		}
		out[cellKey(x.Phase, x.ContextLabel, c)] = x
	}
	return out
}

func TestRunMatrix(t *testing.T) {
	_, c := startSim(t, fastProfile(), ClientConfig{})
	cfg := testConfig()
	cfg.Labels = Labels{GPU: "test GPU", Engine: "sim"}
	var events []Progress
	var mu sync.Mutex
	cfg.Progress = func(p Progress) { mu.Lock(); events = append(events, p); mu.Unlock() }
	var checkpoints int
	cfg.Checkpoint = func(m *schema.Matrix) error { checkpoints++; return nil }
	r, err := New(c, cfg)
	if err != nil {
		t.Fatal(err)
	}
	m, err := r.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if m.Run.SourceFormat != schema.FormatRun || m.Run.RunID != schema.ComputeRunID(&schema.Matrix{Run: m.Run, Measurements: m.Measurements}) || m.Run.Title != "sim on test GPU" {
		t.Fatalf("run: format %q id %q title %q", m.Run.SourceFormat, m.Run.RunID, m.Run.Title)
	}
	if !strings.HasSuffix(m.Run.Dataset, "; prompt lengths exact, POST /tokenize") {
		t.Errorf("dataset %q does not say the prompts were fitted with /tokenize", m.Run.Dataset)
	}
	if m.Run.MaxModelLen == nil || *m.Run.MaxModelLen != 32768 || m.Run.KVBudgetTokens == nil {
		t.Fatalf("run metadata from the server missing: %+v", m.Run)
	}
	if len(m.Measurements) != 6 || checkpoints != 6 {
		t.Fatalf("%d measurements, %d checkpoints; want 6 and 6", len(m.Measurements), checkpoints)
	}
	byKey := cellsByKey(m)
	for _, label := range []string{"1K", "2K"} {
		p := byKey[cellKey(schema.PhasePrefill, label, 1)]
		if p.Status != schema.StatusValid || p.TotalTokS == nil || *p.TotalTokS <= 0 || p.TTFTMs == nil {
			t.Errorf("prefill %s: %+v", label, p)
		}
		for _, conc := range []int32{1, 2} {
			d := byKey[cellKey(schema.PhaseDecode, label, conc)]
			if d.Status != schema.StatusValid {
				t.Fatalf("decode %s×%d: %s %s", label, conc, d.Status, d.StatusReason)
			}
			want := int64(1024)
			if label == "2K" {
				want = 2048
			}
			// /tokenize makes the prompt exact.
			if d.PromptTokens == nil || *d.PromptTokens != want {
				t.Errorf("decode %s×%d prompt tokens %v, want %d", label, conc, d.PromptTokens, want)
			}
			if *d.MeasuredS < 0.99 || *d.MeasuredS > 1.01 || *d.OutputTokens <= 0 || *d.TotalTokS <= 0 {
				t.Errorf("decode %s×%d: measured %v s, %d tokens", label, conc, *d.MeasuredS, *d.OutputTokens)
			}
			if a := *d.AvgActiveRequests; a < float64(conc)*0.9 || a > float64(conc)+0.01 {
				t.Errorf("decode %s×%d: avg active %.2f", label, conc, a)
			}
			if d.ServerGenerationTokens == nil || d.ServerPrefixCacheHits == nil {
				t.Errorf("decode %s×%d: server figures missing", label, conc)
			}
			// The running gauge is scraped every 500 ms inside the 1 s
			// window: a process starved of CPU may finish none, and then
			// the cell must say so.
			if d.ServerRunningAvg == nil && !strings.Contains(d.StatusReason, NoteNoRunningGauge) {
				t.Errorf("decode %s×%d: server_running_avg missing and no note says why (%q)", label, conc, d.StatusReason)
			}
			if d.TTFCMs == nil || d.ChunkGapP99Ms == nil || d.TTFTP90Ms == nil || d.ErroredRequests == nil || *d.ErroredRequests != 0 {
				t.Errorf("decode %s×%d: distributions missing", label, conc)
			}
		}
	}
	if len(m.Samples) == 0 || m.Samples[0].RunID != m.Run.RunID {
		t.Fatal("no samples with the run id")
	}
	var done int
	for _, e := range events {
		if e.Done {
			done++
		}
	}
	if done != 6 {
		t.Fatalf("%d done events, want 6", done)
	}
}

func TestCapacity(t *testing.T) {
	tests := []struct {
		name      string
		mod       func(p *sim.Profile)
		kvFlag    int64
		contexts  []int64
		wantLabel string
		wantOver  []int32 // concurrency levels over capacity
		source    string
	}{
		{name: "vLLM /metrics cache_config_info", mod: func(p *sim.Profile) { p.KVTokens = 3000 },
			contexts: []int64{1024}, wantLabel: "1K", wantOver: []int32{4}, source: "/metrics"},
		{name: "SGLang /get_server_info", mod: func(p *sim.Profile) { p.KVTokens = 3000; p.SGLangServerInfo = true },
			contexts: []int64{1024}, wantLabel: "1K", wantOver: []int32{4}, source: "/get_server_info"},
		{name: "flag overrides the server", kvFlag: 2000, contexts: []int64{1024}, wantLabel: "1K", wantOver: []int32{2, 4}, source: "flag"},
		{name: "context capped at max_model_len − max_tokens − 64", mod: func(p *sim.Profile) { p.MaxModelLen = 4096 + 200 + 64 + 1500 },
			contexts: []int64{8192}, wantLabel: "5K", source: "/metrics"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := fastProfile()
			if tt.mod != nil {
				tt.mod(&p)
			}
			_, c := startSim(t, p, ClientConfig{})
			cfg := testConfig()
			cfg.Contexts, cfg.Concurrency, cfg.KVTokens = tt.contexts, []int{1, 2, 4}, tt.kvFlag
			cfg.Duration = 300 * time.Millisecond
			r, err := New(c, cfg)
			if err != nil {
				t.Fatal(err)
			}
			m, err := r.Run(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if r.info.KVSource != tt.source {
				t.Errorf("KV budget from %q, want %q", r.info.KVSource, tt.source)
			}
			over := map[int32]bool{}
			for _, c := range tt.wantOver {
				over[c] = true
			}
			for _, x := range m.Measurements {
				if x.ContextLabel != tt.wantLabel {
					t.Errorf("label %q, want %q", x.ContextLabel, tt.wantLabel)
				}
				if x.Phase != schema.PhaseDecode {
					continue
				}
				if got := x.Status == schema.StatusOverCapacity; got != over[*x.Concurrency] {
					t.Errorf("×%d: status %s (%s)", *x.Concurrency, x.Status, x.StatusReason)
				}
				if x.Status == schema.StatusOverCapacity && x.TotalTokS != nil {
					t.Errorf("over-capacity cell has figures")
				}
			}
		})
	}
}

func TestLoopedCell(t *testing.T) {
	p := fastProfile()
	p.StepBase = 200 * time.Microsecond
	p.LoopAfter = 100
	_, c := startSim(t, p, ClientConfig{})
	cfg := testConfig()
	cfg.Contexts, cfg.Concurrency, cfg.MaxTokens = []int64{1024}, []int{2}, 4000
	cfg.Duration = 3 * time.Second
	r, err := New(c, cfg)
	if err != nil {
		t.Fatal(err)
	}
	m, err := r.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	d := cellsByKey(m)[cellKey(schema.PhaseDecode, "1K", 2)]
	if d.Status != schema.StatusLooped || d.LoopPeriodChars == nil || *d.LoopCycles < minLoopCycles ||
		*d.LoopPeriodChars**d.LoopCycles < minLoopChars {
		t.Fatalf("status %s (%s), period %v cycles %v", d.Status, d.StatusReason, d.LoopPeriodChars, d.LoopCycles)
	}
	if !strings.Contains(d.StatusReason, "repeats") {
		t.Errorf("reason %q", d.StatusReason)
	}
	t.Logf("%s: %s", d.Status, d.StatusReason)
}

func TestFailedRequestsAreData(t *testing.T) {
	tests := []struct {
		name   string
		faults []sim.Fault
		status schema.Status
	}{
		{"few 503s stay valid", []sim.Fault{{Kind: sim.FaultHTTPStatus, Status: 503, Every: 17}}, schema.StatusValid},
		{"errors inside 200 streams", []sim.Fault{{Kind: sim.FaultStreamError, AfterTokens: 20, Every: 13}}, schema.StatusValid},
		{"resets", []sim.Fault{{Kind: sim.FaultReset, AfterTokens: 10, Every: 11}}, schema.StatusValid},
		{"every request 500", []sim.Fault{{Kind: sim.FaultHTTPStatus, Status: 500, Every: 1}}, schema.StatusError},
		{"half the requests 429", []sim.Fault{{Kind: sim.FaultHTTPStatus, Status: 429, Rate: 0.5}}, schema.StatusError},
		{"stalls past the idle timeout", []sim.Fault{{Kind: sim.FaultStall, AfterTokens: 5, Duration: 5 * time.Second, Every: 2}}, schema.StatusError},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := fastProfile()
			p.Faults = tt.faults
			srv, c := startSim(t, p, ClientConfig{})
			cfg := testConfig()
			cfg.Contexts, cfg.Concurrency, cfg.MaxTokens = []int64{1024}, []int{4}, 30
			cfg.Duration = 1500 * time.Millisecond
			// Only the stall case needs a short idle timeout (its stalls
			// last 5 s); elsewhere a process starved of CPU for 300 ms
			// would fail sound requests as stalled and turn a valid cell
			// into an error.
			cfg.IdleTimeout = 10 * time.Second
			if tt.faults[0].Kind == sim.FaultStall {
				cfg.IdleTimeout = 300 * time.Millisecond
			}
			// The valid cases fail one request in 11 to 17: under the
			// default 10% threshold only while the window holds many
			// requests. A process starved of CPU fits a dozen in the
			// 1.5 s window, where two faults are 16.7%, the most one in
			// 11 can be in 11 requests or more (4 streams of 30-token
			// requests fit that many unless the process stalls for most
			// of the window); a 20% threshold keeps them valid, and the
			// failing cases (every request, half of them, every other
			// one stalled) stay far above it.
			cfg.MaxErrorRate = 0.2
			r, err := New(c, cfg)
			if err != nil {
				t.Fatal(err)
			}
			m, err := r.Run(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			d := cellsByKey(m)[cellKey(schema.PhaseDecode, "1K", 4)]
			t.Logf("%s: %s; errored %v", d.Status, d.StatusReason, d.ErroredRequests)
			if d.Status != tt.status {
				t.Fatalf("status %s (%s), want %s", d.Status, d.StatusReason, tt.status)
			}
			if d.Status == schema.StatusValid {
				if d.ErroredRequests == nil || *d.ErroredRequests == 0 {
					t.Fatal("no errored requests counted")
				}
				// Failed requests' tokens are not counted: compare with
				// the simulator's successful and in-flight requests.
				var errored int64
				for _, s := range m.Samples {
					if s.Error != "" {
						errored++
						if s.OutputTokens != 0 {
							t.Fatalf("failed request counted %d tokens", s.OutputTokens)
						}
					}
				}
				if errored != *d.ErroredRequests {
					t.Fatalf("%d failed samples, %d errored requests", errored, *d.ErroredRequests)
				}
				var faulted int
				for _, r := range srv.Requests() {
					if r.Fault != "" {
						faulted++
					}
				}
				if faulted == 0 {
					t.Fatal("simulator injected no fault")
				}
			}
		})
	}
}

// TestServerDiesMidRun closes the server after the first decode cell:
// finished cells keep their figures, the rest are errors.
func TestServerDiesMidRun(t *testing.T) {
	srv, c := startSim(t, fastProfile(), ClientConfig{})
	cfg := testConfig()
	cfg.Duration = 500 * time.Millisecond
	cfg.IdleTimeout = time.Second
	var once sync.Once
	cfg.Progress = func(p Progress) {
		if p.Done && p.PhaseName == schema.PhaseDecode {
			once.Do(srv.Close)
		}
	}
	r, err := New(c, cfg)
	if err != nil {
		t.Fatal(err)
	}
	m, err := r.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var valid, failed int
	for _, x := range m.Measurements {
		switch x.Status {
		case schema.StatusValid:
			valid++
		case schema.StatusError:
			failed++
			if x.StatusReason == "" {
				t.Error("error cell without a reason")
			}
		}
	}
	if valid != 2 || failed != 4 {
		t.Fatalf("%d valid, %d error cells; want 2 and 4", valid, failed)
	}
}

// TestInterruptAndResume cancels a run after its second cell and resumes
// it from the checkpointed matrix.
func TestInterruptAndResume(t *testing.T) {
	_, c := startSim(t, fastProfile(), ClientConfig{})
	cfg := testConfig()
	cfg.Duration = 400 * time.Millisecond
	ctx, cancel := context.WithCancel(context.Background())
	var saved *schema.Matrix
	n := 0
	cfg.Checkpoint = func(m *schema.Matrix) error {
		saved = m
		n++
		if n == 2 {
			cancel()
		}
		return nil
	}
	r, err := New(c, cfg)
	if err != nil {
		t.Fatal(err)
	}
	_, err = r.Run(ctx)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if saved == nil || len(saved.Measurements) != 2 {
		t.Fatalf("checkpoint holds %v", saved)
	}
	first := saved.Measurements[1]
	cfg2 := testConfig()
	cfg2.Duration = 400 * time.Millisecond
	cfg2.Tag, cfg2.Done = r.Tag(), saved
	r2, err := New(c, cfg2)
	if err != nil {
		t.Fatal(err)
	}
	m, err := r2.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Measurements) != 6 {
		t.Fatalf("%d cells after resume, want 6", len(m.Measurements))
	}
	got := cellsByKey(m)[cellKey(first.Phase, first.ContextLabel, *first.Concurrency)]
	if *got.TotalTokS != *first.TotalTokS {
		t.Fatalf("resumed run re-measured a finished cell")
	}
}

// TestPromptCalibration fits prompts without /tokenize, from the
// usage.prompt_tokens of max_tokens=1 probes, to within 1%.
func TestPromptCalibration(t *testing.T) {
	p := fastProfile()
	p.CharsPerToken = 3.3
	p.ChatTemplateTokens = 7
	s := sim.New(p)
	t.Cleanup(s.Close)
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/tokenize" {
			http.NotFound(w, r)
			return
		}
		s.ServeHTTP(w, r)
	}))
	t.Cleanup(hs.Close)
	c, err := NewClient(ClientConfig{URL: hs.URL, Model: "sim"})
	if err != nil {
		t.Fatal(err)
	}
	r, err := New(c, Config{Contexts: []int64{1000, 8192}, Concurrency: []int{1}})
	if err != nil {
		t.Fatal(err)
	}
	if r.info, err = c.Discover(context.Background(), 0); err != nil {
		t.Fatal(err)
	}
	if fit := c.checkTokenize(context.Background(), r.info.MaxModelLen); fit.Form != "none" || !strings.Contains(fit.Note, "HTTP 404") {
		t.Fatalf("prompt fit %+v, want calibration (no /tokenize)", fit)
	}
	for _, target := range []int64{1000, 8192, 20000} {
		pr, err := r.buildPrompt(context.Background(), target, ContextLabel(target), r.cfg.Tag)
		if err != nil {
			t.Fatal(err)
		}
		// The real prompt (with the run's tag) as the server counts it.
		n, err := c.probeTokens(context.Background(), pr.Text)
		if err != nil {
			t.Fatal(err)
		}
		if !within(float64(n), float64(target), 0.01, 0) || !strings.HasPrefix(pr.Text, "["+r.cfg.Tag+" ") {
			t.Fatalf("target %d: prompt has %d tokens (reported %d), tag prefix %v", target, n, pr.Tokens, strings.HasPrefix(pr.Text, "["+r.cfg.Tag))
		}
	}
}

func TestParseContexts(t *testing.T) {
	tests := []struct {
		in   string
		want []int64
		err  bool
	}{
		{"8K,16K", []int64{8192, 16384}, false},
		{"128k, 4000", []int64{131072, 4000}, false},
		{"1.5K", []int64{1536}, false},
		{"", nil, true},
		{"8X", nil, true},
		{"-1", nil, true},
	}
	for _, tt := range tests {
		got, err := ParseContexts(tt.in)
		if (err != nil) != tt.err || (err == nil && len(got) != len(tt.want)) {
			t.Fatalf("ParseContexts(%q) = %v, %v", tt.in, got, err)
		}
		for i := range got {
			if got[i] != tt.want[i] {
				t.Fatalf("ParseContexts(%q) = %v, want %v", tt.in, got, tt.want)
			}
		}
	}
	for _, tt := range []struct {
		tokens int64
		label  string
	}{{8192, "8K"}, {131072 - 4096 - 64, "123K"}, {1023, "1023"}, {65535, "63K"}} {
		if got := ContextLabel(tt.tokens); got != tt.label {
			t.Errorf("ContextLabel(%d) = %q, want %q", tt.tokens, got, tt.label)
		}
	}
}

// TestPrefillStandalone reports the median of unique cold prompts, and a
// prefill-only context runs no decode cell.
func TestPrefillStandalone(t *testing.T) {
	_, c := startSim(t, fastProfile(), ClientConfig{})
	cfg := testConfig()
	cfg.Contexts, cfg.Concurrency = []int64{1024}, []int{1}
	cfg.PrefillContexts = []int64{1024, 8192}
	cfg.PrefillMode, cfg.PrefillRepeats = PrefillStandalone, 3
	cfg.Duration = 300 * time.Millisecond
	r, err := New(c, cfg)
	if err != nil {
		t.Fatal(err)
	}
	m, err := r.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Measurements) != 3 || !strings.HasPrefix(m.Run.PrefillMode, "Standalone") {
		t.Fatalf("%d cells, prefill mode %q", len(m.Measurements), m.Run.PrefillMode)
	}
	by := cellsByKey(m)
	for _, label := range []string{"1K", "8K"} {
		p := by[cellKey(schema.PhasePrefill, label, 1)]
		if p.Status != schema.StatusValid || p.CompletedRequests == nil || *p.CompletedRequests != 3 {
			t.Fatalf("prefill %s: %s, completed %v", label, p.Status, p.CompletedRequests)
		}
		// Cold prompts: TTFT covers the prefill of the whole prompt at
		// the simulator's rate (200K–100K tok/s).
		if want := float64(*p.PromptTokens) / 200_000 * 1000; *p.TTFTMs < want {
			t.Errorf("prefill %s: TTFT %.2f ms below a cold prefill (%.2f ms)", label, *p.TTFTMs, want)
		}
	}
	if _, ok := by[cellKey(schema.PhaseDecode, "8K", 1)]; ok {
		t.Fatal("decode cell at a prefill-only context")
	}
}

// TestCompletionsEndpoint measures through /v1/completions.
func TestCompletionsEndpoint(t *testing.T) {
	_, c := startSim(t, fastProfile(), ClientConfig{Endpoint: EndpointCompletions})
	cfg := testConfig()
	cfg.Contexts, cfg.Concurrency, cfg.Duration = []int64{1024}, []int{2}, 400*time.Millisecond
	r, err := New(c, cfg)
	if err != nil {
		t.Fatal(err)
	}
	m, err := r.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	d := cellsByKey(m)[cellKey(schema.PhaseDecode, "1K", 2)]
	if m.Run.Endpoint != EndpointCompletions || d.Status != schema.StatusValid || *d.OutputTokens == 0 || *d.PromptTokens != 1024 {
		t.Fatalf("endpoint %q: %s %s, prompt %v", m.Run.Endpoint, d.Status, d.StatusReason, d.PromptTokens)
	}
}
