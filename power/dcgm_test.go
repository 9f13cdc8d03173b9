package power

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

func TestParseDCGM(t *testing.T) {
	b, err := os.ReadFile("testdata/dcgm-exporter-t4.txt")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		in      string
		energy  []float64
		power   []float64
		wantErr string
	}{
		{name: "recorded T4", in: string(b), energy: []float64{128996013}, power: []float64{8.969}},
		{name: "two GPUs, MIG duplicates counted once", in: `# TYPE DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION counter
DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION{gpu="1",UUID="b",GPU_I_ID="1"} 2000
DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION{gpu="0",UUID="a",GPU_I_ID="1"} 1000
DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION{gpu="0",UUID="a",GPU_I_ID="2"} 1000
`, energy: []float64{1000, 2000}},
		{name: "power only", in: "DCGM_FI_DEV_POWER_USAGE{gpu=\"0\"} 100.5\n", power: []float64{100.5}},
		{name: "bad value", in: "# TYPE DCGM_FI_DEV_POWER_USAGE gauge\nDCGM_FI_DEV_POWER_USAGE{gpu=\"0\"} watts\n", wantErr: "t4.txt:2: "},
		{name: "bad label", in: "DCGM_FI_DEV_POWER_USAGE{gpu=0} 1\n", wantErr: "t4.txt:1: "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := ParseDCGM(strings.NewReader(tt.in), "t4.txt")
			if tt.wantErr != "" {
				if err == nil || !strings.HasPrefix(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want prefix %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := values(s.Energy); fmt.Sprint(got) != fmt.Sprint(tt.energy) {
				t.Errorf("energy %v, want %v", got, tt.energy)
			}
			if got := values(s.Power); fmt.Sprint(got) != fmt.Sprint(tt.power) {
				t.Errorf("power %v, want %v", got, tt.power)
			}
		})
	}
	s, _ := ParseDCGM(bytes.NewReader(b), "t4")
	r, err := s.Reading(t0)
	if err != nil {
		t.Fatal(err)
	}
	if !r.HasEnergy || !r.HasPower || r.GPUs != 1 || math.Abs(r.EnergyJ-128996.013) > 1e-6 || s.Energy[0].Model != "Tesla T4" {
		t.Errorf("reading %+v, %+v", r, s.Energy[0])
	}
}

func values(gs []GPUValue) []float64 {
	var out []float64
	for _, g := range gs {
		out = append(out, g.Value)
	}
	return out
}

// fakeExporter serves the recorded T4 exposition with its energy counter
// rising at watts (mJ per ms) from when it starts, and the power gauge at
// watts; it counts its scrapes.
func fakeExporter(t *testing.T, watts float64) (*httptest.Server, *atomic.Int64) {
	b, err := os.ReadFile("testdata/dcgm-exporter-t4.txt")
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	var n atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		mj := 128996013 + watts*float64(time.Since(start))/float64(time.Millisecond)
		out := strings.Replace(string(b), "} 128996013", fmt.Sprintf("} %f", mj), 1)
		out = strings.Replace(out, "} 8.969000", fmt.Sprintf("} %f", watts), 1)
		fmt.Fprint(w, out)
	}))
	t.Cleanup(srv.Close)
	return srv, &n
}

func TestDCGMLive(t *testing.T) {
	srv, scrapes := fakeExporter(t, 250)
	d := &DCGM{URL: srv.URL + "/metrics", Interval: 20 * time.Millisecond}
	m, err := d.Start(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	from := time.Now()
	time.Sleep(300 * time.Millisecond)
	to := time.Now()
	e, err := m.Window(context.Background(), from, to)
	if err != nil {
		t.Fatal(err)
	}
	want := 250 * to.Sub(from).Seconds()
	// The counter rises at 250 W between scrapes; the interpolation at the
	// edges is off by at most EdgeJ, plus the time between a scrape's
	// value and the instant the answer is stamped (one round trip on
	// loopback: bounded here by 100 ms at each edge, which a loaded
	// 2-core machine's scheduler can reach, as amd-smi's test allows).
	if tol := e.EdgeJ + 250*0.2; math.Abs(e.J-want) > tol || e.Method != "counter" {
		t.Errorf("J %.3f, want %.3f ± %.3f (%s)", e.J, want, tol, e.Method)
	}
	if scrapes.Load() < 3 {
		t.Errorf("%d scrapes in 300 ms at 20 ms", scrapes.Load())
	}
	if got := d.Name(); got != "dcgm "+srv.URL+"/metrics" {
		t.Errorf("name %q", got)
	}
}

// TestDCGMHangs: an exporter that never answers fails Start within the
// request bound, and one that stops answering fails the window within
// the wait bound.
func TestDCGMHangs(t *testing.T) {
	release := make(chan struct{})
	var hang atomic.Bool
	hang.Store(true)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if hang.Load() {
			select {
			case <-release:
			case <-r.Context().Done():
			}
			return
		}
		fmt.Fprintln(w, `DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION{gpu="0"} 1000`)
	}))
	defer srv.Close()
	defer close(release)
	to := Timeouts{Request: 100 * time.Millisecond, Wait: 100 * time.Millisecond}
	d := &DCGM{URL: srv.URL, Interval: 20 * time.Millisecond, Timeouts: to}
	start := time.Now()
	if _, err := d.Start(context.Background()); err == nil || !strings.Contains(err.Error(), "deadline") {
		t.Fatalf("Start = %v, want a deadline error", err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("Start took %v, bound 100 ms", d)
	}
	hang.Store(false)
	m, err := d.Start(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	from := time.Now()
	hang.Store(true)
	time.Sleep(50 * time.Millisecond)
	start = time.Now()
	_, err = m.Window(context.Background(), from, time.Now())
	// Which of the two bounds ends first depends on when the hanging
	// scrape began: the scrape's deadline, or the window's wait.
	if err == nil || !strings.Contains(err.Error(), "deadline") && !errors.Is(err, ErrNoReadings) {
		t.Fatalf("Window = %v, want the scrape's deadline or no reading", err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("Window took %v, bound about 120 ms", d)
	}
}
