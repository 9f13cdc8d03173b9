package runner

import (
	"context"
	"errors"
	"math"
	"strings"
	"sync"
	"testing"
	"time"

	"speedmatrix/power"
	"speedmatrix/schema"
)

type powerWindow struct {
	from, to time.Time
	e        power.Energy
	err      error
}

// TestRunMeasuresEnergy runs a matrix against the simulator with its
// energy model on, measuring through its /metrics DCGM counter, and
// checks every decode cell's energy against the simulator's record of
// the energy it attributed over the same window.
//
// The tolerance is derived, not picked: the simulator stamps each sample
// with the millisecond at which its counter equals the model exactly, so
// a reading is exact; between two readings the meter interpolates
// linearly, and since the counter only rises, both the interpolation and
// the truth lie between the two readings' values. The error at an edge
// is therefore at most the counter's rise over the sample interval that
// holds it, and the two edges' sum is Energy.EdgeJ. Rounding energy_j to
// the millijoule adds 0.5 mJ.
func TestRunMeasuresEnergy(t *testing.T) {
	p := fastProfile()
	p.Energy.GPUs, p.Energy.IdleW, p.Energy.JoulesPerToken = 2, 60, 0.02
	srv, c := startSim(t, p, ClientConfig{})
	cfg := testConfig()
	cfg.Power = &power.DCGM{URL: c.base + "/metrics", Interval: 10 * time.Millisecond}
	cfg.PowerIdle = 300 * time.Millisecond
	r, err := New(c, cfg)
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var windows []powerWindow
	var idle powerWindow
	r.pw = &powerState{onWindow: func(from, to time.Time, e power.Energy, err error) {
		mu.Lock()
		windows = append(windows, powerWindow{from, to, e, err})
		mu.Unlock()
	}, onIdle: func(from, to time.Time, e power.Energy, err error) { idle = powerWindow{from, to, e, err} }}
	m, err := r.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if want := "dcgm " + c.base + "/metrics"; m.Run.PowerSource != want {
		t.Errorf("power source %q, want %q", m.Run.PowerSource, want)
	}
	// The idle power is what the simulator attributed over the idle
	// window: GPUs × IdleW = 120 W when nothing streams then (the counter
	// rises at exactly that, which linear interpolation reproduces), more
	// when a request of the server's discovery is still being answered on
	// a loaded machine (seen beside two CPU hogs).
	if idle.err != nil || m.Run.IdlePowerW == nil {
		t.Fatalf("idle power %v, window error %v", m.Run.IdlePowerW, idle.err)
	}
	idleJ, _ := srv.EnergyBetween(idle.from, idle.to)
	secs := idle.to.Sub(idle.from).Seconds()
	if tol := (idle.e.EdgeJ+0.0005)/secs + 0.005; math.Abs(*m.Run.IdlePowerW-idleJ/secs) > tol || *m.Run.IdlePowerW < 120-tol {
		t.Errorf("idle power %v W, the simulator attributed %.3f W over the idle window (tolerance %.3f W)", *m.Run.IdlePowerW, idleJ/secs, tol)
	}
	var decode []schema.Measurement
	for _, x := range m.Measurements {
		if x.Phase == schema.PhaseDecode {
			decode = append(decode, x)
		} else if x.EnergyJ != nil {
			t.Errorf("prefill %s has energy", x.ContextLabel)
		}
	}
	if len(decode) != 4 || len(windows) != 4 {
		t.Fatalf("%d decode cells, %d windows; want 4 and 4", len(decode), len(windows))
	}
	// Windows are measured in cell order; the matrix is sorted the same
	// way (context, then concurrency), as the cells ran.
	for i, d := range decode {
		w := windows[i]
		if w.err != nil || d.Status != schema.StatusValid || d.EnergyJ == nil {
			t.Fatalf("decode %s×%d: %s %q, window error %v", d.ContextLabel, *d.Concurrency, d.Status, d.StatusReason, w.err)
		}
		simJ, simTokens := srv.EnergyBetween(w.from, w.to)
		if tol := w.e.EdgeJ + 0.0005; math.Abs(*d.EnergyJ-simJ) > tol {
			t.Errorf("decode %s×%d: %.4f J measured, the simulator attributed %.4f J (tolerance %.4f J from the edges)",
				d.ContextLabel, *d.Concurrency, *d.EnergyJ, simJ, tol)
		}
		// The record itself: idle power plus JoulesPerToken per token.
		secs := w.to.Sub(w.from).Seconds()
		if got := (simJ - 120*secs) / float64(simTokens); math.Abs(got-0.02) > 1e-9 {
			t.Errorf("record: %.6f J per token above idle, want 0.02", got)
		}
		// J per output token, measured and recorded, over the cell's
		// tokens: equal within the same edge tolerance.
		tok := float64(*d.OutputTokens)
		if diff := math.Abs(*d.EnergyJ/tok - simJ/tok); diff > (w.e.EdgeJ+0.0005)/tok {
			t.Errorf("decode %s×%d: %.6f J/token measured, %.6f recorded", d.ContextLabel, *d.Concurrency, *d.EnergyJ/tok, simJ/tok)
		}
		// avg_power_w is rounded to 0.01 W: half a step, and the float slack
		// of a half exactly.
		if want := *d.EnergyJ / *d.MeasuredS; math.Abs(*d.AvgPowerW-want) > 0.005+1e-9 {
			t.Errorf("avg power %v, want energy ÷ measured_s = %v", *d.AvgPowerW, want)
		}
		if want := tok / *d.EnergyJ; math.Abs(*d.OutputTokPerJ-want) > 1e-4*want {
			t.Errorf("tokens per joule %v, want %v", *d.OutputTokPerJ, want)
		}
		if w.e.EdgeJ > 0.2**d.EnergyJ {
			t.Errorf("edge bound %.3f J is over a fifth of the cell's %.3f J: the check says little", w.e.EdgeJ, *d.EnergyJ)
		}
	}
}

// failingSource starts, or not, and fails every window.
type failingSource struct{ startErr error }

func (f failingSource) Name() string { return "test source" }

func (f failingSource) Start(ctx context.Context) (power.Meter, error) {
	if f.startErr != nil {
		return nil, f.startErr
	}
	return failingMeter{}, nil
}

type failingMeter struct{}

func (failingMeter) Window(ctx context.Context, from, to time.Time) (power.Energy, error) {
	return power.Energy{}, errors.New("the exporter went away")
}

func (failingMeter) Close() error { return nil }

// TestRunPowerFails: a source that does not start, or whose windows
// fail, leaves the energy columns null with the reason on every decode
// cell and never fails a cell.
func TestRunPowerFails(t *testing.T) {
	tests := []struct {
		name   string
		src    power.Source
		note   string
		source string
		meta   string
	}{
		{name: "no start", src: failingSource{startErr: errors.New("dcgm http://gpu:9400/metrics: connection refused")},
			note: "note: energy not recorded: dcgm http://gpu:9400/metrics: connection refused", meta: "energy not recorded: dcgm"},
		{name: "windows fail", src: failingSource{}, note: "note: energy not recorded: the exporter went away",
			source: "test source", meta: "idle power not recorded: the exporter went away"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, c := startSim(t, fastProfile(), ClientConfig{})
			cfg := testConfig()
			cfg.Contexts, cfg.Concurrency = []int64{1024}, []int{1}
			cfg.Power, cfg.PowerIdle = tt.src, 10*time.Millisecond
			var warned []string
			cfg.Warn = func(s string) { warned = append(warned, s) }
			r, err := New(c, cfg)
			if err != nil {
				t.Fatal(err)
			}
			m, err := r.Run(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if m.Run.PowerSource != tt.source || m.Run.IdlePowerW != nil {
				t.Errorf("power source %q idle %v", m.Run.PowerSource, m.Run.IdlePowerW)
			}
			var meta string
			for _, f := range m.Run.Metadata {
				if f.Key == NotePower {
					meta = f.Value
				}
			}
			if !strings.HasPrefix(meta, tt.meta) {
				t.Errorf("metadata %q, want %q", meta, tt.meta)
			}
			for _, x := range m.Measurements {
				if x.Phase != schema.PhaseDecode {
					continue
				}
				if x.Status != schema.StatusValid || x.StatusReason != tt.note || x.EnergyJ != nil || x.AvgPowerW != nil || x.OutputTokPerJ != nil {
					t.Errorf("cell %s %q energy %v, want valid with %q", x.Status, x.StatusReason, x.EnergyJ, tt.note)
				}
			}
		})
	}
}

// TestRatesMeasureEnergy: each request rate's row of -rates gets the
// energy over its span (measured_s), equal to what the simulator
// attributed over the same span within the edges' bound.
func TestRatesMeasureEnergy(t *testing.T) {
	p := fastProfile()
	p.Energy.GPUs, p.Energy.IdleW, p.Energy.JoulesPerToken = 1, 80, 0.05
	srv, c := startSim(t, p, ClientConfig{})
	cfg := Config{Duration: time.Second, Serve: &ServeConfig{Rates: []float64{10, 20}, Input: Fixed(256), Output: Fixed(20), Seed: 1}}
	cfg.Power = &power.DCGM{URL: c.base + "/metrics", Interval: 10 * time.Millisecond}
	cfg.PowerIdle = 200 * time.Millisecond
	r, err := New(c, cfg)
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var windows []powerWindow
	var idle powerWindow
	r.pw = &powerState{onWindow: func(from, to time.Time, e power.Energy, err error) {
		mu.Lock()
		windows = append(windows, powerWindow{from, to, e, err})
		mu.Unlock()
	}, onIdle: func(from, to time.Time, e power.Energy, err error) { idle = powerWindow{from, to, e, err} }}
	m, err := r.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	// The idle power is what the simulator attributed over the idle
	// window: 80 W when nothing streams then, more when a request of
	// the server's discovery is still being answered on a loaded machine.
	if idle.err != nil || m.Run.IdlePowerW == nil {
		t.Fatalf("idle power %v, window error %v", m.Run.IdlePowerW, idle.err)
	}
	simJ, _ := srv.EnergyBetween(idle.from, idle.to)
	secs := idle.to.Sub(idle.from).Seconds()
	if tol := (idle.e.EdgeJ+0.0005)/secs + 0.005; math.Abs(*m.Run.IdlePowerW-simJ/secs) > tol || *m.Run.IdlePowerW < 80-tol {
		t.Errorf("idle power %v W, the simulator attributed %.3f W over the idle window (tolerance %.3f W)", *m.Run.IdlePowerW, simJ/secs, tol)
	}
	if len(m.Measurements) != 2 || len(windows) != 2 {
		t.Fatalf("%d rows, %d windows; want 2 and 2", len(m.Measurements), len(windows))
	}
	for i, x := range m.Measurements {
		w := windows[i]
		if w.err != nil || x.EnergyJ == nil || x.AvgPowerW == nil || x.OutputTokPerJ == nil {
			t.Fatalf("rate %v: energy %v, window error %v, reason %q", *x.RequestRate, x.EnergyJ, w.err, x.StatusReason)
		}
		simJ, _ := srv.EnergyBetween(w.from, w.to)
		if tol := w.e.EdgeJ + 0.0005; math.Abs(*x.EnergyJ-simJ) > tol {
			t.Errorf("rate %v: %.4f J measured, the simulator attributed %.4f J (tolerance %.4f J)", *x.RequestRate, *x.EnergyJ, simJ, tol)
		}
		// The span is the row's measured_s (to its rounding).
		if span := w.to.Sub(w.from).Seconds(); math.Abs(span-*x.MeasuredS) > 0.002 {
			t.Errorf("rate %v: energy over %.4f s, the row measured %.4f s", *x.RequestRate, span, *x.MeasuredS)
		}
		if want := float64(*x.OutputTokens) / *x.EnergyJ; math.Abs(*x.OutputTokPerJ-want) > 1e-4*want {
			t.Errorf("rate %v: tokens per joule %v, want %v", *x.RequestRate, *x.OutputTokPerJ, want)
		}
	}
}
