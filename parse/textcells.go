package parse

// This file splits the "|"-separated lines of text tables into cells.

import (
	"strings"
	"unicode/utf8"
)

// splitRow splits a "| a | b |" line into trimmed cells. A backslash
// escapes a "|" inside a cell.
func splitRow(s string) []string {
	s = trimRow(s)
	return appendCells(make([]string, 0, strings.Count(s, "|")+1), s)
}

// cellChunks hands out the cells of table rows from shared chunks: one
// allocation per few hundred rows, not one per row. A chunk lives while
// any of its rows does. The chunks are taken from arena (a parse's
// scratch).
type cellChunks struct {
	buf   []string
	arena *arena[string]
}

// splitRow is splitRow with the cells in c's current chunk.
func (c *cellChunks) splitRow(s string) []string {
	s = trimRow(s)
	n := strings.Count(s, "|") + 1
	if cap(c.buf)-len(c.buf) < n {
		// Chunks grow from 8 rows to 1,024 cells: a small table wastes
		// little, a large one frees its chunks as its rows are read.
		c.buf = c.arena.take(max(n, min(max(2*cap(c.buf), 8*n), 1024)))
	}
	from := len(c.buf)
	c.buf = appendCells(c.buf, s)
	return c.buf[from:len(c.buf):len(c.buf)]
}

// trimRow trims a table row's space and outer pipes.
func trimRow(s string) string {
	s = trimSpace(s)
	s = strings.TrimPrefix(s, "|")
	if strings.HasSuffix(s, "|") && !strings.HasSuffix(s, `\|`) {
		s = s[:len(s)-1]
	}
	return s
}

// appendCells appends the cells of a row s, trimmed by trimRow.
func appendCells(cells []string, s string) []string {
	if strings.IndexByte(s, '\\') < 0 {
		// No escaped pipe: the cells are between the pipes.
		for {
			c, i := s, strings.IndexByte(s, '|')
			if i >= 0 {
				c = s[:i]
			}
			// Most cells are a word or figure of printable ASCII between
			// single spaces ("| 8K |"): trimSpace only for the others.
			if n := len(c); n >= 3 && c[0] == ' ' && c[n-1] == ' ' && c[1]-0x21 < 0x5f && c[n-2]-0x21 < 0x5f {
				c = c[1 : n-1]
			} else {
				c = trimSpace(c)
			}
			cells = append(cells, c)
			if i < 0 {
				return cells
			}
			s = s[i+1:]
		}
	}
	return appendEscapedCells(cells, s)
}

// appendEscapedCells is appendCells for a row that may escape a pipe.
func appendEscapedCells(cells []string, s string) []string {
	start, escaped := 0, false
	for i := 0; i < len(s); i++ {
		switch {
		case s[i] == '\\' && i+1 < len(s) && s[i+1] == '|':
			escaped = true
			i++
		case s[i] == '|':
			cells = append(cells, cellText(s[start:i], escaped))
			start, escaped = i+1, false
		}
	}
	return append(cells, cellText(s[start:], escaped))
}

// cellText is a cell of splitRow: trimmed, with escaped pipes unescaped
// (a cell without them is a substring of the row).
func cellText(s string, escaped bool) string {
	if escaped {
		s = strings.ReplaceAll(s, `\|`, "|")
	}
	return trimSpace(s)
}

// hasAlnum reports whether s holds an ASCII letter or digit.
func hasAlnum(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i] | 0x20; c >= 'a' && c <= 'z' || s[i] >= '0' && s[i] <= '9' {
			return true
		}
	}
	return false
}

// isSeparatorRow reports whether cells are a Markdown header rule
// (---, :--, --:).
func isSeparatorRow(cells []string) bool {
	for _, c := range cells {
		if !isRuleCell(c) {
			return false
		}
	}
	return len(cells) > 0
}

// isRuleCell reports whether c is a cell of a header rule: only colons,
// dashes (en dashes too) and spaces, with at least one "-".
//
// Note: strings.Trim with a cutset that is not ASCII (the en dash)
// decodes runes through a general path; an ASCII cell is decided byte by
// byte, the same way.
func isRuleCell(c string) bool {
	dash := false
	for i := 0; i < len(c); i++ {
		switch c[i] {
		case '-':
			dash = true
		case ':', ' ':
		default:
			if c[i] >= utf8.RuneSelf {
				return strings.Trim(c, ":-– ") == "" && strings.Contains(c, "-")
			}
			return false
		}
	}
	return dash
}
