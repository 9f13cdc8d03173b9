package parse

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// labelSamples are context labels and concurrencies as printed, with the
// near misses the short path must leave to the general reading.
var labelSamples = []string{"8K", "123K", "128k", "1M", "2m", "509", "0", "0K", "00", "08K", "K", "M", "", " 8K ",
	"8 K", "8K context", "8192 tokens", "1,024", "1.5K", "999999K", "1000000K", "999999999", "1000000000",
	"4294967296", "-8", "+8", "8KK", "8\u00a0K", "\u00a08K", "Ｋ", "8Ki", "1e3", "128", "01", "1", "2147483647"}

// checkLabel fails t when contextTokens or parseConcurrency of s differ
// from their general readings.
func checkLabel(t *testing.T, s string) {
	t.Helper()
	n, err := contextTokens(s)
	wn, werr := readContextTokens(s, trimSpace(s))
	if n != wn || fmt.Sprint(err) != fmt.Sprint(werr) {
		t.Fatalf("contextTokens(%q) = %d, %v; the general reading gives %d, %v", s, n, err, wn, werr)
	}
	c, err := parseConcurrency(s)
	wc, werr := readConcurrency(s)
	if c != wc || fmt.Sprint(err) != fmt.Sprint(werr) {
		t.Fatalf("parseConcurrency(%q) = %d, %v; the general reading gives %d, %v", s, c, err, wc, werr)
	}
}

// TestShortLabelsReadAsBefore checks the short path of context labels and
// concurrencies against the general reading on printed samples and on
// random strings of their alphabet.
func TestShortLabelsReadAsBefore(t *testing.T) {
	for _, s := range labelSamples {
		checkLabel(t, s)
	}
	r := rand.New(rand.NewPCG(3, 4))
	const alphabet = "0123456789012345678901234567890123456789KkMm ,.-"
	for range 100000 {
		b := make([]byte, 1+r.IntN(12))
		for i := range b {
			b[i] = alphabet[r.IntN(len(alphabet))]
		}
		checkLabel(t, string(b))
	}
}

// FuzzShortLabels checks the short path against the general reading on
// any string.
func FuzzShortLabels(f *testing.F) {
	for _, s := range labelSamples {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) { checkLabel(t, s) })
}
