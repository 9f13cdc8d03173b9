package plots

import (
	"bytes"
	"flag"
	"fmt"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

var (
	update  = flag.Bool("update", false, "rewrite the golden SVG files under testdata")
	lookDir = flag.String("look", "", "write every seed chart as PNG and SVG into this directory (to look at) instead of a temporary one")
)

// goldenSVG renders a chart at the default size without embedded fonts
// (the font is the same fixed bytes in every file, and would make each
// golden file half a megabyte).
func goldenSVG(t testing.TB, c Chart) []byte {
	t.Helper()
	fig, err := c.Figure()
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := saveSVG(fig, &buf, DefaultWidthPx, DefaultHeightPx, false); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestSVGGolden(t *testing.T) {
	for _, n := range seedCharts() {
		t.Run(n.Name, func(t *testing.T) {
			got := goldenSVG(t, n.Chart)
			// Same input, same bytes: build the chart again from scratch.
			var again []byte
			for _, m := range seedCharts() {
				if m.Name == n.Name {
					again = goldenSVG(t, m.Chart)
				}
			}
			if !bytes.Equal(got, again) {
				t.Fatal("two renderings of the same chart differ")
			}
			path := filepath.Join("testdata", n.Name+".svg")
			if *update {
				if err := os.WriteFile(path, got, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run go test ./plots -update to create it)", err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("SVG differs from %s (%d bytes, want %d); look at the PNG (-look DIR) and run -update if the change is meant", path, len(got), len(want))
			}
		})
	}
}

func TestSVGContent(t *testing.T) {
	// The charts carry what the reader needs: title, axis labels with
	// units, legend entries, cell values and status notes.
	charts := seedCharts()
	tests := []struct {
		name string
		want []string
	}{
		{"decode_total", []string{"Sustained decode: total throughput", "Total output (tok/s)", "Simultaneous requests", ">128<", ">64<", ">10,000<", "looped (discarded)", "over capacity (not run)", "INT4 · RTX PRO 6000", ">\u2002123K<"}},
		{"ratio_total", []string{">0.47×<", ">1.16×<", ">looped<", ">(INT4)<", ">over cap.<", ">(both)<", ">0.99×<", "INT4 · RTX PRO 6000 / BF16 · H200 NVL"}},
		{"frontier", []string{"target ≥ 50 tok/s per user", ">8K×128<", ">16K×64<"}},
		{"trend_8k_128", []string{">−15.8%<", ">+8.6%<", ">0.30.1rc1<", "change beyond ±5%"}},
		{"usl_int4", []string{">\u2002USL fit<", "Universal Scalability Law"}},
		{"prefill_tok_s", []string{">8K<", ">123K<", ">60,000<"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var chart Chart
			for _, n := range charts {
				if n.Name == tt.name {
					chart = n.Chart
				}
			}
			if chart == nil {
				t.Fatalf("no chart %s", tt.name)
			}
			svg := string(goldenSVG(t, chart))
			for _, w := range tt.want {
				if !strings.Contains(svg, w) {
					t.Errorf("SVG lacks %q", w)
				}
			}
		})
	}
}

func TestSavePNGSize(t *testing.T) {
	chart := seedCharts()[1].Chart
	fig, err := chart.Figure()
	if err != nil {
		t.Fatal(err)
	}
	for _, sz := range []struct{ w, h int }{{1200, 750}, {640, 360}, {333, 217}} {
		var buf bytes.Buffer
		if err := SavePNG(fig, &buf, sz.w, sz.h); err != nil {
			t.Fatal(err)
		}
		cfg, err := png.DecodeConfig(&buf)
		if err != nil {
			t.Fatal(err)
		}
		if cfg.Width != sz.w || cfg.Height != sz.h {
			t.Errorf("PNG is %d×%d, want %d×%d", cfg.Width, cfg.Height, sz.w, sz.h)
		}
	}
	for _, bad := range []struct{ w, h int }{{0, 100}, {100, -1}} {
		if err := SavePNG(fig, &bytes.Buffer{}, bad.w, bad.h); err == nil {
			t.Errorf("SavePNG %d×%d: no error", bad.w, bad.h)
		}
		if err := SaveSVG(fig, &bytes.Buffer{}, bad.w, bad.h); err == nil {
			t.Errorf("SaveSVG %d×%d: no error", bad.w, bad.h)
		}
	}
}

func TestSaveSVGEmbedsFont(t *testing.T) {
	fig, err := seedCharts()[0].Chart.Figure()
	if err != nil {
		t.Fatal(err)
	}
	var a, b bytes.Buffer
	if err := SaveSVG(fig, &a, 1200, 750); err != nil {
		t.Fatal(err)
	}
	if err := SaveSVG(fig, &b, 1200, 750); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a.Bytes(), b.Bytes()) {
		t.Error("drawing the same figure twice gives different SVGs")
	}
	s := a.String()
	for _, w := range []string{`font-family:"Liberation Sans"`, "data:font/ttf", `width="450pt"`, `height="281.25pt"`} {
		if !strings.Contains(s, w) {
			t.Errorf("SVG lacks %q", w)
		}
	}
	if strings.Contains(s, "Liberation Serif") {
		t.Error("SVG uses the serif font")
	}
}

func TestWriteAll(t *testing.T) {
	dir := t.TempDir()
	if *lookDir != "" {
		dir = *lookDir
	}
	charts := seedCharts()
	if err := WriteAll(dir, charts); err != nil {
		t.Fatal(err)
	}
	for _, n := range charts {
		f, err := os.Open(filepath.Join(dir, n.Name+".png"))
		if err != nil {
			t.Fatal(err)
		}
		img, err := png.Decode(f)
		f.Close()
		if err != nil {
			t.Fatalf("%s.png: %v", n.Name, err)
		}
		if b := img.Bounds(); b.Dx() != DefaultWidthPx || b.Dy() != DefaultHeightPx {
			t.Errorf("%s.png is %v", n.Name, b)
		}
		// Not blank: a chart covers a good part of the canvas with ink.
		ink := 0
		for y := 0; y < img.Bounds().Dy(); y += 2 {
			for x := 0; x < img.Bounds().Dx(); x += 2 {
				r, g, b, _ := img.At(x, y).RGBA()
				if r < 0xE000 || g < 0xE000 || b < 0xE000 {
					ink++
				}
			}
		}
		if frac := float64(ink) / float64(DefaultWidthPx*DefaultHeightPx/4); frac < 0.02 {
			t.Errorf("%s.png is nearly blank (%.1f%% ink)", n.Name, 100*frac)
		}
		svg, err := os.ReadFile(filepath.Join(dir, n.Name+".svg"))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Contains(svg, []byte("<svg")) || !bytes.HasSuffix(bytes.TrimSpace(svg), []byte("</svg>")) {
			t.Errorf("%s.svg is not a whole SVG document", n.Name)
		}
	}
}

func TestWriteAllErrors(t *testing.T) {
	good := seedCharts()[0]
	tests := []struct {
		name   string
		charts []Named
		want   string
	}{
		{"path in name", []Named{{Name: "../x", Chart: good.Chart}}, "plain file name"},
		{"empty name", []Named{{Name: "", Chart: good.Chart}}, "plain file name"},
		{"duplicate", []Named{good, good}, "two charts"},
		{"bad chart", []Named{{Name: "empty", Chart: LineChart{Title: "empty"}}}, "no valid points"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := WriteAll(t.TempDir(), tt.charts)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("WriteAll error = %v, want one containing %q", err, tt.want)
			}
		})
	}
}

func TestDrawConcurrently(t *testing.T) {
	// Figure.Draw leaves the figure as it was, so one figure can be drawn
	// by several goroutines (cmd/compare writes PNG and SVG in parallel).
	fig, err := seedCharts()[0].Chart.Figure()
	if err != nil {
		t.Fatal(err)
	}
	title := fig.Plot.Title.Text
	var want bytes.Buffer
	if err := saveSVG(fig, &want, 800, 500, false); err != nil {
		t.Fatal(err)
	}
	got := make([][]byte, 4)
	errs := make([]error, 4)
	done := make(chan int)
	for i := range got {
		go func() {
			var b bytes.Buffer
			errs[i] = saveSVG(fig, &b, 800, 500, false)
			got[i] = b.Bytes()
			done <- i
		}()
	}
	for range got {
		<-done
	}
	for i := range got {
		if errs[i] != nil {
			t.Fatal(errs[i])
		}
		if !bytes.Equal(got[i], want.Bytes()) {
			t.Errorf("concurrent drawing %d differs", i)
		}
	}
	if fig.Plot.Title.Text != title {
		t.Errorf("title changed to %q", fig.Plot.Title.Text)
	}
}

func TestFitLegend(t *testing.T) {
	// Thirty entries do not fit a 750-pixel figure at 10 pt: the text
	// shrinks until they do, and the figure's own legend is untouched.
	l := newLegend()
	for i := range 30 {
		addEntry(l, strings.Repeat("x", i%7+1))
	}
	w, h, err := size(DefaultWidthPx, DefaultHeightPx)
	if err != nil {
		t.Fatal(err)
	}
	got := fitLegend(*l, h, w)
	if got.TextStyle.Font.Size >= l.TextStyle.Font.Size {
		t.Errorf("font stayed %v", got.TextStyle.Font.Size)
	}
	if l.TextStyle.Font.Size != legendSize {
		t.Errorf("original legend changed to %v", l.TextStyle.Font.Size)
	}
	c := draw.Canvas{Rectangle: vg.Rectangle{Max: vg.Point{X: 1000, Y: h}}}
	if got.Rectangle(c).Size().Y > h {
		t.Errorf("legend %v tall in %v", got.Rectangle(c).Size().Y, h)
	}
	// A short legend keeps its size.
	short := newLegend()
	addEntry(short, "BF16 · H200 NVL")
	if s := fitLegend(*short, h, 0.4*w).TextStyle.Font.Size; s != legendSize {
		t.Errorf("short legend shrank to %v", s)
	}
	// A very long name shrinks the text to keep the plot wide.
	wide := newLegend()
	addEntry(wide, "RTX PRO 6000 Blackwell Server Edition 96GB · vLLM 0.30.1rc1.dev452+g73a583112 · INT4")
	if got := fitLegend(*wide, h, 0.4*w); got.TextStyle.Font.Size >= legendSize {
		t.Errorf("wide legend kept %v pt", got.TextStyle.Font.Size)
	}
	// However small the text, rows stay far enough apart for the glyphs
	// (three long run labels took the text down to 6 pt, and the status
	// glyphs of two rows overlapped).
	for _, fit := range []plot.Legend{got, fitLegend(*wide, h, 0.4*w), fitLegend(*short, h, 0.4*w)} {
		one := fit.TextStyle.Rectangle("X").Size().Y
		if pitch := one + fit.Padding; pitch < legendRowPitch {
			t.Errorf("%v pt text: rows %v pt apart, want ≥ %v", fit.TextStyle.Font.Size, pitch, legendRowPitch)
		}
	}
}

// TestFitTitle: a title naming a long run label shrinks to fit the
// figure (it ran off both sides); a short one keeps its size.
func TestFitTitle(t *testing.T) {
	w, _, err := size(DefaultWidthPx, DefaultHeightPx)
	if err != nil {
		t.Fatal(err)
	}
	sty := textStyle(titleSize)
	long := "Serving: total throughput: vLLM Model-14B nightly with FP8 KV cache on the same node"
	if got := fitText(sty, long, w); got.Rectangle(long).Size().X > w || got.Font.Size >= sty.Font.Size {
		t.Errorf("long title at %v pt is %v wide in %v", got.Font.Size, got.Rectangle(long).Size().X, w)
	}
	if got := fitText(sty, "Serving: total throughput", w); got.Font.Size != sty.Font.Size {
		t.Errorf("short title shrank to %v pt", got.Font.Size)
	}
	// A figure draws its title so.
	lc := LineChart{Title: long, XLabel: "x", YLabel: "y", Series: []Series{{Name: "a", Points: []Point{{X: 1, Y: 1}, {X: 2, Y: 2}}}}}
	f, err := lc.Figure()
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := SaveSVG(f, &b, DefaultWidthPx, DefaultHeightPx); err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(b.String(), "\n") {
		if strings.Contains(l, long+"</text>") && strings.Contains(l, fmt.Sprintf("font-size:%vpx", titleSize)) {
			t.Errorf("title drawn at %v pt: %s", titleSize, l)
		}
	}
}

// TestWriteAllReferencesFont checks that the SVG files WriteAll writes
// name their font and its metric-compatible fallbacks instead of
// embedding it (issue 24: each was about 560 KB).
func TestWriteAllReferencesFont(t *testing.T) {
	dir := t.TempDir()
	charts := seedCharts()[:1]
	if err := WriteAll(dir, charts); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, charts[0].Name+".svg"))
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	if strings.Contains(s, "data:font") || strings.Contains(s, "font-family:Liberation Sans;") || !strings.Contains(s, fontStack) {
		t.Errorf("SVG embeds its font or lacks the family stack %q", fontStack)
	}
	if len(b) > 100<<10 {
		t.Errorf("SVG is %d bytes", len(b))
	}
}
