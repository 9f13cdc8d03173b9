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
	pieces := []string{"|", " | ", "||", " ", "\u00a0", "—", "8K", "325.2", "41 ms", "Valid", "\t", "a b",
		"| x |", "| ~ ", " ! |", "\u2009", "\ufeff", "\xe2", "\x7f", "\x1f", "é"}
	r := rand.New(rand.NewPCG(13, 14))
	for range 100000 {
		s := randomText(r, pieces, 10)
		got, want := appendCells(nil, s), appendEscapedCells(nil, s)
		if !slices.Equal(got, want) {
			t.Fatalf("appendCells(%q) = %q, the general split gives %q", s, got, want)
		}
	}
}

// TestRuleCell checks isRuleCell against the definition by strings.Trim
// on random cells of rule characters, en dashes and others.
func TestRuleCell(t *testing.T) {
	pieces := []string{"-", "--", ":", " ", "–", "—", "a", "\u00a0", "\xe2", "|"}
	r := rand.New(rand.NewPCG(17, 18))
	for range 100000 {
		c := randomText(r, pieces, 6)
		if got, want := isRuleCell(c), strings.Trim(c, ":-– ") == "" && strings.Contains(c, "-"); got != want {
			t.Fatalf("isRuleCell(%q) = %v, want %v", c, got, want)
		}
	}
}

// BenchmarkAppendCells splits the rows of a seed's All measurements
// table into their cells, as readRange does.
func BenchmarkAppendCells(b *testing.B) {
	raw, err := extractText(readSeed(b, seed000), seed000)
	if err != nil {
		b.Fatal(err)
	}
	var buf []string
	for b.Loop() {
		for i := range raw.Table.Rows {
			buf = appendCells(buf[:0], trimRow(raw.Table.Rows[i].Text))
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(raw.Table.Rows)), "ns/row")
}
