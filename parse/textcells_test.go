package parse

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// TestAppendCellsShortcut checks the split of rows without a backslash
// against the general split, on random rows of pipes, blanks and cells.
func TestAppendCellsShortcut(t *testing.T) {
	pieces := []string{"|", " | ", "||", " ", "\u00a0", "—", "8K", "325.2", "41 ms", "Valid", "\t", "a b"}
	r := rand.New(rand.NewPCG(13, 14))
	for range 100000 {
		var b strings.Builder
		for n := r.IntN(10); n > 0; n-- {
			b.WriteString(pieces[r.IntN(len(pieces))])
		}
		s := b.String()
		got, want := appendCells(nil, s), appendEscapedCells(nil, s)
		if !slices.Equal(got, want) {
			t.Fatalf("appendCells(%q) = %q, the general split gives %q", s, got, want)
		}
	}
}
