package prices

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// NoPriceError is a GPU that no entry of a table prices.
type NoPriceError struct{ GPU string }

// Error implements error.
func (e *NoPriceError) Error() string {
	if e.GPU == "" {
		return "the run does not name its GPU"
	}
	return fmt.Sprintf("no price for GPU %q", e.GPU)
}

// AmbiguousError is a GPU name that two keys of the same length match.
type AmbiguousError struct {
	GPU  string
	A, B Entry
}

// Error implements error.
func (e *AmbiguousError) Error() string {
	return fmt.Sprintf("GPU %q matches both %q (%s) and %q (%s): make one key the GPU's full name", e.GPU, e.A.GPU, e.A.Source, e.B.GPU, e.B.Source)
}

// Lookup returns the entry that prices a run's GPU, by this rule: the
// key equal to the name (case and surrounding spaces aside); else the
// longest key contained in the name as whole words, case aside ("RTX PRO
// 6000" in "RTX PRO 6000 Blackwell Server Edition", "H200" in "NVIDIA
// H200 NVL"; a letter or digit on either side ends the match, so "H20"
// does not price an "H200"). Two different keys of that longest length
// are an *AmbiguousError; no key is a *NoPriceError.
func (t *Table) Lookup(gpu string) (Entry, error) {
	name := strings.TrimSpace(gpu)
	if t == nil || name == "" {
		return Entry{}, &NoPriceError{GPU: name}
	}
	for _, e := range t.Entries {
		if strings.EqualFold(strings.TrimSpace(e.GPU), name) {
			return e, nil
		}
	}
	best, found := Entry{}, false
	for _, e := range t.Entries {
		key := strings.TrimSpace(e.GPU)
		if !containsWords(name, key) {
			continue
		}
		switch {
		case !found || len(key) > len(strings.TrimSpace(best.GPU)):
			best, found = e, true
		case len(key) == len(strings.TrimSpace(best.GPU)):
			return Entry{}, &AmbiguousError{GPU: name, A: best, B: e}
		}
	}
	if !found {
		return Entry{}, &NoPriceError{GPU: name}
	}
	return best, nil
}

// containsWords reports whether key occurs in name, case aside, with no
// letter or digit right before or after it.
func containsWords(name, key string) bool {
	if key == "" {
		return false
	}
	n, k := strings.ToLower(name), strings.ToLower(key)
	// Note: lower-casing can change byte lengths (a Kelvin sign); the
	// boundaries are checked in the lowered name, where the match is.
	for from := 0; from <= len(n); {
		i := strings.Index(n[from:], k)
		if i < 0 {
			return false
		}
		i += from
		end := i + len(k)
		before, _ := utf8.DecodeLastRuneInString(n[:i])
		after, _ := utf8.DecodeRuneInString(n[end:])
		if !wordRune(before) && !wordRune(after) {
			return true
		}
		_, size := utf8.DecodeRuneInString(n[i:])
		from = i + size
	}
	return false
}

// wordRune reports whether r continues a word (RuneError: the edge).
func wordRune(r rune) bool {
	return r != utf8.RuneError && (unicode.IsLetter(r) || unicode.IsDigit(r))
}
