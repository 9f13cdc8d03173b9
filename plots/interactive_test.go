package plots

import (
	"bytes"
	"encoding/xml"
	"io"
	"math"
	"strings"
	"testing"
)

// interactiveSVG draws c as a page embeds it (SaveSVGNoFont).
func interactiveSVG(t *testing.T, c Chart) string {
	t.Helper()
	f, err := c.Figure()
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := SaveSVGNoFont(f, &buf, DefaultWidthPx, DefaultHeightPx); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

// wellFormed fails t unless s parses as XML to its end.
func wellFormed(t *testing.T, s string) {
	t.Helper()
	d := xml.NewDecoder(strings.NewReader(s))
	for {
		if _, err := d.Token(); err == io.EOF {
			return
		} else if err != nil {
			t.Fatalf("SVG is not well-formed: %v", err)
		}
	}
}

// seedChart returns the seed chart named name.
func seedChart(t *testing.T, name string) Chart {
	t.Helper()
	for _, n := range seedCharts() {
		if n.Name == name {
			return n.Chart
		}
	}
	t.Fatalf("no seed chart %s", name)
	return nil
}

// validPoints counts the valid points of series.
func validPoints(series []Series) int {
	n := 0
	for _, s := range series {
		for _, p := range s.Points {
			if isValid(p.Status) {
				n++
			}
		}
	}
	return n
}

// TestSVGInteractive checks what a page needs from each kind of chart's
// SVG (issue 24): each valid point (each heat-map cell) an element whose
// <title> gives its exact value, its run and its cell; each series a
// group naming its context group or run; a legend entry per group that
// names what it toggles; no marker left; well-formed XML.
func TestSVGInteractive(t *testing.T) {
	line := seedChart(t, "decode_total").(LineChart)
	trend := seedChart(t, "trend_8k_128").(Trend)
	front := seedChart(t, "frontier").(Frontier)
	heat := seedChart(t, "ratio_total").(Heatmap)
	tests := []struct {
		name  string
		chart Chart
		// titled counts the hover elements: `<g class="sm-pt">` or
		// `<g class="sm-cell">` followed by a <title>.
		class  string
		titled int
		series int // `class="sm-series"` groups
		// want are titles (or parts of the SVG) that must be there.
		want []string
	}{
		{"line", line, "sm-pt", validPoints(line.Series), len(line.Series), []string{
			`<title>BF16 · H200 NVL 8K: Simultaneous requests 1, Total output (tok/s) 334.7</title>`,
			`data-sm-toggle="g0"><title>8K: click to hide or show</title>`,
			`data-sm-toggle="r1"`,
		}},
		// X measured, not counted (the report's charts per dollar): exact
		// too, and the cell Point.Cell names.
		{"line, measured X", LineChart{Title: "t", XLabel: "Output per request (tok/s)", YLabel: "Output tokens per dollar (millions)", LogY: true,
			Series: []Series{{Name: "BF16 8K", Group: "8K", Run: "BF16", Points: []Point{{X: 294.6, Y: 0.876, Cell: "8K×2"}, {X: 336, Y: 0.5, Cell: "8K×1"}}}}}, "sm-pt", 2, 1, []string{
			`<title>BF16 8K: Output per request (tok/s) 294.6, Output tokens per dollar (millions) 0.88 (8K×2)</title>`,
			`<title>BF16 8K: Output per request (tok/s) 336, Output tokens per dollar (millions) 0.5 (8K×1)</title>`,
		}},
		{"trend", trend, "sm-pt", validPoints(trend.Series), len(trend.Series), []string{
			`<title>8K × 128: vLLM version 0.29.1, Total output (tok/s) 13900</title>`,
		}},
		// Every cell, the ones without a value too: 5 contexts × 8 loads.
		{"heatmap", heat, "sm-cell", len(heat.Rows) * len(heat.Cols), 0, []string{
			// 6,091.1 / 13,000: printed 0.47× in the cell.
			`<title>Context length 8K, Simultaneous requests 128: 0.4685×</title>`,
			`<title>Context length 8K, Simultaneous requests 16: no value, looped (INT4)</title>`,
			`<title>Context length 123K, Simultaneous requests 128: no value, over cap. (both)</title>`,
		}},
		{"frontier", front, "sm-pt", validPoints(front.Series), len(front.Series), []string{
			`<title>INT4 · RTX PRO 6000, 8K×128: Output per request (tok/s) 47.4, Total output (tok/s) 6091.1</title>`,
			`<title>BF16 · H200 NVL, 8K×128: Output per request (tok/s) 101.3, Total output (tok/s) 13000</title>`,
			`class="sm-series" data-sm="r0"`,
			`data-sm-toggle="r0"><title>BF16 · H200 NVL: click to hide or show</title>`,
			`data-sm-toggle="r1"><title>INT4 · RTX PRO 6000: click to hide or show</title>`,
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := interactiveSVG(t, tt.chart)
			if n := strings.Count(s, `<g class="`+tt.class+`"><title>`); n != tt.titled {
				t.Errorf("%d elements %s with a title, want %d", n, tt.class, tt.titled)
			}
			if n := strings.Count(s, `class="sm-series"`); n != tt.series {
				t.Errorf("%d series groups, want %d", n, tt.series)
			}
			for _, w := range tt.want {
				if !strings.Contains(s, w) {
					t.Errorf("SVG lacks %s", w)
				}
			}
			if strings.Contains(s, "SMK") {
				t.Errorf("a marker was left in the SVG")
			}
			wellFormed(t, s)
		})
	}
}

// TestSVGInteractiveEscapes draws each kind of chart with a run or cell
// named `<script>…` and checks it stays text: escaped in the hover and
// toggle titles (and the drawn labels), never an element.
func TestSVGInteractiveEscapes(t *testing.T) {
	const evil = `<script>alert("x")</script> & co`
	const escaped = `&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt; &amp; co`
	pts := []Point{{X: 1, Y: 10, Label: evil}, {X: 2, Y: 20, Cell: evil}}
	two := []Series{{Name: evil, Run: evil, Group: evil, Points: pts}, {Name: "b", Run: "b", Group: "b", Points: pts}}
	tests := []struct {
		name  string
		chart Chart
		// titles is how many <title>s hold the escaped name at least.
		titles int
	}{
		{"line", LineChart{Title: "t", XLabel: "x", YLabel: "y", GroupTitle: "g", RunTitle: "r", Series: two}, 4},
		{"trend", Trend{Title: "t", XLabel: "x", YLabel: "y", Versions: []string{evil, "2", "3"}, Series: []Series{{Name: evil, Points: []Point{{X: 0, Y: 1}, {X: 1, Y: 2}}}}}, 3},
		{"frontier", Frontier{Title: "t", XLabel: "x", YLabel: "y", Series: two}, 5},
		{"heatmap", Heatmap{Title: "t", XLabel: "x", YLabel: "y", Rows: []string{evil}, Cols: []string{"1", "2"},
			Values: [][]float64{{0.5, math.NaN()}}, Notes: [][]string{{"", evil}}, Hover: [][]string{{evil}}, Ratio: true}, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := interactiveSVG(t, tt.chart)
			if strings.Contains(s, "<script") {
				t.Errorf("the SVG holds a <script> element")
			}
			n := 0
			for _, part := range strings.Split(s, "<title>")[1:] {
				title, _, _ := strings.Cut(part, "</title>")
				if strings.Contains(title, escaped) {
					n++
				}
			}
			if n < tt.titles {
				t.Errorf("%d titles hold the escaped name, want %d or more", n, tt.titles)
			}
			wellFormed(t, s)
		})
	}
}
