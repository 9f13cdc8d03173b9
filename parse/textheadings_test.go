package parse

import (
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"
)

// normHeading lower-cases a heading and drops surrounding space and a
// trailing colon: what appendNormHeading writes.
func normHeading(s string) string {
	s = strings.ToLower(trimSpace(s))
	s = strings.TrimRight(s, ": ")
	return strings.Join(strings.Fields(s), " ")
}

// TestNormHeadingBounded checks the bounded ASCII normalization of
// headings against normHeading: equal up to the limit, too long past it.
func TestNormHeadingBounded(t *testing.T) {
	pieces := []string{"All", " ", "  ", "\t", "measurements", ":", ": ", "\u00a0", "É", "\u212a", "K", "x", "—", "Sustained decode",
		"\xff", "\xe2\x80", "\u0085", "\u3000", "İ", "·", "\v"}
	r := rand.New(rand.NewPCG(15, 16))
	for range 100000 {
		s, limit := randomText(r, pieces, 12), r.IntN(60)
		got, want := string(appendNormHeading(nil, s, limit)), normHeading(s)
		if len(want) <= limit && got != want || len(want) > limit && len(got) <= limit {
			t.Fatalf("appendNormHeading(%q, %d) = %q, normHeading gives %q", s, limit, got, want)
		}
	}
}

// TestFootnoteFirstLetters checks isFootnote, which rejects lines by
// their first letter, against its definition (a footnote prefix of the
// lower-cased line) on random lines.
func TestFootnoteFirstLetters(t *testing.T) {
	starts := append([]string{"Looped: x", "OVER CAPACITY: y", "É", "\u212aey", "- Note:", " note:", "Notes", "TTFT is measured after", "x"}, footnotePrefixes...)
	r := rand.New(rand.NewPCG(19, 20))
	for range 50000 {
		s := []byte(starts[r.IntN(len(starts))])
		for i := range s {
			if r.IntN(4) == 0 && s[i] < 0x80 {
				s[i] ^= 0x20 // flip the case of a letter (or garble a sign)
			}
		}
		line := string(s)
		want := false
		for _, p := range footnotePrefixes {
			want = want || strings.HasPrefix(strings.ToLower(line), p)
		}
		if got := isFootnote(line); got != want {
			t.Fatalf("isFootnote(%q) = %v, want %v", line, got, want)
		}
	}
}

// TestHeadingFirstWords checks that headingFirstWord accepts the first
// word of every heading sectionOf knows, and that the first-word filter
// of mayBeHeading changes no answer of sectionOf on random lines.
func TestHeadingFirstWords(t *testing.T) {
	for k := range textSections {
		w, _, _ := strings.Cut(k, " ")
		if !headingFirstWord(w) || len(w) > len(firstWordBuf{}) {
			t.Errorf("the first word %q of heading %q is not accepted", w, k)
		}
	}
	// sectionOf without the filter: only the first byte checked.
	unfiltered := func(line string) (textSection, bool) {
		if s := strings.TrimLeft(line, " \t\r\n"); s == "" || s[0] < utf8.RuneSelf && (s[0]|0x20 < 'a' || s[0]|0x20 > 'z') {
			return 0, false
		}
		return headingSection(line)
	}
	pieces := []string{"All", "all", "MEASUREMENTS", "measurements", "Run", "run2", "Launch", "command", "Serve", "by", "request", "rate",
		"Latencies", " ", "  ", ":", ".", "(46 cells)", "\u00a0", "\u212a", "É", "é", "x", "Decode", "decoder", "\t", "-", "1"}
	r := rand.New(rand.NewPCG(21, 22))
	for range 200000 {
		line := randomText(r, pieces, 6)
		k, ok := sectionOf(line)
		wk, wok := unfiltered(line)
		if k != wk || ok != wok {
			t.Fatalf("sectionOf(%q) = %v, %v; without the first-word filter %v, %v", line, k, ok, wk, wok)
		}
	}
}
