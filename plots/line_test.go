package plots

import (
	"math"
	"strings"
	"testing"
)

func TestMarkRow(t *testing.T) {
	tests := []struct {
		name       string
		lo, hi     float64
		logY       bool
		below, max float64 // the row lies in (max, below)
	}{
		{"log", 300, 13000, true, 300, 150},
		{"linear from zero", 10, 40, false, 0, -4}, // a band under zero, not on it
		{"linear negative", -10, 30, false, -10, -13},
		{"no valid point", math.Inf(1), math.Inf(-1), true, 2, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			y := markRow(tt.lo, tt.hi, tt.logY)
			if !(y < tt.below) || y < tt.max {
				t.Errorf("markRow(%v, %v) = %v, want below %v (and not below %v)", tt.lo, tt.hi, y, tt.below, tt.max)
			}
		})
	}
	// The INT4 16K×1 cell looped: it is marked below every measured
	// value, not at ≈300 tok/s on the 16K line.
	var lc = LineChart{Title: "t", LogX2: true, LogY: true, Series: []Series{{Name: "16K", Points: []Point{{X: 1, Status: looped}, {X: 2, Y: 533.1}, {X: 4, Y: 938.3}}}}}
	if _, err := lc.Figure(); err != nil {
		t.Fatal(err)
	}
	if y := markRow(533.1, 938.3, true); y >= 533.1 {
		t.Errorf("looped cell marked at %v, within the measured values", y)
	}
}

func TestLineChartErrors(t *testing.T) {
	tests := []struct {
		name string
		c    LineChart
		want string
	}{
		{"no series", LineChart{Title: "t"}, "no valid points"},
		{"only looped", LineChart{Series: []Series{{Name: "s", Points: []Point{{X: 1, Status: looped}}}}}, "no valid points"},
		{"zero on log x", LineChart{LogX2: true, Series: []Series{{Name: "s", Points: []Point{{X: 0, Y: 1}}}}}, "x = 0"},
		{"negative on log y", LineChart{LogY: true, Series: []Series{{Name: "s", Points: []Point{{X: 1, Y: -2}}}}}, "y = -2"},
		{"fit without function", LineChart{Series: []Series{{Name: "s", Points: []Point{{X: 1, Y: 1}}}}, Fits: []Fit{{Group: "s", Min: 1, Max: 2}}}, "no function"},
		{"fit with empty range", LineChart{Series: []Series{{Name: "s", Points: []Point{{X: 1, Y: 1}}}}, Fits: []Fit{{Group: "s", F: math.Sqrt, Min: 2, Max: 2}}}, "empty range"},
		{"NaN valid value", LineChart{Series: []Series{{Name: "s", Points: []Point{{X: 1, Y: math.NaN()}}}}}, "y = NaN"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := tt.c.Figure()
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %v, want one containing %q", err, tt.want)
			}
		})
	}
}

func TestLineChartLegend(t *testing.T) {
	// With two runs the legend has one entry per context and per run
	// (5 + 2), plus headings, spacers and the two statuses seen.
	c := seedCharts()[1].Chart.(LineChart)
	fig, err := c.Figure()
	if err != nil {
		t.Fatal(err)
	}
	svg := string(goldenSVG(t, c))
	// Legend entries start with an en space (addEntry).
	for _, w := range []string{"Context", "Run", "No value", "8K", "123K", "BF16 · H200 NVL", "looped (discarded)", "over capacity (not run)"} {
		if !strings.Contains(svg, ">\u2002"+w+"<") {
			t.Errorf("legend lacks %s", w)
		}
	}
	if n := strings.Count(svg, ">\u2002INT4 · RTX PRO 6000<"); n != 1 {
		t.Errorf("run named %d times, want once", n)
	}
	if fig.Legend == nil {
		t.Fatal("no legend")
	}
	// A chart without invalid cells has no status entries.
	clean := LineChart{Title: "clean", Series: []Series{{Name: "a", Points: []Point{{X: 1, Y: 1}, {X: 2, Y: 2}}}}}
	if s := string(goldenSVG(t, clean)); strings.Contains(s, "No value") {
		t.Error("status legend drawn without invalid cells")
	}
}

func TestFitSamples(t *testing.T) {
	f := Fit{F: func(x float64) float64 { return x - 2 }, Min: 1, Max: 128}
	lin := f.samples(false, false)
	if len(lin) != fitSamples || lin[0].X != 1 || lin[len(lin)-1].X != 128 {
		t.Errorf("linear samples: %d from %v to %v", len(lin), lin[0].X, lin[len(lin)-1].X)
	}
	// Evenly spread on a log axis: the middle sample is near √128.
	logx := f.samples(true, false)
	if mid := logx[fitSamples/2].X; mid < 10 || mid > 12.5 {
		t.Errorf("middle of log samples at %v, want about 11.3", mid)
	}
	// A log Y axis cannot show y ≤ 0, i.e. x ≤ 2: on linear X only the
	// first sample (x = 1) is dropped; on log X the first ten (128^(i/63)
	// ≤ 2 for i ≤ 9).
	if n := len(f.samples(false, true)); n != fitSamples-1 {
		t.Errorf("%d samples kept on linear X, log Y; want %d", n, fitSamples-1)
	}
	if n := len(f.samples(true, true)); n != fitSamples-10 {
		t.Errorf("%d samples kept on log X, log Y; want %d", n, fitSamples-10)
	}
}
