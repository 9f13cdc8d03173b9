package render

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"speedmatrix/internal/testtool"
	"speedmatrix/schema"
)

// pageFacts is what a reader of a page sees, read with goquery from a
// DOM: the texts of headings, the subtitle's text content, and every
// table's cells (a cell's spans joined by "/", so tok/s and TTFT in
// separate elements stay apart).
type pageFacts struct {
	H1, Subtitle string
	H2           []string
	Tables       [][][]string
	Cards        []string
}

func readPage(t *testing.T, page []byte) pageFacts {
	t.Helper()
	doc, err := goquery.NewDocumentFromReader(bytes.NewReader(page))
	if err != nil {
		t.Fatal(err)
	}
	var f pageFacts
	f.H1 = doc.Find("h1").Text()
	f.Subtitle = doc.Find("h1 + p").Text()
	doc.Find("h2").Each(func(_ int, s *goquery.Selection) { f.H2 = append(f.H2, s.Text()) })
	doc.Find("table").Each(func(_ int, tb *goquery.Selection) {
		var rows [][]string
		tb.Find("tr").Each(func(_ int, tr *goquery.Selection) {
			var cells []string
			tr.Children().Each(func(_ int, c *goquery.Selection) {
				if spans := c.Find("span"); spans.Length() > 0 {
					cells = append(cells, strings.Join(spans.Map(func(_ int, s *goquery.Selection) string { return s.Text() }), "/"))
				} else {
					cells = append(cells, c.Text())
				}
			})
			rows = append(rows, cells)
		})
		f.Tables = append(f.Tables, rows)
	})
	doc.Find("h2").FilterFunction(func(_ int, s *goquery.Selection) bool { return s.Text() == secPrefill }).
		Parent().Find("div > span:first-child").Each(func(_ int, s *goquery.Selection) {
		f.Cards = append(f.Cards, strings.Join(s.Parent().Children().Map(func(_ int, c *goquery.Selection) string { return c.Text() }), "/"))
	})
	return f
}

// TestHTMLSelfContained checks the page fetches and runs nothing: no
// script, no external resource, no import.
func TestHTMLSelfContained(t *testing.T) {
	external := regexp.MustCompile(`(?i)<script|<link|<img|<iframe|\bsrc=|\bhref=|url\(|@import`)
	for _, m := range []*schema.Matrix{synthRun(), bigRun()} {
		var b bytes.Buffer
		if err := HTML(&b, m); err != nil {
			t.Fatal(err)
		}
		if loc := external.FindIndex(b.Bytes()); loc != nil {
			t.Errorf("page refers to something outside itself: %q", b.Bytes()[loc[0]:loc[1]])
		}
		if !bytes.HasPrefix(b.Bytes(), []byte("<!DOCTYPE html>\n")) || !bytes.HasSuffix(b.Bytes(), []byte("</html>\n")) {
			t.Error("page is not a complete document")
		}
	}
}

// TestHTMLEscapes checks that markup-like metadata is shown, not obeyed.
func TestHTMLEscapes(t *testing.T) {
	m := synthRun()
	m.Run.Title = `<script>alert(1)</script> & "co" on GPU`
	m.Run.LaunchCommand = `vllm serve m --chat-template '<|im_start|>' && echo "</pre>"`
	var b bytes.Buffer
	if err := HTML(&b, m); err != nil {
		t.Fatal(err)
	}
	f := readPage(t, b.Bytes())
	if f.H1 != m.Run.Title {
		t.Errorf("h1 %q, want %q", f.H1, m.Run.Title)
	}
	if bytes.Contains(b.Bytes(), []byte("<script")) {
		t.Error("title markup reached the page unescaped")
	}
	doc, _ := goquery.NewDocumentFromReader(bytes.NewReader(b.Bytes()))
	if got := doc.Find("pre code").Text(); got != m.Run.LaunchCommand {
		t.Errorf("launch command %q, want %q", got, m.Run.LaunchCommand)
	}
}

// TestHTMLStructure checks what a reader finds in the page of a seed: the
// title, the subtitle whose text content is the seed's subtitle line, the
// sections, the prefill cards, the matrix with tok/s and TTFT in separate
// elements, and the full table with one row per measurement.
func TestHTMLStructure(t *testing.T) {
	seed, m := parseSeed(t, seedPaths[0])
	var b bytes.Buffer
	if err := HTML(&b, m); err != nil {
		t.Fatal(err)
	}
	checkSeedPage(t, readPage(t, b.Bytes()), seed, m)
}

func checkSeedPage(t *testing.T, f pageFacts, seed []byte, m *schema.Matrix) {
	t.Helper()
	lines := strings.Split(string(seed), "\n")
	if f.H1 != lines[1] {
		t.Errorf("h1 %q, want %q", f.H1, lines[1])
	}
	if f.Subtitle != lines[2] {
		t.Errorf("subtitle text %q, want the seed's %q", f.Subtitle, lines[2])
	}
	wantH2 := []string{secHardware, secEngine, secRun, secLaunch, secPrefill, secDecode, secAll}
	if strings.Join(f.H2, "|") != strings.Join(wantH2, "|") {
		t.Errorf("sections %q, want %q", f.H2, wantH2)
	}
	if len(f.Cards) != 6 || f.Cards[0] != "8K context/55K/149 ms TTFT" {
		t.Errorf("prefill cards %q, want 6 starting with 8K context/55K/149 ms TTFT", f.Cards)
	}
	if len(f.Tables) != 2 {
		t.Fatalf("%d tables, want 2", len(f.Tables))
	}
	grid, full := f.Tables[0], f.Tables[1]
	if len(grid) != 6 || strings.Join(grid[0], "|") != "Context|1|2|4|8|16|32|64|128" {
		t.Errorf("matrix header %q (%d rows)", grid[0], len(grid))
	}
	if grid[1][1] != "325.2/41 ms TTFT" || grid[1][5] != "Looped" || grid[5][8] != "Over capacity" {
		t.Errorf("matrix cells %q %q %q", grid[1][1], grid[1][5], grid[5][8])
	}
	if len(full) != len(m.Measurements)+1 || len(full[0]) != 12 {
		t.Errorf("full table %d rows × %d columns, want %d × 12", len(full), len(full[0]), len(m.Measurements)+1)
	}
	if got := strings.Join(full[7], "|"); got != "Sustained decode|8K|1|Valid|325.2|326.1|41 ms|3.1 ms|1.0|2|9,756|30.0 s" {
		t.Errorf("first decode row %q", got)
	}
}

// TestHTMLInChromium opens the page of a seed in headless Chromium and
// reads the DOM the browser built: a browser must see the same structure
// as our own reader (no table torn apart by bad nesting, no lost cell).
func TestHTMLInChromium(t *testing.T) {
	bin := testtool.Chromium(t)
	seed, m := parseSeed(t, seedPaths[0])
	var b bytes.Buffer
	if err := HTML(&b, m); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	page := filepath.Join(dir, "seed.html")
	if err := os.WriteFile(page, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
		"--user-data-dir="+filepath.Join(dir, "profile"), "--dump-dom", "file://"+page)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	dom, err := cmd.Output()
	if err != nil {
		t.Fatalf("chromium: %v\n%s", err, stderr.Bytes())
	}
	f := readPage(t, dom)
	checkSeedPage(t, f, seed, m)
	if own := readPage(t, b.Bytes()); !equalFacts(own, f) {
		t.Errorf("Chromium's DOM differs from the page as written:\nbrowser: %+v\nwritten: %+v", f, own)
	}
}

func equalFacts(a, b pageFacts) bool {
	var x, y bytes.Buffer
	for _, p := range []struct {
		f pageFacts
		w *bytes.Buffer
	}{{a, &x}, {b, &y}} {
		p.w.WriteString(p.f.H1 + "\n" + p.f.Subtitle + "\n" + strings.Join(p.f.H2, "|") + "\n" + strings.Join(p.f.Cards, "|") + "\n")
		for _, tb := range p.f.Tables {
			for _, r := range tb {
				p.w.WriteString(strings.Join(r, "|") + "\n")
			}
		}
	}
	return x.String() == y.String()
}
