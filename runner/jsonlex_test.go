package runner

import (
	"math/rand/v2"
	"testing"
)

// strEndRef is strEnd written the plain way: the first quote that an even
// number of backslashes precedes.
func strEndRef(b []byte, i int) int {
	for j := i + 1; j < len(b); j++ {
		switch b[j] {
		case '\\':
			j++
		case '"':
			return j
		}
	}
	return -1
}

func TestStrEnd(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int
	}{
		{`""`, 1},
		{`"a"`, 2},
		{`"abcdefg"`, 8},  // quote in the first word's last byte
		{`"abcdefgh"`, 9}, // quote in the second word's first byte
		{`"abcdefgh"xxxxxxxx`, 9},
		{`"a\"bcdefghijk"`, 14},
		{`"abcdefg\\"xxxxxxx`, 10}, // an escaped backslash before the quote
		{`"abcdefg\"x"xxxxxxx`, 11},
		{`"\\\"\\"`, 7},
		{"\"\xa2\xdc\x22", 3}, // bytes that equal '"' or '\' but for the high bit
		{`"0123456789012345678901234567890123456789"`, 41}, // past the SWAR words
		{`"unterminated`, -1},
		{`"unterminated and long enough for several words\"`, -1},
		{`"\`, -1},
	} {
		if got := strEnd([]byte(tc.in), 0); got != tc.want {
			t.Errorf("strEnd(%q) = %d, want %d", tc.in, got, tc.want)
		}
		if got := strEndRef([]byte(tc.in), 0); got != tc.want {
			t.Errorf("strEndRef(%q) = %d, want %d (bad case)", tc.in, got, tc.want)
		}
	}
	// Random strings over the bytes that matter, at every alignment.
	r := rand.New(rand.NewPCG(1, 2))
	alpha := []byte{'a', '"', '\\', 0xa2, 0xdc, 0x21, 0x23}
	for n := 0; n < 20000; n++ {
		b := make([]byte, 1+r.IntN(48))
		b[0] = '"'
		for k := 1; k < len(b); k++ {
			if r.IntN(4) == 0 {
				b[k] = alpha[r.IntN(len(alpha))]
			} else {
				b[k] = 'x'
			}
		}
		if got, want := strEnd(b, 0), strEndRef(b, 0); got != want {
			t.Fatalf("strEnd(%q) = %d, want %d", b, got, want)
		}
	}
}

func TestSkipValue(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int
	}{
		{`null,`, 4},
		{`1764000000}`, 10},
		{`-1.5e3 ]`, 6},
		{`true`, 4},
		{`,`, -1},
		{``, -1},
		{`"s",`, 3},
		{`{}`, 2},
		{`[]x`, 2},
		{`{"a":[1,2,{"b":"}"}]},`, 21},
		{`{"a":"]\"}"}x`, 12},
		{`[[[["deep"]]]]`, 14},
		{`{"a":[1,2`, -1},
		{`{"a":"unterminated}`, -1},
		{`{"logprobs":{"content":[{"token":" word","logprob":-0.01,"bytes":[32,119]}]}}`, 77},
	} {
		if got := skipValue([]byte(tc.in), 0); got != tc.want {
			t.Errorf("skipValue(%q) = %d, want %d", tc.in, got, tc.want)
		}
	}
}
