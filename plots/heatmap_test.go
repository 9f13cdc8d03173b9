package plots

import (
	"image/color"
	"math"
	"strings"
	"testing"
)

func TestHeatmapErrors(t *testing.T) {
	tests := []struct {
		name string
		h    Heatmap
		want string
	}{
		{"empty", Heatmap{}, "no rows"},
		{"row count", Heatmap{Rows: []string{"a", "b"}, Cols: []string{"1"}, Values: [][]float64{{1}}}, "1 rows of values for 2"},
		{"column count", Heatmap{Rows: []string{"a"}, Cols: []string{"1", "2"}, Values: [][]float64{{1}}}, "1 values for 2 columns"},
		{"ratio zero", Heatmap{Rows: []string{"a"}, Cols: []string{"1"}, Values: [][]float64{{0}}, Ratio: true}, "cannot be coloured"},
		{"infinite", Heatmap{Rows: []string{"a"}, Cols: []string{"1"}, Values: [][]float64{{math.Inf(1)}}}, "cannot be coloured"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := tt.h.Figure()
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %v, want one containing %q", err, tt.want)
			}
		})
	}
}

func TestHeatmapCells(t *testing.T) {
	h := ratioHeatmap(seedBF16, seedINT4)
	// Known answers from the seeds (issue 4).
	if got := h.Values[0][7]; math.Abs(got-0.4685) > 0.0001 {
		t.Errorf("8K×128 ratio = %v, want 0.4685", got)
	}
	if !math.IsNaN(h.Values[0][4]) || h.Notes[0][4] != "looped\n(INT4)" {
		t.Errorf("8K×16 = %v %q, want no ratio, looped in INT4", h.Values[0][4], h.Notes[0][4])
	}
	if !math.IsNaN(h.Values[4][7]) || h.Notes[4][7] != "over cap.\n(both)" {
		t.Errorf("123K×128 = %v %q, want no ratio, over capacity in both", h.Values[4][7], h.Notes[4][7])
	}
	svg := string(goldenSVG(t, h))
	// Every valid cell's value is printed: 40 cells − 7 looped − 1 over.
	if n := strings.Count(svg, "×</text>"); n != 32+7 { // 32 cells and 7 colour-bar ticks
		t.Errorf("%d ratio texts, want 32 cells + 7 scale ticks", n)
	}
	if n := strings.Count(svg, ">looped</text>"); n != 7 {
		t.Errorf("%d looped notes, want 7", n)
	}
}

func TestHeatmapRowOrder(t *testing.T) {
	// The first row is drawn at the top: its label has the largest y in
	// the plot's coordinates (smallest in SVG, which flips y).
	g := heatGrid{z: [][]float64{{1, 2}, {3, 4}, {5, 6}}}
	if c, r := g.Dims(); c != 2 || r != 3 {
		t.Fatalf("Dims = %d, %d", c, r)
	}
	if g.Z(0, 2) != 1 || g.Z(1, 0) != 6 {
		t.Errorf("Z(0,2) = %v, Z(1,0) = %v; want 1 (first row at top) and 6", g.Z(0, 2), g.Z(1, 0))
	}
}

func TestTextOn(t *testing.T) {
	tests := []struct {
		fill color.Color
		want color.Color
	}{
		{color.White, color.Black},
		{color.Black, color.White},
		{color.RGBA{R: 0xB4, G: 0x04, B: 0x26, A: 0xFF}, color.White}, // dark red end of the palette
		{color.RGBA{R: 0xDD, G: 0xDD, B: 0xDD, A: 0xFF}, color.Black}, // palette centre
		{color.RGBA{R: 0xDC, G: 0x5A, B: 0x46, A: 0xFF}, color.Black}, // mid red: black contrasts more
	}
	for _, tt := range tests {
		if got := textOn(tt.fill); got != tt.want {
			t.Errorf("textOn(%v) = %v, want %v", tt.fill, got, tt.want)
		}
	}
}

func TestHeatmapScale(t *testing.T) {
	blueish := func(c color.Color) bool { r, _, b, _ := c.RGBA(); return b > r+0x2000 }
	redish := func(c color.Color) bool { r, _, b, _ := c.RGBA(); return r > b+0x2000 }
	tests := []struct {
		name     string
		h        Heatmap
		lo, hi   float64
		z        float64
		blue     bool // else red
		min, max float64
	}{
		{"faster is blue", Heatmap{Ratio: true}, math.Log2(0.47), math.Log2(1.16), 1, true, math.Log2(0.47), -math.Log2(0.47)},
		{"slower is red", Heatmap{Ratio: true}, math.Log2(0.47), math.Log2(1.16), -1, false, math.Log2(0.47), -math.Log2(0.47)},
		{"longer latency is red", Heatmap{Ratio: true, LowerIsBetter: true}, -1, 1, 1, false, -1, 1},
		{"shorter latency is blue", Heatmap{Ratio: true, LowerIsBetter: true}, -1, 1, -1, true, -1, 1},
		{"noise spans at least 0.8–1.25", Heatmap{Ratio: true}, -0.01, 0.02, 0.3, true, -math.Log2(1.25), math.Log2(1.25)},
		{"plain values low is blue", Heatmap{}, 100, 200, 110, true, 100, 200},
		{"one value", Heatmap{}, 5, 5, 5.5, false, 4, 6},
		{"no value", Heatmap{}, math.Inf(1), math.Inf(-1), 0.5, false, -1, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cm := tt.h.scale(tt.lo, tt.hi)
			if math.Abs(cm.Min()-tt.min) > 1e-9 || math.Abs(cm.Max()-tt.max) > 1e-9 {
				t.Errorf("range = [%v, %v], want [%v, %v]", cm.Min(), cm.Max(), tt.min, tt.max)
			}
			c, err := cm.At(tt.z)
			if err != nil {
				t.Fatal(err)
			}
			if tt.blue && !blueish(c) || !tt.blue && !redish(c) {
				t.Errorf("colour at %v = %v, want %s", tt.z, c, map[bool]string{true: "blue", false: "red"}[tt.blue])
			}
		})
	}
}

func TestCellTextSize(t *testing.T) {
	tests := []struct {
		rows, cols int
		want       float64
	}{
		{5, 8, 9}, {1, 1, 9}, {5, 12, 6}, {10, 8, 6}, {6, 9, 8}, {7, 9, 9 * 6.0 / 7}, {40, 40, 6},
	}
	for _, tt := range tests {
		if got := float64(cellTextSize(tt.rows, tt.cols)); got != tt.want {
			t.Errorf("cellTextSize(%d, %d) = %v, want %v", tt.rows, tt.cols, got, tt.want)
		}
	}
}

func TestHeatmapRatioOneIsFilled(t *testing.T) {
	// A ratio of exactly 1 maps to the palette's middle colour; it must be
	// drawn (pale grey, #DCDCDC), not left white like a cell without a value.
	h := Heatmap{Title: "one", Rows: []string{"8K"}, Cols: []string{"1", "2", "4"}, Values: [][]float64{{0.5, 1, 2}}, Ratio: true}
	svg := string(goldenSVG(t, h))
	if n := strings.Count(svg, "fill:#DCDCDC"); n < 1 {
		t.Errorf("the cell of ratio 1 is not filled with the palette centre (#DCDCDC)")
	}
	for _, lo := range []bool{false, true} {
		cm := Heatmap{Ratio: true, LowerIsBetter: lo}.scale(-1, 1)
		pal, err := sampled(cm, 255)
		if err != nil {
			t.Fatal(err)
		}
		for i, c := range pal.Colors() {
			if c == nil {
				t.Fatalf("LowerIsBetter=%v: colour %d is nil", lo, i)
			}
		}
	}
}

// TestFitCellText: a note too wide for its cell at the default chart
// size shrinks until it fits ("missing (simulated)" overflowed into the
// next cell of an eight-column matrix); the seeds' notes keep their size.
func TestFitCellText(t *testing.T) {
	w, _, err := size(DefaultWidthPx, DefaultHeightPx)
	if err != nil {
		t.Fatal(err)
	}
	cell := (w - heatOverheadPt) / 8
	if got := fitCellText([]string{"0.47×", "over cap.\n(both)", "looped\n(RTX)"}, 8, 0, cellSize); got != cellSize {
		t.Errorf("seed notes shrank to %v pt", got)
	}
	got := fitCellText([]string{"1.02×", "missing\n(simulated)"}, 8, 0, cellSize)
	if width := textStyle(got).Rectangle("(simulated)").Size().X; got >= cellSize || width > cell*1.01 {
		t.Errorf("(simulated) at %v pt is %v wide in a %v cell", got, width, cell)
	}
	if got := fitCellText([]string{strings.Repeat("x", 80)}, 8, 0, cellSize); got != 6 {
		t.Errorf("an overlong note went to %v pt, want the 6 pt floor", got)
	}
	// The report's first-screen heatmap is drawn 860 px wide: its notes
	// fit cells of that width ("looped (INT4)" spilled over its
	// neighbours when sized for 1200 px).
	w860, _, err := size(860, DefaultHeightPx)
	if err != nil {
		t.Fatal(err)
	}
	narrow := (w860 - heatOverheadPt) / 8
	got = fitCellText([]string{"0.97×", "looped\n(INT4)"}, 8, 860, cellSize)
	if width := textStyle(got).Rectangle("(INT4)").Size().X; width > narrow*1.01 {
		t.Errorf("(INT4) at %v pt is %v wide in a %v cell of an 860 px heatmap", got, width, narrow)
	}
}
