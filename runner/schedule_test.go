package runner

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"speedmatrix/runner/sim"
	"speedmatrix/schema"
)

// planRunner is a runner over a server that is never called: the
// schedule is built from the config and the server's info alone.
func planRunner(t *testing.T, cfg Config, info ServerInfo) *Runner {
	t.Helper()
	c, err := NewClient(ClientConfig{URL: "http://127.0.0.1:9", Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	r, err := New(c, cfg)
	if err != nil {
		t.Fatal(err)
	}
	r.info = info
	return r
}

// TestSchedulePlanLine checks the plan line `run` prints before any load
// against testdata/plan.golden (go test ./runner -run TestSchedulePlanLine
// -update rewrites it).
func TestSchedulePlanLine(t *testing.T) {
	resumed := &schema.Matrix{Measurements: []schema.Measurement{
		{Phase: schema.PhasePrefill, ContextLabel: "1K", Concurrency: schema.I32(1)},
		{Phase: schema.PhaseDecode, ContextLabel: "1K", Concurrency: schema.I32(1)},
	}}
	tests := []struct {
		name string
		cfg  Config
		info ServerInfo
		done int // serving loads finished before an interrupt
	}{
		{name: "small matrix", cfg: Config{Contexts: []int64{1024, 4096}, Concurrency: []int{1, 2}, Duration: 2 * time.Second}},
		{name: "default matrix, 30s", cfg: Config{Contexts: []int64{8192, 16384}, Concurrency: []int{1, 2, 4, 8, 16}}},
		{name: "over capacity and capped", cfg: Config{Contexts: []int64{8192, 131072}, Concurrency: []int{1, 8}, MaxTokens: 1024},
			info: ServerInfo{MaxModelLen: 32768, KVTokens: 100000}},
		{name: "prefill-only contexts, standalone", cfg: Config{Contexts: []int64{1024}, PrefillContexts: []int64{65536}, Concurrency: []int{4},
			Duration: 10 * time.Second, PrefillMode: PrefillStandalone}},
		{name: "resumed", cfg: Config{Contexts: []int64{1024, 4096}, Concurrency: []int{1, 2}, Duration: 20 * time.Second, Done: resumed}},
		{name: "rates", cfg: Config{Duration: 30 * time.Second, Serve: &ServeConfig{Rates: []float64{1, 2, 4.5, 8}}}},
		{name: "rates, -requests", cfg: Config{Serve: &ServeConfig{Rates: []float64{0.5, 2}, Requests: 100, Arrival: ArrivalConstant, Drain: 2 * time.Second}}},
		{name: "sweep", cfg: Config{Duration: time.Minute, Serve: &ServeConfig{Sweep: 5, ProbeConcurrency: 64}}},
		{name: "sweep, -requests", cfg: Config{Serve: &ServeConfig{Sweep: 3, ProbeConcurrency: 16, Requests: 50}}},
		{name: "rates, resumed", cfg: Config{Duration: 10 * time.Second, Serve: &ServeConfig{Rates: []float64{1, 2, 4}}}, done: 2},
	}
	var b strings.Builder
	for _, tt := range tests {
		r := planRunner(t, tt.cfg, tt.info)
		var s Schedule
		if tt.cfg.Serve != nil {
			s = r.serveSchedule(tt.done)
		} else {
			done := map[string]bool{}
			if tt.cfg.Done != nil {
				for _, x := range tt.cfg.Done.Measurements {
					done[cellKey(x.Phase, x.ContextLabel, *x.Concurrency)] = true
				}
			}
			s = r.schedule(r.plan(), done)
		}
		b.WriteString(tt.name + ": plan: " + s.String() + "\n")
	}
	golden := filepath.Join("testdata", "plan.golden")
	if *update {
		if err := os.WriteFile(golden, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if b.String() != string(want) {
		t.Errorf("plan lines differ from %s:\ngot:\n%s\nwant:\n%s", golden, b.String(), want)
	}
}

// TestScheduleLeft checks the time-left arithmetic: windows as set, the
// ramp-up guess until a step of the same phase has run, then the mean of
// what those steps took beyond their window.
func TestScheduleLeft(t *testing.T) {
	w := 30 * time.Second
	pre := Step{Phase: schema.PhasePrefill, Guess: prefillGuess}
	dec := Step{Phase: schema.PhaseDecode, Fixed: w, Guess: rampUpGuess}
	over := Step{Phase: schema.PhaseDecode, Skip: SkipOverCapacity}
	s := Schedule{Window: w, Steps: []Step{pre, dec, dec, over, pre, dec, dec, over}}
	sec := func(f float64) time.Duration { return time.Duration(f * float64(time.Second)) }
	tests := []struct {
		name string
		done int
		took []time.Duration
		want time.Duration
	}{
		{"nothing run: guesses", 0, nil, 2*prefillGuess + 4*(w+rampUpGuess)},
		{"a prefill cell took 1s", 1, []time.Duration{sec(1)}, sec(1) + 4*(w+rampUpGuess)},
		{"first decode cell ramped up in 2s", 2, []time.Duration{sec(1), sec(32)}, sec(1) + 3*(w+sec(2))},
		{"two decode cells: mean ramp-up 3s", 3, []time.Duration{sec(1), sec(32), sec(34)}, sec(1) + 2*(w+sec(3))},
		{"over-capacity steps take nothing", 4, []time.Duration{sec(1), sec(32), sec(34), 0}, sec(1) + 2*(w+sec(3))},
		{"a cell shorter than its window (looped) counts no negative ramp-up", 3, []time.Duration{sec(1), sec(10), sec(32)}, sec(1) + 2*(w+sec(1))},
		{"all done", 8, []time.Duration{1, 1, 1, 1, 1, 1, 1, 1}, 0},
		{"done past the end", 9, nil, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, unknown := s.Left(tt.done, tt.took)
			if got != tt.want || unknown != 0 {
				t.Errorf("Left(%d, %v) = %v, %d unknown; want %v", tt.done, tt.took, got, unknown, tt.want)
			}
		})
	}
	// A sweep with -requests: the rates' lengths are unknown until the
	// probes have run, and are counted apart.
	sw := Schedule{Steps: []Step{
		{Phase: schema.PhaseServe, Unknown: true, Guess: drainGuess},
		{Phase: schema.PhaseServe, Unknown: true, Guess: drainGuess},
		{Phase: schema.PhaseServe, Unknown: true, Guess: drainGuess},
	}}
	if d, unknown := sw.Left(1, []time.Duration{time.Minute}); d != 0 || unknown != 2 {
		t.Errorf("sweep Left = %v, %d unknown; want 0, 2", d, unknown)
	}
}

func TestAbout(t *testing.T) {
	for _, tt := range []struct {
		d    time.Duration
		want string
	}{
		{0, "about 1 s"},
		{2400 * time.Millisecond, "about 2 s"},
		{44 * time.Second, "about 40 s"},
		{55 * time.Second, "about 1 min"},
		{7*time.Minute + 29*time.Second, "about 7 min"},
		{7*time.Minute + 31*time.Second, "about 8 min"},
		{59*time.Minute + 40*time.Second, "about 1 h"},
		{80 * time.Minute, "about 1 h 20 min"},
	} {
		if got := About(tt.d); got != tt.want {
			t.Errorf("About(%v) = %q, want %q", tt.d, got, tt.want)
		}
	}
}

// TestRunPlansBeforeLoad runs a small matrix against the simulator: the
// schedule reaches Config.Plan before the first progress event, its steps
// are the cells Progress counts, and each finished cell's line says the
// time left.
func TestRunPlansBeforeLoad(t *testing.T) {
	p := sim.DefaultProfile()
	p.StepBase = time.Millisecond
	_, c := startSim(t, p, ClientConfig{MaxConns: 2})
	var mu sync.Mutex
	var events []string
	var plan Schedule
	var out bytes.Buffer
	pp := &ProgressPrinter{W: &out}
	r, err := New(c, Config{Contexts: []int64{1024}, Concurrency: []int{1, 2}, Duration: 300 * time.Millisecond, MaxTokens: 64,
		Plan: func(s Schedule) {
			mu.Lock()
			events = append(events, "plan")
			plan = s
			mu.Unlock()
			pp.Plan(s)
		},
		Progress: func(ev Progress) {
			mu.Lock()
			if ev.Cells != len(plan.Steps) {
				t.Errorf("progress counts %d cells, the plan %d", ev.Cells, len(plan.Steps))
			}
			events = append(events, ev.Phase)
			mu.Unlock()
			pp.Print(ev)
		}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	if len(events) == 0 || events[0] != "plan" {
		t.Fatalf("events %v: want the plan first", events)
	}
	if got := plan.String(); !strings.HasPrefix(got, "3 cells (1 context 1K: 1 prefill + 2 decode at concurrency 1, 2)") {
		t.Errorf("plan %q", got)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 3 {
		t.Fatalf("progress lines %q", lines)
	}
	for i, l := range lines[:2] {
		if !strings.Contains(l, " left") {
			t.Errorf("line %d %q says no time left", i+1, l)
		}
	}
	if strings.Contains(lines[2], " left") {
		t.Errorf("last line %q still has time left", lines[2])
	}
}
