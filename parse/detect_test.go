package parse

import (
	"bytes"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"speedmatrix/peers"
	"testing"
)

// The unanchored patterns Detect's scanners stand for: what a document
// must contain somewhere to be HTML or Markdown.
var (
	refHTMLTag      = regexp.MustCompile(`(?i)<(!doctype\s+html|html|head|body|h[1-6]|table|div|section|article|main|p|dl|ul)[\s>]`)
	refMDHeading    = regexp.MustCompile(`(?m)^ {0,3}#{1,6}[ \t]+\S`)
	refMDBoldKey    = regexp.MustCompile(`(?m)^ {0,3}[-*+][ \t]+\*\*[^*\n]+\*\*`)
	refMDFence      = regexp.MustCompile("(?m)^ {0,3}(```|~~~)")
	refMDSetextHead = regexp.MustCompile(`(?m)^\S.*\n(=+|-{3,})[ \t]*$`)
)

// checkDetectScanners fails when a scanner and its pattern disagree on b.
func checkDetectScanners(t *testing.T, b []byte) {
	t.Helper()
	for _, c := range []struct {
		name string
		got  bool
		re   *regexp.Regexp
	}{
		{"html tag", hasHTMLTag(b), refHTMLTag},
		{"heading", anyLine(b, mdHeadingLine), refMDHeading},
		{"bold key", anyLine(b, mdBoldKeyLine), refMDBoldKey},
		{"fence", anyLine(b, mdFenceLine), refMDFence},
		{"setext", anyLine(b, mdSetextLine), refMDSetextHead},
	} {
		if want := c.re.Match(b); c.got != want {
			t.Fatalf("%s: scanner says %v, %s says %v, for %q", c.name, c.got, c.re, want, b)
		}
	}
	want := refMDHeading.Match(b) || refMDBoldKey.Match(b) || refMDFence.Match(b) || refMDSetextHead.Match(b)
	if got := mdAnyLine(b); got != want {
		t.Fatalf("mdAnyLine says %v, the Markdown patterns %v, for %q", got, want, b)
	}
}

// detectFragments are pieces that make (or nearly make) what Detect
// looks for, including case and Unicode folds of tag names.
var detectFragments = []string{"<", ">", "<HTML>", "<html ", "<ſection>", "<SECTION\t", "<!DOCTYPE  html>", "<!doctype\nhtml",
	"<h7>", "<H3 ", "<p>", "<pre>", "<dl>", "<ul\f", "<div", "#", "# ", "#######", "   #", "    #", "##\t", "x", "Title",
	"- ", "* ", "+\t", "**", "**Key**", "***", "```", "~~~", "``", "=", "===", "---", "--", "- - -", " ", "\t", "\n", "\r\n",
	"\r", "\f", "\v", "é", "\xff", "|---|---|"}

// TestDetectScannersMatchPatterns checks the scanners against the
// patterns on the test documents and on random documents built from
// fragments.
func TestDetectScannersMatchPatterns(t *testing.T) {
	files := 0
	for _, dir := range []string{"testdata", filepath.Join("..", "testdata")} {
		err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			b, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			files++
			checkDetectScanners(t, b[:min(len(b), 1<<16)])
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if files < 10 {
		t.Fatalf("only %d test documents found", files)
	}
	r := rand.New(rand.NewPCG(5, 6))
	for range 20000 {
		var b bytes.Buffer
		for n := 1 + r.IntN(12); n > 0; n-- {
			b.WriteString(detectFragments[r.IntN(len(detectFragments))])
		}
		checkDetectScanners(t, b.Bytes())
	}
}

// FuzzDetectScanners checks the scanners against the patterns on any
// input, seeded with the fragments.
func FuzzDetectScanners(f *testing.F) {
	for _, s := range detectFragments {
		f.Add([]byte(s))
	}
	f.Add([]byte("Title\n===\n- **GPU** H100\n```\n# Head\n<table>"))
	f.Fuzz(func(t *testing.T, b []byte) {
		checkDetectScanners(t, b)
	})
}

// BenchmarkDetect tells each seed's format, as ParseAll does for a
// document read without -format.
func BenchmarkDetect(b *testing.B) {
	benchSeeds(b, func(doc []byte, name string) error {
		_, err := Detect(doc)
		return err
	})
}

// BenchmarkDetectPeer asks each seed whether another tool wrote it, as
// ParseAll does for every document before Detect.
func BenchmarkDetectPeer(b *testing.B) {
	benchSeeds(b, func(doc []byte, name string) error {
		_, err := peers.Detect(doc)
		return err
	})
}
