package parse

import (
	"math/rand/v2"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// benchToolPattern is what splitBenchTool reads: "llm-inference-bench
// v0.7.6" split into name and version.
var benchToolPattern = regexp.MustCompile(`^(.*?)\s+v?(\d+(?:\.\d+)*\S*)$`)

// titlePieces build random titles near what titlePattern reads.
var titlePieces = []string{"Llama-3", "Ling 3.0", " ", "  ", "\t", "\f", "\r", "\n", "on", " on ", "on ", " on", "onion", "x", "×", "X",
	"2", "8", "12", "0", "2x ", "8 × ", " 96GB", " 96 GB", " 96.5 GiB", " 80G", "GB", "GiB", "G", ".", ".5", "H100", "RTX PRO 6000",
	"é", "\xff", "\xe2", "v", "v0.7.6", "0.7", "bench", "-"}

// TestScanTitleIsRegexp checks that splitTitle answers what titlePattern
// does, and that scanTitle decides most titles itself.
func TestScanTitleIsRegexp(t *testing.T) {
	lines := referenceLines(t, titlePieces)
	r := rand.New(rand.NewPCG(7, 8))
	for range 20000 {
		// Titles that hold " on " and often a count and a size.
		lines = append(lines, randomText(r, titlePieces, 4)+" on "+randomText(r, titlePieces, 6))
	}
	decided, matched, single := 0, 0, 0
	for _, s := range lines {
		got, ok := splitTitle(s)
		m := titlePattern.FindStringSubmatch(s)
		if ok != (m != nil) || ok && !slices.Equal([]string{got.model, got.count, got.gpu, got.vram}, m[1:]) {
			t.Fatalf("splitTitle(%q) = %+v, %v; the regexp finds %q", s, got, ok, m)
		}
		if !strings.Contains(s, "\n") {
			single++
		}
		if _, _, d := scanTitle(s); d {
			decided++
			if ok {
				matched++
			}
		}
	}
	if decided < single*9/10 || matched < 5000 {
		t.Errorf("scanTitle decides %d of %d titles (%d of one line), %d of them matching", decided, len(lines), single, matched)
	}
}

// TestSplitBenchToolIsRegexp checks that splitBenchTool answers what
// benchToolPattern does.
func TestSplitBenchToolIsRegexp(t *testing.T) {
	matched := 0
	for _, s := range referenceLines(t, titlePieces) {
		name, version, ok := splitBenchTool(s)
		m := benchToolPattern.FindStringSubmatch(s)
		if ok != (m != nil) || ok && (name != m[1] || version != m[2]) {
			t.Fatalf("splitBenchTool(%q) = %q, %q, %v; the regexp finds %q", s, name, version, ok, m)
		}
		if ok && strings.TrimSpace(name) != "" {
			matched++
		}
	}
	if matched < 1000 {
		t.Errorf("only %d texts name a tool and version: the comparison proves little", matched)
	}
}
