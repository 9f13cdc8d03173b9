package power

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"
	"time"
)

var t0 = time.Date(2026, 12, 7, 6, 0, 0, 0, time.UTC)

func at(s float64) time.Time { return t0.Add(time.Duration(s * float64(time.Second))) }

func counterReadings(gpus int, pts ...[2]float64) []Reading {
	var rs []Reading
	for _, p := range pts {
		rs = append(rs, Reading{At: at(p[0]), EnergyJ: p[1], HasEnergy: true, GPUs: gpus})
	}
	return rs
}

func powerReadings(pts ...[2]float64) []Reading {
	var rs []Reading
	for _, p := range pts {
		rs = append(rs, Reading{At: at(p[0]), PowerW: p[1], HasPower: true, GPUs: 1})
	}
	return rs
}

func TestIntegrate(t *testing.T) {
	tests := []struct {
		name     string
		rs       []Reading
		from, to float64
		j, edge  float64
		method   string
		wantErr  string
	}{
		{name: "counter on readings", rs: counterReadings(2, [2]float64{0, 100}, [2]float64{1, 400}, [2]float64{2, 700}),
			from: 0, to: 2, j: 600, edge: 0, method: "counter"},
		{name: "counter interpolated at both edges", rs: counterReadings(1, [2]float64{0, 100}, [2]float64{1, 400}, [2]float64{2, 700}),
			from: 0.5, to: 1.25, j: 475 - 250, edge: 300 + 300, method: "counter"},
		{name: "power trapezoids", rs: powerReadings([2]float64{0, 100}, [2]float64{1, 300}, [2]float64{2, 300}),
			from: 0, to: 2, j: 200 + 300, edge: 0, method: "power"},
		{name: "power edges interpolated", rs: powerReadings([2]float64{0, 100}, [2]float64{2, 300}),
			from: 1, to: 2, j: (200 + 300) / 2.0, edge: 400, method: "power"},
		{name: "counter reset", rs: counterReadings(1, [2]float64{0, 100}, [2]float64{1, 50}),
			from: 0, to: 1, wantErr: "fell"},
		{name: "no reading before start", rs: counterReadings(1, [2]float64{1, 100}, [2]float64{2, 150}),
			from: 0.5, to: 2, wantErr: "no reading at or before"},
		{name: "GPUs changed", rs: append(counterReadings(1, [2]float64{0, 1}), counterReadings(2, [2]float64{1, 2})...),
			from: 0, to: 1, wantErr: "GPUs reported changed"},
		{name: "power gap", rs: powerReadings([2]float64{0, 100}, [2]float64{10, 100}),
			from: 0, to: 10, wantErr: "no power reading for 10s"},
		{name: "mixed", rs: append(counterReadings(1, [2]float64{0, 1}), powerReadings([2]float64{1, 2})...),
			from: 0, to: 1, wantErr: "neither"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e, err := integrate(tt.rs, at(tt.from), at(tt.to), 5*time.Second)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if math.Abs(e.J-tt.j) > 1e-9 || math.Abs(e.EdgeJ-tt.edge) > 1e-9 || e.Method != tt.method {
				t.Errorf("got J %v edge %v %s, want %v edge %v %s", e.J, e.EdgeJ, e.Method, tt.j, tt.edge, tt.method)
			}
			if want := tt.j / (tt.to - tt.from); math.Abs(e.AvgW-want) > 1e-9 {
				t.Errorf("AvgW %v, want %v", e.AvgW, want)
			}
		})
	}
}

// TestSeriesWindowBounded: a window whose end no reading reaches returns
// within the wait bound, with the sampling's last error when it had one.
func TestSeriesWindowBounded(t *testing.T) {
	s := newSeries(10 * time.Millisecond)
	now := time.Now()
	s.add(Reading{At: now.Add(-time.Second), EnergyJ: 1, HasEnergy: true, GPUs: 1})
	s.fail(errors.New("scrape refused"))
	start := time.Now()
	_, err := s.window(context.Background(), now.Add(-500*time.Millisecond), now, 50*time.Millisecond)
	if err == nil || !strings.Contains(err.Error(), "scrape refused") {
		t.Fatalf("err = %v, want the sampling's error", err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("waited %v, bound 60 ms", d)
	}
	s.stop(nil)
	if _, err := s.window(context.Background(), now.Add(-500*time.Millisecond), now.Add(time.Hour), time.Hour); err == nil {
		t.Fatal("a stopped series answered a window past its readings")
	}
}
