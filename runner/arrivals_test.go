package runner

import (
	"math"
	"slices"
	"testing"
	"time"
)

func TestParseRates(t *testing.T) {
	tests := []struct {
		in    string
		rates []float64
		sweep int
		bad   bool
	}{
		{in: "1,2,4,8", rates: []float64{1, 2, 4, 8}},
		{in: " 0.5 , 12.25", rates: []float64{0.5, 12.25}},
		{in: "sweep", sweep: 5},
		{in: "sweep:8", sweep: 8},
		{in: "sweep:0", bad: true},
		{in: "sweep8", bad: true},
		{in: "0", bad: true},
		{in: "1,-2", bad: true},
		{in: "inf", bad: true},
		{in: "NaN", bad: true},
		{in: "", bad: true},
		{in: "fast", bad: true},
	}
	for _, tt := range tests {
		rates, sweep, err := ParseRates(tt.in)
		if (err != nil) != tt.bad {
			t.Errorf("ParseRates(%q) error %v, want error %v", tt.in, err, tt.bad)
			continue
		}
		if !slices.Equal(rates, tt.rates) || sweep != tt.sweep {
			t.Errorf("ParseRates(%q) = %v, %d; want %v, %d", tt.in, rates, sweep, tt.rates, tt.sweep)
		}
	}
}

func TestParseLengths(t *testing.T) {
	tests := []struct {
		in       string
		min, max int64
		bad      bool
	}{
		{in: "1024", min: 1024, max: 1024},
		{in: "2K", min: 2048, max: 2048},
		{in: "uniform:512-2048", min: 512, max: 2048},
		{in: "uniform:2048-512", bad: true},
		{in: "uniform:512", bad: true},
		{in: "0", bad: true},
		{in: "normal:5-6", bad: true},
	}
	for _, tt := range tests {
		l, err := ParseLengths(tt.in)
		if (err != nil) != tt.bad {
			t.Errorf("ParseLengths(%q) error %v, want error %v", tt.in, err, tt.bad)
			continue
		}
		if !tt.bad && (l.Min != tt.min || l.Max != tt.max || l.String() != tt.in) {
			t.Errorf("ParseLengths(%q) = %+v", tt.in, l)
		}
	}
	// Draws stay inside and reach both ends.
	l, _ := ParseLengths("uniform:10-13")
	rng := newRand(1)
	seen := map[int64]bool{}
	for range 1000 {
		v := l.draw(rng)
		if v < 10 || v > 13 {
			t.Fatalf("draw %d outside 10–13", v)
		}
		seen[v] = true
	}
	if len(seen) != 4 {
		t.Errorf("draws %v, want every value of 10–13", seen)
	}
}

func TestParseSLO(t *testing.T) {
	tests := []struct {
		in   string
		want SLO
		bad  bool
	}{
		{in: "ttft:500ms,tbt:50ms", want: SLO{TTFT: 500 * time.Millisecond, TBT: 50 * time.Millisecond}},
		{in: "ttft:500,tpot:50,e2el:10s", want: SLO{TTFT: 500 * time.Millisecond, TBT: 50 * time.Millisecond, E2E: 10 * time.Second}},
		{in: "ttft:0", bad: true},
		{in: "itl:5ms", bad: true},
		{in: "ttft", bad: true},
		{in: "ttft:soon", bad: true},
	}
	for _, tt := range tests {
		o, err := ParseSLO(tt.in)
		if (err != nil) != tt.bad || o != tt.want {
			t.Errorf("ParseSLO(%q) = %+v, %v; want %+v, error %v", tt.in, o, err, tt.want, tt.bad)
		}
	}
	o := SLO{TTFT: 500 * time.Millisecond, TBT: 50 * time.Millisecond}
	for _, c := range []struct {
		ttft, tbt, e2e float64
		ok             bool
	}{{500, 50, 1e9, true}, {500.001, 1, 1, false}, {1, 50.5, 1, false}, {1, -1, 1, true}} {
		if got := o.meets(c.ttft, c.tbt, c.e2e); got != c.ok {
			t.Errorf("meets(%v, %v, %v) = %v, want %v", c.ttft, c.tbt, c.e2e, got, c.ok)
		}
	}
}

func TestSchedule(t *testing.T) {
	// Constant: exactly 1/rate apart, n of them or those before duration.
	at := schedule(ArrivalConstant, 4, 0, 2*time.Second, nil)
	if len(at) != 8 || at[1] != 250e6 || at[7] != 1750e6 {
		t.Errorf("constant 4/s for 2 s: %v", at)
	}
	if at := schedule(ArrivalConstant, 3, 5, 0, nil); len(at) != 5 || at[3] != 1e9 {
		t.Errorf("constant 3/s, 5 requests: %v", at)
	}
	// Poisson: seeded (the same seed gives the same schedule), gaps of
	// mean 1/rate and coefficient of variation 1.
	a := schedule(ArrivalPoisson, 100, 20000, 0, newRand(42))
	b := schedule(ArrivalPoisson, 100, 20000, 0, newRand(42))
	if !slices.Equal(a, b) {
		t.Fatal("the same seed gave two schedules")
	}
	var sum, sq float64
	for i := 1; i < len(a); i++ {
		g := float64(a[i]-a[i-1]) / 1e9
		if g < 0 {
			t.Fatal("arrivals out of order")
		}
		sum += g
		sq += g * g
	}
	n := float64(len(a) - 1)
	mean := sum / n
	cv := math.Sqrt(sq/n-mean*mean) / mean
	if math.Abs(mean-0.01) > 0.0003 || math.Abs(cv-1) > 0.03 {
		t.Errorf("poisson 100/s: mean gap %v s, cv %v; want 0.01 and 1", mean, cv)
	}
}
