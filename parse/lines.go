package parse

import "sort"

// lineIndex maps byte offsets of a document to 1-based line numbers.
// A line ends at "\n", "\r\n" or a lone "\r", as HTML and CommonMark
// both count them.
//
// Note: html.Parse and goldmark keep no line numbers (goldmark keeps byte
// offsets, x/net/html nothing), so both extractors translate offsets
// through this index.
type lineIndex struct {
	starts []int // byte offset at which each line starts; starts[0] == 0
	n      int   // number of lines (see count)
}

// newLineIndex indexes the line starts of b.
func newLineIndex(b []byte) *lineIndex {
	starts := make([]int, 1, 64)
	for i := 0; i < len(b); i++ {
		switch b[i] {
		case '\n':
			starts = append(starts, i+1)
		case '\r':
			if i+1 < len(b) && b[i+1] == '\n' {
				i++
			}
			starts = append(starts, i+1)
		}
	}
	n := len(starts)
	if n > 1 && starts[n-1] == len(b) {
		n-- // a final line break opens no line
	}
	return &lineIndex{starts: starts, n: n}
}

// line returns the 1-based line holding byte offset off. Offsets before
// the start count as line 1, offsets past the end as the last line.
func (x *lineIndex) line(off int) int {
	if off <= 0 {
		return 1
	}
	// The number of line starts at or before off is the line number.
	return min(x.n, sort.Search(len(x.starts), func(i int) bool { return x.starts[i] > off }))
}

// count returns the number of lines (a final line without a terminator
// counts; a document ending in a newline has no extra empty line).
func (x *lineIndex) count() int {
	return x.n
}
