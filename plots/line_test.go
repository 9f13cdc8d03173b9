package plots

import (
	"math"
	"slices"
	"strings"
	"testing"
)

func TestPlaceMissing(t *testing.T) {
	tests := []struct {
		name       string
		pts        []Point
		logX, logY bool
		want       []float64
	}{
		{"between neighbours, linear", []Point{{X: 1, Y: 10}, {X: 2, Status: looped}, {X: 3, Y: 30}}, false, false, []float64{10, 20, 30}},
		// On log–log axes the midpoint of 1→4 at x=2 is the geometric mean.
		{"between neighbours, log-log", []Point{{X: 1, Y: 100}, {X: 2, Status: looped}, {X: 4, Y: 400}}, true, true, []float64{100, 200, 400}},
		{"two gaps", []Point{{X: 1, Y: 10}, {X: 2, Status: looped}, {X: 3, Status: looped}, {X: 4, Y: 40}}, false, false, []float64{10, 20, 30, 40}},
		{"end, extrapolated", []Point{{X: 1, Y: 10}, {X: 2, Y: 20}, {X: 3, Status: over}}, false, false, []float64{10, 20, 25}}, // 30 clamped to 20 + (20−10)/2
		// The INT4 16K row: 16K×1 is placed at 533.1²/938.3 on log–log axes.
		{"start, extrapolated log", []Point{{X: 1, Status: looped}, {X: 2, Y: 533.1}, {X: 4, Y: 938.3}, {X: 16, Y: 2199}, {X: 128, Y: 5319.4}}, true, true, []float64{302.9, 533.1, 938.3, 2199, 5319.4}},
		{"start, clamped", []Point{{X: 1, Status: looped}, {X: 2, Y: 533.1}, {X: 4, Y: 938.3}}, true, true, []float64{401.8, 533.1, 938.3}},
		{"one neighbour", []Point{{X: 1, Y: 7}, {X: 2, Status: over}}, false, false, []float64{7, 7}},
		{"none", []Point{{X: 1, Status: looped}}, false, false, []float64{math.NaN()}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := placeMissing(tt.pts, tt.logX, tt.logY)
			for i := range got {
				if math.IsNaN(tt.want[i]) != math.IsNaN(got[i]) || math.Abs(got[i]-tt.want[i]) > 0.1 {
					t.Errorf("y = %v, want %v", got, tt.want)
					break
				}
			}
		})
	}
}

func TestStyleKeys(t *testing.T) {
	series := decodeSeries(seedRuns, func(c seedCell) float64 { return c.total })
	k := newStyleKeys(series)
	if !slices.Equal(k.groups, decodeContexts) || !k.byRun || !k.grouped {
		t.Fatalf("keys = %+v", k)
	}
	// Colour by context, pattern by run.
	if k.color(series[0]) != k.color(series[5]) || k.run(series[0]) == k.run(series[5]) {
		t.Error("8K of both runs should share a colour and differ in pattern")
	}
	if k.color(series[0]) == k.color(series[1]) {
		t.Error("8K and 16K share a colour")
	}
	one := newStyleKeys([]Series{{Name: "a"}, {Name: "b"}})
	if one.byRun || one.grouped || one.color(Series{Name: "b"}) != 1 {
		t.Errorf("single-run keys = %+v", one)
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
