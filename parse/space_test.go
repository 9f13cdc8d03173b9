package parse

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// TestTrimSpaceAsTrimFunc checks trimSpace's shortcuts against
// strings.TrimFunc with isTrimSpace, on random strings of ASCII and
// Unicode spaces, dashes, units and broken UTF-8.
func TestTrimSpaceAsTrimFunc(t *testing.T) {
	pieces := []string{" ", "\t", "\r\n", "\u00a0", "\u202f", "\u2009", "\ufeff", "—", "–", "µs", "a", "7", "\xe2\x80", "\xc2", "\xa0", "\xbf", "\xff", "é",
		"!", "~", "\x7f", "\x00", "\x1f", "\v", "\f", "\u0085", "\u3000"}
	r := rand.New(rand.NewPCG(11, 12))
	for range 200000 {
		s := randomText(r, pieces, 6)
		if got, want := trimSpace(s), strings.TrimFunc(s, isTrimSpace); got != want {
			t.Fatalf("trimSpace(%q) = %q, TrimFunc gives %q", s, got, want)
		}
	}
}

// BenchmarkScanQuantity reads the figures of a seed's All measurements
// table (its columns after Status: 368 cells, "—" among them), as
// readRange does when a column's figure changes.
