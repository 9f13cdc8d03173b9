package plots

import (
	"math"
	"slices"
	"testing"

	"gonum.org/v1/plot"

	"speedmatrix/schema"
)

// labelled returns the labelled ticks as "value=label" pairs.
func labelled(ticks []plot.Tick) (vals []float64, labels []string) {
	for _, t := range ticks {
		if t.Label != "" {
			vals = append(vals, t.Value)
			labels = append(labels, t.Label)
		}
	}
	return vals, labels
}

func TestLog2Ticks(t *testing.T) {
	tests := []struct {
		name     string
		t        Log2Ticks
		min, max float64
		want     []string
		all      int // ticks including unlabelled ones
	}{
		{"concurrency", Log2Ticks{}, 1, 128, []string{"1", "2", "4", "8", "16", "32", "64", "128"}, 8},
		{"padded range", Log2Ticks{}, 0.9, 140, []string{"1", "2", "4", "8", "16", "32", "64", "128"}, 8},
		{"inside", Log2Ticks{}, 3, 20, []string{"4", "8", "16"}, 3},
		{"context", Log2Ticks{}, 8192, 131072, []string{"8K", "16K", "32K", "64K", "128K"}, 5},
		{"wide range labels every other", Log2Ticks{}, 1, 4096, []string{"1", "4", "16", "64", "256", "1K", "4K"}, 13},
		{"custom format", Log2Ticks{Format: func(v float64) string { return "n" + FormatNumber(v) }}, 1, 4, []string{"n1", "n2", "n4"}, 3},
		{"no positive range", Log2Ticks{}, 0, 8, nil, 0},
		{"inverted", Log2Ticks{}, 8, 1, nil, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ticks := tt.t.Ticks(tt.min, tt.max)
			_, got := labelled(ticks)
			if !slices.Equal(got, tt.want) || len(ticks) != tt.all {
				t.Errorf("Ticks(%v, %v) = %v (%d ticks), want %v (%d)", tt.min, tt.max, got, len(ticks), tt.want, tt.all)
			}
		})
	}
}

func TestLog125Ticks(t *testing.T) {
	tests := []struct {
		min, max float64
		want     []string
	}{
		{265, 13000, []string{"500", "1,000", "2,000", "5,000", "10,000"}},
		{1, 100, []string{"1", "2", "3", "5", "10", "20", "30", "50", "100"}},
		{125, 3722, []string{"200", "300", "500", "1,000", "2,000", "3,000"}},
		{1, 1000, []string{"1", "2", "5", "10", "20", "50", "100", "200", "500", "1,000"}},
		{0.5, 2e4, []string{"1", "10", "100", "1,000", "10,000"}},
		{120, 180, nil},
		{-1, 10, nil},
	}
	for _, tt := range tests {
		ticks := Log125Ticks{}.Ticks(tt.min, tt.max)
		_, got := labelled(ticks)
		if !slices.Equal(got, tt.want) {
			t.Errorf("Ticks(%v, %v) = %v, want %v", tt.min, tt.max, got, tt.want)
		}
		for _, tk := range ticks {
			if tk.Value < tt.min || tk.Value > tt.max*(1+1e-9) {
				t.Errorf("Ticks(%v, %v): tick %v out of range", tt.min, tt.max, tk.Value)
			}
		}
	}
}

func TestCommaTicks(t *testing.T) {
	tests := []struct {
		min, max float64
		want     []string
	}{
		{0, 13000, []string{"0", "2,500", "5,000", "7,500", "10,000", "12,500"}},
		{0, 336, []string{"0", "100", "200", "300"}},
		{0, 69500, []string{"0", "20,000", "40,000", "60,000"}},
		{0.2, 1.3, []string{"0.2", "0.4", "0.6", "0.8", "1", "1.2"}},
		{5, 5, nil},
	}
	for _, tt := range tests {
		_, got := labelled(commaTicks{}.Ticks(tt.min, tt.max))
		if !slices.Equal(got, tt.want) {
			t.Errorf("Ticks(%v, %v) = %v, want %v", tt.min, tt.max, got, tt.want)
		}
	}
}

// TestThinTicksDistinct checks that ticks printing the same text keep one
// label, and that a third crowded label is dropped rather than stacked.
func TestThinTicksDistinct(t *testing.T) {
	ticks := []plot.Tick{{Value: 125952, Label: "123K"}, {Value: 126000, Label: "123K"}, {Value: 128000, Label: "125K"}, {Value: 129000, Label: "126K"}, {Value: 131072, Label: "128K"}}
	_, labels := labelled(thinTicks(ticks, 8192, 131072, 0.05, plot.LogScale{}))
	if want := []string{"123K", "\n125K"}; !slices.Equal(labels, want) {
		t.Errorf("labels = %q, want %q", labels, want)
	}
}

func TestThinTicks(t *testing.T) {
	ticks := []plot.Tick{{Value: 8192, Label: "8K"}, {Value: 65536, Label: "64K"}, {Value: 125952, Label: "123K"}, {Value: 131072, Label: "128K"}}
	got := thinTicks(ticks, 8192, 131072, 0.05, plot.LogScale{})
	_, labels := labelled(got)
	if want := []string{"8K", "64K", "123K", "\n128K"}; !slices.Equal(labels, want) {
		t.Errorf("labels = %v, want %v", labels, want)
	}
	if len(got) != len(ticks) {
		t.Errorf("thinTicks dropped tick marks: %d of %d", len(got), len(ticks))
	}
	if ticks[3].Label != "128K" {
		t.Error("thinTicks changed its input")
	}
}

func TestFormat(t *testing.T) {
	tests := []struct {
		f    func(float64) string
		v    float64
		want string
	}{
		{FormatNumber, 13000, "13,000"},
		{FormatNumber, 6091.1, "6,091"},
		{FormatNumber, 325.24, "325"},
		{FormatNumber, 47.44, "47.4"},
		{FormatNumber, 0.4685, "0.47"},
		{FormatNumber, 2, "2"},
		{FormatNumber, -1234567, "−1,234,567"},
		{FormatNumber, math.NaN(), "—"},
		{FormatCount, 128, "128"},
		{FormatCount, 8192, "8K"},
		{FormatCount, 131072, "128K"},
		{FormatCount, 1 << 20, "1M"},
		{FormatCount, 1000, "1,000"},
		{formatRatio, 0.4685, "0.47×"},
		{formatRatio, 2, "2.00×"},
	}
	for _, tt := range tests {
		if got := tt.f(tt.v); got != tt.want {
			t.Errorf("format(%v) = %q, want %q", tt.v, got, tt.want)
		}
	}
}

// TestOnePointAxes: a chart of one point (a serving run of one rate)
// labels both axes, each label once: its TTFT axis had no label and its
// throughput axis read "1,244 1,245 1,245 1,246".
func TestOnePointAxes(t *testing.T) {
	for _, logY := range []bool{true, false} {
		lc := LineChart{Title: "one point", XLabel: "Total output (tok/s)", YLabel: "TTFT p50 (ms)", LogY: logY,
			Series: []Series{{Name: "1K in", Points: []Point{{X: 1245.2, Y: 82.5, Status: schema.StatusValid}}}}}
		f, err := lc.Figure()
		if err != nil {
			t.Fatal(err)
		}
		for i, ax := range []*plot.Axis{&f.Plot.X, &f.Plot.Y} {
			_, labels := labelled(ax.Tick.Marker.Ticks(ax.Min, ax.Max))
			if len(labels) < 2 || len(slices.Compact(slices.Clone(labels))) != len(labels) {
				t.Errorf("logY=%v: axis %q over [%v, %v] labelled %q", logY, ax.Label.Text, ax.Min, ax.Max, labels)
			}
			if v := []float64{1245.2, 82.5}[i]; !(ax.Min < v && v < ax.Max) {
				t.Errorf("logY=%v: axis %q over [%v, %v] leaves the point out", logY, ax.Label.Text, ax.Min, ax.Max)
			}
		}
	}
}
