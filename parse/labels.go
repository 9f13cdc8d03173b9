package parse

// This file reads the labels of cells: context lengths ("8K") and
// numbers of simultaneous requests.

import (
	"fmt"
	"math"
	"strings"
)

// contextTokens converts a printed context label to tokens: "8K" is
// 8 × 1024 = 8192 (the tool behind the documents counts 1024 tokens per
// K), "1M" is 1024 × 1024, a plain number ("509", "0" for an empty
// prompt) is that many tokens. Labels are rounded: the exact prompt
// length is not printed (a context_tokens column gives it).
func contextTokens(label string) (int64, error) {
	s := trimSpace(label)
	if n, mult, ok := shortWhole(s, true); ok && n <= 999999 {
		// Up to six digits and a K or M: what the slow path reads, in
		// whole numbers (below 2⁴⁰, so never too large).
		return n * mult, nil
	}
	return readContextTokens(label, s)
}

// readContextTokens is contextTokens for any label (s is it trimmed).
func readContextTokens(label, s string) (int64, error) {
	s = strings.TrimSuffix(strings.TrimSuffix(s, " tokens"), " context")
	if prompt, depth, ok := strings.Cut(s, "@"); ok && strings.HasPrefix(trimSpace(depth), "d") {
		depth = trimSpace(depth)[1:]
		// llama-bench's prompt at a depth ("512 @ d4K", or "512@d4K" as a
		// text document's prefill figure is read): the prompt after
		// the depth's tokens already in the KV cache, the two together.
		p, err := readContextTokens(label, trimSpace(prompt))
		if err != nil {
			return 0, err
		}
		d, err := readContextTokens(label, trimSpace(depth))
		if err != nil {
			return 0, err
		}
		return p + d, nil
	}
	if s == "" {
		return 0, fmt.Errorf("empty context")
	}
	mult := 1.0
	switch s[len(s)-1] {
	case 'K', 'k':
		mult, s = 1024, s[:len(s)-1]
	case 'M', 'm':
		mult, s = 1024*1024, s[:len(s)-1]
	}
	q, err := parseQuantity(s)
	if err != nil || q.Null || q.Unit != "" || q.Value < 0 {
		return 0, fmt.Errorf("context %q is not a length like 8K or 8192", label)
	}
	t := q.Value * mult
	if t > 1<<40 {
		return 0, fmt.Errorf("context %q is too large", label)
	}
	return int64(math.Round(t)), nil
}

// parseConcurrency reads a positive whole number of simultaneous requests.
func parseConcurrency(s string) (int32, error) {
	if n, _, ok := shortWhole(trimSpace(s), false); ok && n >= 1 {
		return int32(n), nil // at most nine digits: below MaxInt32
	}
	return readConcurrency(s)
}

// readConcurrency is parseConcurrency for any printing.
func readConcurrency(s string) (int32, error) {
	q, err := parseQuantity(s)
	if err != nil || q.Null || (q.Unit != "" && q.Unit != "requests") || q.Value < 1 || q.Value != math.Trunc(q.Value) || q.Value > math.MaxInt32 {
		return 0, fmt.Errorf("%q is not a number of requests", trimSpace(s))
	}
	return int32(q.Value), nil
}

// shortWhole reads trimmed s when it is a plain whole number of one to
// nine digits without a leading zero ("0" alone is one), and, with
// suffix, an optional K (mult 1024) or M (1024×1024) in either case:
// the common printings of context labels and concurrencies, which
// contextTokens and parseConcurrency read without the general scanner.
// ok is false for anything else, which those read as before.
func shortWhole(s string, suffix bool) (n, mult int64, ok bool) {
	mult = 1
	if suffix && len(s) > 1 {
		switch s[len(s)-1] {
		case 'K', 'k':
			mult, s = 1024, s[:len(s)-1]
		case 'M', 'm':
			mult, s = 1024*1024, s[:len(s)-1]
		}
	}
	if len(s) == 0 || len(s) > 9 || s[0] == '0' && len(s) > 1 {
		return 0, 0, false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < '0' || c > '9' {
			return 0, 0, false
		}
		n = n*10 + int64(c-'0')
	}
	return n, mult, true
}
