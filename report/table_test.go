package report

import (
	"slices"
	"strings"
	"testing"
)

// TestDropDashColumns: only the named columns whose every row is a dash
// or empty go; the others, header and alignment stay in step.
func TestDropDashColumns(t *testing.T) {
	cases := []struct {
		name    string
		rows    [][]string
		cols    []int
		header  string
		dropped bool
	}{
		{"serving sweep without N=1", [][]string{{"1K", "16", "—", "—", "672.0", "—"}, {"1K", "32", "—", "—", "1,344.0", "—"}}, []int{5, 2, 3},
			"context|N|X", true},
		{"a speedup in one row", [][]string{{"8K", "1", "1.00", "100%", "334.7", "—"}, {"8K", "64", "—", "", "6,000", "—"}}, []int{2, 3},
			"context|N|speedup|efficiency|X|USL", false},
		{"excluded rows are empty", [][]string{{"8K", "16", "—", "—", "900", "910"}, {"8K", "32", "", "", "looped", ""}}, []int{2, 3, 5},
			"context|N|X|USL", true},
		{"no rows", nil, []int{2}, "context|N|speedup|efficiency|X|USL", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tb := &Table{Header: []string{"context", "N", "speedup", "efficiency", "X", "USL"}, Right: []bool{false, true, true, true, true, true}, Rows: c.rows}
			if got := tb.dropDashColumns(c.cols...); got != c.dropped {
				t.Errorf("dropped = %v, want %v", got, c.dropped)
			}
			if got := strings.Join(tb.Header, "|"); got != c.header {
				t.Errorf("header %q, want %q", got, c.header)
			}
			for _, r := range tb.Rows {
				if len(r) != len(tb.Header) || len(tb.Right) != len(tb.Header) {
					t.Errorf("row %q, right %v against header %q", r, tb.Right, tb.Header)
				}
			}
			if !c.dropped && len(c.rows) > 0 && !slices.Equal(tb.Rows[0], c.rows[0]) {
				t.Errorf("rows changed: %q", tb.Rows)
			}
		})
	}
}
