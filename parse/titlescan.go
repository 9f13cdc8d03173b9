package parse

import "strings"

// titleParts are the groups of titlePattern: "MODEL on [N× ]GPU[ NNGB]".
type titleParts struct {
	model, count, gpu, vram string
}

// splitTitle is titlePattern.FindStringSubmatch(s) as titleParts; ok is
// false when the pattern does not match.
//
// Note: scanTitle reads the titles the pattern was written for without
// running it (this regexp and benchToolPattern were 0.13 of buildRun's
// 0.97 s in a profile of BenchmarkParseText at d3f3e1c); the few it
// cannot decide alone (a line break, nothing but blanks after "on" or the
// GPU count) go to the regexp.
func splitTitle(s string) (titleParts, bool) {
	if t, ok, decided := scanTitle(s); decided {
		return t, ok
	}
	m := titlePattern.FindStringSubmatch(s)
	if m == nil {
		return titleParts{}, false
	}
	return titleParts{model: m[1], count: m[2], gpu: m[3], vram: m[4]}, true
}

// scanTitle matches titlePattern,
//
//	^(.+?)\s+on\s+(?:(\d+)\s*[x×]\s*)?(.+?)(?:\s+(\d+(?:\.\d+)?)\s*(?:GB|GiB|G))?$
//
// by hand; decided is false when s is one of the cases it leaves to the
// regexp. Without a line break every byte matches ".", and every way the
// pattern could backtrack leaves next a byte that what follows cannot
// match (a blank where "on", a digit or [x×] is needed, a digit where a
// blank, "." or G is), except the two leftovers of blanks left to the
// lazy GPU group, which are the undecided cases. TestScanTitleIsRegexp
// compares the two on the seeds, testdata and random titles.
func scanTitle(s string) (t titleParts, ok, decided bool) {
	if strings.IndexByte(s, '\n') >= 0 {
		return t, false, false
	}
	// The model: the shortest non-empty prefix followed by \s+on\s+.
	u := -1
	for p := 1; p < len(s) && u < 0; p++ {
		if !isPerlSpace(s[p]) {
			continue
		}
		r := skipPerlSpace(s, p)
		if strings.HasPrefix(s[r:], "on") && r+2 < len(s) && isPerlSpace(s[r+2]) {
			t.model, u = s[:p], skipPerlSpace(s, r+2)
		}
	}
	if u < 0 {
		return t, false, true
	}
	if u == len(s) {
		return t, false, false
	}
	// The GPU count: digits, blanks, x or ×, blanks.
	g := u
	if d := skipDigits(s, u); d > u {
		w := skipPerlSpace(s, d)
		xl := 0
		switch {
		case strings.HasPrefix(s[w:], "x"):
			xl = 1
		case strings.HasPrefix(s[w:], "×"):
			xl = len("×")
		}
		if xl > 0 {
			v := skipPerlSpace(s, w+xl)
			if v == len(s) {
				return t, false, false
			}
			t.count, g = s[u:d], v
		}
	}
	// The GPU: up to the first blank that starts the VRAM suffix.
	for e := g + 1; e < len(s); e++ {
		if !isPerlSpace(s[e]) {
			continue
		}
		if a, c, ok := vramSuffix(s, e); ok {
			t.gpu, t.vram = s[g:e], s[a:c]
			return t, true, true
		}
	}
	t.gpu = s[g:]
	return t, true, true
}

// vramSuffix matches \s+(\d+(?:\.\d+)?)\s*(?:GB|GiB|G)$ at s[e], a blank:
// the span of the figure.
func vramSuffix(s string, e int) (a, c int, ok bool) {
	a = skipPerlSpace(s, e)
	b := skipDigits(s, a)
	if b == a {
		return 0, 0, false
	}
	c = b
	if c+1 < len(s) && s[c] == '.' && isDigitByte(s[c+1]) {
		c = skipDigits(s, c+1)
	}
	switch s[skipPerlSpace(s, c):] {
	case "GB", "GiB", "G":
		return a, c, true
	}
	return 0, 0, false
}

// skipPerlSpace returns the index of the first byte at or after i that is
// not in \s.
func skipPerlSpace(s string, i int) int {
	for i < len(s) && isPerlSpace(s[i]) {
		i++
	}
	return i
}

// skipDigits returns the index of the first byte at or after i that is
// not an ASCII digit.
func skipDigits(s string, i int) int {
	for i < len(s) && isDigitByte(s[i]) {
		i++
	}
	return i
}

// splitBenchTool is benchToolPattern.FindStringSubmatch(s)[1:]: a tool's
// name and version ("llm-inference-bench v0.7.6").
//
// Note: without the regexp. \S* runs to the end, so the blanks before the
// version are the last run of them; its start is the shortest name a
// lazy .*? can take (no line break in the name). TestSplitBenchToolIsRegexp
// compares the two.
func splitBenchTool(s string) (name, version string, ok bool) {
	q := len(s)
	for q > 0 && !isPerlSpace(s[q-1]) {
		q--
	}
	if q == 0 {
		return "", "", false
	}
	p := q - 1
	for p > 0 && isPerlSpace(s[p-1]) {
		p--
	}
	if strings.IndexByte(s[:p], '\n') >= 0 {
		return "", "", false
	}
	// v? is taken when a digit follows it, and nothing matches otherwise.
	v := strings.TrimPrefix(s[q:], "v")
	if v == "" || !isDigitByte(v[0]) {
		return "", "", false
	}
	return s[:p], v, true
}
