package parse

import "testing"

func TestLineIndex(t *testing.T) {
	for _, c := range []struct {
		doc   string
		offs  []int // offsets to look up
		lines []int // their lines
		count int
	}{
		{"", []int{0, 5}, []int{1, 1}, 1},
		{"abc", []int{0, 2, 3}, []int{1, 1, 1}, 1},
		{"a\nb\n", []int{0, 1, 2, 3, 4}, []int{1, 1, 2, 2, 2}, 2},
		{"a\r\nb\r\nc", []int{0, 1, 2, 3, 5, 6}, []int{1, 1, 1, 2, 2, 3}, 3},
		{"a\rb\r\rc", []int{0, 2, 4, 5}, []int{1, 2, 3, 4}, 4},
		{"\n\n\n", []int{0, 1, 2, 3, 99}, []int{1, 2, 3, 3, 3}, 3},
		{"x", []int{-3}, []int{1}, 1},
	} {
		x := newLineIndex([]byte(c.doc))
		for i, off := range c.offs {
			if got := x.line(off); got != c.lines[i] {
				t.Errorf("%q: line(%d) = %d, want %d", c.doc, off, got, c.lines[i])
			}
		}
		if got := x.count(); got != c.count {
			t.Errorf("%q: count = %d, want %d", c.doc, got, c.count)
		}
	}
}
