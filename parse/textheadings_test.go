package parse

import (
	"math/rand/v2"
	"strings"
	"testing"
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
