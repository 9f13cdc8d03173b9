package report

import (
	"bytes"
	"context"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"speedmatrix/internal/testtool"
	"speedmatrix/plots"
)

// seedPage is a page of the seeds' kind: runs side by side, a delta
// table, the scaling fit and every chart of the seeds' comparison.
func seedPage(t testing.TB) Page {
	t.Helper()
	charts, notes := build(t, pairs[0]).Charts()
	if len(notes) > 0 {
		t.Fatalf("charts not drawn: %q", notes)
	}
	return Page{
		Title:    "INT4 · RTX PRO 6000 against BF16 · H200 NVL",
		Subtitle: "Ling-3.0-tiny · baseline BF16 · H200 NVL",
		Notes:    []string{"The seeds carry one median per cell and no spread: ratios are not tested for significance."},
		Runs: Table{
			Header: []string{"Field", "BF16 · H200 NVL", "INT4 · RTX PRO 6000"},
			Rows: [][]string{
				{"Model", "Ling-3.0-tiny", "Ling-3.0-tiny-int4"},
				{"GPU", "H200 NVL", "RTX PRO 6000 Blackwell Server Edition"},
				{"Engine", "vllm", "vllm"},
				{"Version", "0.27.2rc1.dev113+g5cecfc013", "0.30.1rc1.dev452+g73a583112"},
				{"Quantization", "BF16", "INT4"},
				{"Time per measurement", "30 s", "30 s"},
			},
		},
		Tables: []Table{
			{
				Title:  "Decode total tok/s",
				Header: []string{"Context", "Requests", "Baseline", "Value", "Ratio", "Δ", "Note"},
				Rows: [][]string{
					{"8K", "128", "13,000", "6,091.1", "0.4685", "−53.1%", "worse"},
					{"8K", "16", "3,016.8", "—", "", "", "looped in INT4"},
					{"123K", "128", "—", "—", "", "", "over capacity in both"},
					{"8K", "8", "1,406.6", "1,627.8", "1.1573", "+15.7%", "better"},
				},
				Class: []string{"worse", "muted", "muted", "better"},
				Notes: []string{"Ratio is value / baseline;", "higher is better for rates."},
			},
			{
				Title:  "Scaling fit (USL) <per run & context>",
				Header: []string{"Run", "Context", "σ", "κ", "N*", "X(N*)", "R²"},
				Rows:   [][]string{{"BF16", "8K", "0.021", "0.0000", "—", "—", "0.991"}},
			},
		},
		Charts: charts,
	}
}

func TestWritePageContent(t *testing.T) {
	page0 := seedPage(t)
	var buf bytes.Buffer
	if err := WritePage(&buf, page0); err != nil {
		t.Fatal(err)
	}
	page := buf.String()
	tests := []struct {
		name string
		ok   bool
	}{
		{"one svg per chart", strings.Count(page, "<svg ") == len(page0.Charts)},
		{"no xml prolog inside the page", !strings.Contains(page, "<?xml")},
		{"no script", !strings.Contains(strings.ToLower(page), "<script")},
		{"no external reference", !regexp.MustCompile(`(?i)(src|href)\s*=\s*"(https?:|//|file:)`).MatchString(page)},
		{"font carried once", strings.Count(page, "@font-face") == 1},
		{"caption escaped", strings.Contains(page, "Scaling fit (USL) &lt;per run &amp; context&gt;")},
		{"row classes", strings.Contains(page, `<tr class="worse">`) && strings.Contains(page, `<tr class="muted">`)},
		{"differing metadata highlighted", strings.Contains(page, `<tr class="differs"><td>GPU</td>`)},
		{"equal metadata not highlighted", strings.Contains(page, `<tr><td>Engine</td>`)},
		{"numbers right-aligned", strings.Contains(page, `<td class="num">6,091.1</td>`) && strings.Contains(page, `<td class="num">−53.1%</td>`)},
		{"words left-aligned", strings.Contains(page, `<td>looped in INT4</td>`)},
		{"note", strings.Contains(page, "no spread: ratios are not tested")},
		{"table notes one paragraph", strings.Contains(page, `<p class="tnote">Ratio is value / baseline; higher is better for rates.</p>`)},
		{"table of contents", strings.Contains(page, `href="#c1-decode-total"`)},
	}
	for _, tt := range tests {
		if !tt.ok {
			t.Errorf("%s: failed", tt.name)
		}
	}
	// Deterministic: the same report gives the same page.
	var again bytes.Buffer
	if err := WritePage(&again, seedPage(t)); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(buf.Bytes(), again.Bytes()) {
		t.Error("two renderings of the same report differ")
	}
}

func TestWritePageEscapes(t *testing.T) {
	r := Page{
		Title:  `</title><script>alert(1)</script>`,
		Runs:   Table{Header: []string{"<b>", "x"}, Rows: [][]string{{`"quoted" & <tag>`, "a"}}},
		Tables: []Table{{Title: "c", Rows: [][]string{{"<img src=x onerror=alert(1)>"}}, Class: []string{`x" onclick="y`}}},
	}
	var buf bytes.Buffer
	if err := WritePage(&buf, r); err != nil {
		t.Fatal(err)
	}
	page := buf.String()
	for _, bad := range []string{"<script>", "<img", `onclick="y"`, "<b>"} {
		if strings.Contains(page, bad) {
			t.Errorf("page contains unescaped %q", bad)
		}
	}
	if !strings.Contains(page, "&lt;/title&gt;&lt;script&gt;") {
		t.Error("title not escaped as text")
	}
}

func TestWritePageChartError(t *testing.T) {
	r := Page{Title: "x", Charts: []Chart{{Name: "bad", Chart: plots.Heatmap{Title: "bad"}}}}
	err := WritePage(&bytes.Buffer{}, r)
	if err == nil || !strings.Contains(err.Error(), "bad") {
		t.Errorf("WritePage with a broken chart: err = %v", err)
	}
}

// TestWritePageInChromium opens the page in headless Chromium, checks the
// DOM it built (tables, SVG charts with text) and that the screenshot is
// not blank.
func TestWritePageInChromium(t *testing.T) {
	chromium := testtool.Chromium(t)
	dir := t.TempDir()
	page := filepath.Join(dir, "report.html")
	page0 := seedPage(t)
	var buf bytes.Buffer
	if err := WritePage(&buf, page0); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(page, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	url := "file://" + page
	common := []string{
		"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
	}
	run := func(extra ...string) []byte {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
		defer cancel()
		args := append(append([]string{}, common...), "--user-data-dir="+t.TempDir())
		args = append(args, extra...)
		args = append(args, url)
		cmd := exec.CommandContext(ctx, chromium, args...)
		cmd.Dir = dir
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("chromium %v: %v\n%s", extra, err, stderr.String())
		}
		return out
	}

	dom := string(run("--dump-dom"))
	checks := []struct {
		name string
		n    int
		want int
	}{
		{"tables", strings.Count(dom, "<table"), 3},
		{"svg charts", strings.Count(dom, "<svg "), len(page0.Charts)},
		{"figures", strings.Count(dom, "<figcaption>"), len(page0.Charts)},
	}
	for _, c := range checks {
		if c.n != c.want {
			t.Errorf("DOM has %d %s, want %d", c.n, c.name, c.want)
		}
	}
	for _, w := range []string{"Sustained decode: total throughput", "Decode total tok/s: ", "6,091.1", "over capacity in both"} {
		if !strings.Contains(dom, w) {
			t.Errorf("DOM lacks %q", w)
		}
	}

	shot := filepath.Join(dir, "shot.png")
	run("--screenshot="+shot, "--window-size=1280,2000", "--hide-scrollbars")
	f, err := os.Open(shot)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	b := img.Bounds()
	if b.Dx() != 1280 || b.Dy() != 2000 {
		t.Errorf("screenshot is %v, want 1280×2000", b)
	}
	ink, coloured := 0, 0
	for y := b.Min.Y; y < b.Max.Y; y += 2 {
		for x := b.Min.X; x < b.Max.X; x += 2 {
			r, g, bl, _ := img.At(x, y).RGBA()
			if r < 0xF000 || g < 0xF000 || bl < 0xF000 {
				ink++
			}
			// Chart colours, not grey text: channels far apart.
			if max3(r, g, bl)-min3(r, g, bl) > 0x4000 {
				coloured++
			}
		}
	}
	total := b.Dx() * b.Dy() / 4
	t.Logf("screenshot: %.1f%% non-white, %.2f%% coloured", 100*float64(ink)/float64(total), 100*float64(coloured)/float64(total))
	if float64(ink)/float64(total) < 0.03 {
		t.Error("screenshot is nearly blank")
	}
	if coloured == 0 {
		t.Error("screenshot shows no chart colours in the first 2000 px")
	}
}

func max3(a, b, c uint32) uint32 { return max(a, max(b, c)) }
func min3(a, b, c uint32) uint32 { return min(a, min(b, c)) }

// TestNumericCells: figures, with their unit or the "≥ " of a lower
// bound, are right-aligned; words and answers with a cell name are not.
func TestNumericCells(t *testing.T) {
	for _, c := range []struct {
		cell string
		want bool
	}{
		{"3,520.8", true}, {"≥ 3,520.8", true}, {"0.27×", true}, {"-24.4%", true}, {"125 ms", true},
		{"looped", false}, {"≥ 3,520.8 tok/s (8K×32)", false}, {"N=16", false},
	} {
		if got := numeric.MatchString(c.cell); got != c.want {
			t.Errorf("%q numeric %v, want %v", c.cell, got, c.want)
		}
	}
}
