package parse

import (
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// prefillFigure is what findPrefillFigure reads: "8K context" in a
// prefill line.
var prefillFigure = regexp.MustCompile(`(?i)(\d[\d,]*(?:\.\d+)?\s?[KM]?)\s*context\b?\s*`)

// referenceLines are the lines the regexps' replacements are compared
// on: every line of the seeds and of parse's text testdata, and random
// lines built from the pieces the patterns look for.
func referenceLines(tb testing.TB, pieces []string) []string {
	tb.Helper()
	var lines []string
	add := func(path string) {
		b, err := os.ReadFile(path)
		if err != nil {
			tb.Fatal(err)
		}
		for _, l := range appendLines(nil, string(b)) {
			lines = append(lines, l.s, trimSpace(l.s))
		}
	}
	seeds, err := filepath.Glob(filepath.Join("..", "testdata", "seeds", "*.txt"))
	if err != nil || len(seeds) == 0 {
		tb.Fatalf("no seed documents: %v", err)
	}
	for _, s := range seeds {
		add(s)
	}
	err = filepath.WalkDir("testdata", func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && (strings.HasSuffix(path, ".txt") || strings.HasSuffix(path, ".md")) {
			add(path)
		}
		return err
	})
	if err != nil {
		tb.Fatal(err)
	}
	r := rand.New(rand.NewPCG(3, 12))
	for range 30000 {
		lines = append(lines, randomText(r, pieces, 10))
	}
	return lines
}

// TestFindPrefillFigureIsRegexp checks that findPrefillFigure answers
// what prefillFigure does.
func TestFindPrefillFigureIsRegexp(t *testing.T) {
	pieces := []string{"8", "12", "0", ",", ",5", ".", ".5", " ", "  ", "\t", "\f", "\v", "\n", "\u00a0", "K", "k", "M", "m",
		"\u212a", "G", "context", "CONTEXT", "Context", "conte", "xt", "contexts", "8K context", "55K", "149 ms TTFT",
		"prompt tok/s by context length", "é", "\xff", "|", "x", "ſ"}
	found := 0
	for _, s := range referenceLines(t, pieces) {
		c0, c1, end, ok := findPrefillFigure(s)
		m := prefillFigure.FindStringSubmatchIndex(s)
		if ok != (m != nil) || ok && !slices.Equal([]int{c0, end, c0, c1}, m) {
			t.Fatalf("findPrefillFigure(%q) = %d, %d, %d, %v; the regexp finds %v", s, c0, c1, end, ok, m)
		}
		if hasPrefillFigure(s) != ok {
			t.Fatalf("hasPrefillFigure(%q) = %v", s, !ok)
		}
		if ok {
			found++
		}
	}
	if found < 1000 {
		t.Errorf("only %d lines hold a prefill figure: the comparison proves little", found)
	}
}
