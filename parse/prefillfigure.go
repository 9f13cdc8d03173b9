package parse

import "strings"

// findPrefillFigure finds "8K context" in a prefill line (what follows is
// the figure, "55K149 ms TTFT", what precedes a caption): it is
// prefillFigure.FindStringSubmatchIndex(s) (prefillfigure_test.go), the span
// [c0, c1) of the context ("8K") and the end of the match (past the word
// context and the blanks after it); ok is false when s holds none.
//
// Note: the regexp was a sixth of extracting a seed's text (every line of
// its Prefill section, and the line after a bare "8K context": 0.14 of
// 0.92 s in a profile of BenchmarkParseText at d3f3e1c). The
// pattern needs no backtracking: what a shorter [\d,]* or \.\d+ leaves
// next is a digit, comma or dot, which nothing after them matches, and
// \s? then [KM]? end where \s* would. TestFindPrefillFigureIsRegexp
// compares the two on the seeds, testdata and random lines.
func findPrefillFigure(s string) (c0, c1, end int, ok bool) {
	for p := 0; p < len(s); p++ {
		if !isDigitByte(s[p]) {
			continue
		}
		if c1, end, ok := prefillFigureFrom(s, p); ok {
			return p, c1, end, true
		}
		// A start later in the same run of digits and commas reads on
		// to the same place, and fails there too.
		for p+1 < len(s) && (isDigitByte(s[p+1]) || s[p+1] == ',') {
			p++
		}
	}
	return 0, 0, 0, false
}

// depthStart is where a prefill figure's context starts when the length
// at s[p] is a depth after a prompt, as llama-bench names its tests
// ("512 @ d4K context"): at the prompt's length; else p.
func depthStart(s string, p int) int {
	if p < len(" @ d") || s[p-len(" @ d"):p] != " @ d" {
		return p
	}
	q := p - len(" @ d")
	for q > 0 && (isDigitByte(s[q-1]) || strings.IndexByte(",.KkMm", s[q-1]) >= 0) {
		q--
	}
	if q == p-len(" @ d") || !isDigitByte(s[q]) {
		return p
	}
	return q
}

// prefillFigureFrom matches prefillFigure at s[p], a digit.
func prefillFigureFrom(s string, p int) (c1, end int, ok bool) {
	i := p + 1
	for i < len(s) && (isDigitByte(s[i]) || s[i] == ',') {
		i++
	}
	if i+1 < len(s) && s[i] == '.' && isDigitByte(s[i+1]) {
		i += 2
		for i < len(s) && isDigitByte(s[i]) {
			i++
		}
	}
	if i < len(s) && isPerlSpace(s[i]) {
		i++
	}
	// [KM] in any case: (?i)K also matches the Kelvin sign.
	if i < len(s) {
		switch s[i] {
		case 'K', 'k', 'M', 'm':
			i++
		default:
			if strings.HasPrefix(s[i:], "\u212a") {
				i += len("\u212a")
			}
		}
	}
	c1 = i
	for i < len(s) && isPerlSpace(s[i]) {
		i++
	}
	// "context" has no letter that folds to a non-ASCII one.
	if len(s)-i < len("context") || !strings.EqualFold(s[i:i+len("context")], "context") {
		return 0, 0, false
	}
	i += len("context")
	for i < len(s) && isPerlSpace(s[i]) {
		i++
	}
	return c1, i, true
}

// isDigitByte reports whether c is an ASCII digit (regexp's \d).
func isDigitByte(c byte) bool { return c >= '0' && c <= '9' }

// isPerlSpace reports whether c is in regexp's \s: [\t\n\f\r ].
func isPerlSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r'
}

// hasPrefillFigure is prefillFigure.MatchString(s).
func hasPrefillFigure(s string) bool {
	_, _, _, ok := findPrefillFigure(s)
	return ok
}
