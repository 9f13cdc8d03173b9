package parse

import (
	"strings"
	"unicode/utf8"
)

// trimSpace trims ASCII and Unicode spaces (including no-break and thin
// spaces, which HTML documents use between a figure and its unit).
//
// Note: most calls get a word or cell already trimmed (a table's cells are
// trimmed where they are split, then again by the readers they go to);
// such a string opens and closes with printable ASCII (0x21–0x7f: no
// space, no byte of a UTF-8 sequence) and is returned after one check.
func trimSpace(s string) string {
	if len(s) > 0 && s[0]-0x21 < 0x5f && s[len(s)-1]-0x21 < 0x5f {
		return s
	}
	// Most others have only ASCII space to trim.
	for len(s) > 0 {
		switch s[0] {
		case ' ', '\t', '\n', '\r':
			s = s[1:]
			continue
		}
		break
	}
	for len(s) > 0 {
		switch s[len(s)-1] {
		case ' ', '\t', '\n', '\r':
			s = s[:len(s)-1]
			continue
		}
		break
	}
	if len(s) == 0 || s[0] < utf8.RuneSelf && s[len(s)-1] < utf8.RuneSelf {
		return s
	}
	// TrimFunc would stop at once unless a Unicode space it trims opens
	// or closes s: "—" and "µs" cells do not decode runes for nothing.
	if !opensWithUnicodeSpace(s) && !closesWithUnicodeSpace(s) {
		return s
	}
	return strings.TrimFunc(s, isTrimSpace)
}

// opensWithUnicodeSpace reports whether s starts with a rune isTrimSpace
// trims that is not ASCII: U+00A0 (C2 A0), U+202F (E2 80 AF), U+2009
// (E2 80 89) or U+FEFF (EF BB BF).
func opensWithUnicodeSpace(s string) bool {
	switch s[0] {
	case 0xc2:
		return strings.HasPrefix(s, "\u00a0")
	case 0xe2:
		return strings.HasPrefix(s, "\u202f") || strings.HasPrefix(s, "\u2009")
	case 0xef:
		return strings.HasPrefix(s, "\ufeff")
	}
	return false
}

// closesWithUnicodeSpace is opensWithUnicodeSpace at the end of s.
func closesWithUnicodeSpace(s string) bool {
	switch s[len(s)-1] {
	case 0xa0:
		return strings.HasSuffix(s, "\u00a0")
	case 0xaf:
		return strings.HasSuffix(s, "\u202f")
	case 0x89:
		return strings.HasSuffix(s, "\u2009")
	case 0xbf:
		return strings.HasSuffix(s, "\ufeff")
	}
	return false
}

// isTrimSpace reports whether trimSpace trims r.
func isTrimSpace(r rune) bool {
	return r == ' ' || r == '\t' || r == '\n' || r == '\r' || r == '\u00a0' || r == '\u202f' || r == '\u2009' || r == '\ufeff'
}
