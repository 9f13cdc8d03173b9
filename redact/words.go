package redact

import "strings"

// Word is one word of a command line as a shell splits it, and where it
// was printed.
type Word struct {
	// Text is the word after quote removal.
	Text string
	// Start and End are its byte span in the original text.
	Start, End int
	// Op is set for a control operator (;, &, &&, |, ||), which ends a
	// command: what follows is another command.
	Op bool
}

// Words splits a command line into words the way a POSIX shell does for
// the parts launch commands use: blanks separate words, '…' quotes
// literally, "…" quotes with \" \\ \$ escapes, a backslash escapes one
// character and a backslash-newline continues the line; # starts a
// comment at the beginning of a word; unquoted ;, & and | are operators
// of their own ("cd x&&vllm" is three words and an operator). Nothing is
// expanded.
//
// Note: no library: github.com/google/shlex and mvdan.cc/sh would need a
// new module, and neither reports the byte span of each word, which the
// redaction needs to replace a secret without reformatting the command.
func Words(s string) []Word {
	// A word or operator per blank, about: one allocation, not one per
	// doubling (growing was half the time of splitting a launch command).
	out := make([]Word, 0, 1+strings.Count(s, " "))
	var cur strings.Builder
	// plain: the word so far is s[start:i] as printed (no quote, escape
	// or continuation), so its Text is that substring and cur is unused.
	in, plain := false, false
	start := 0
	flush := func(end int) {
		if in {
			text := s[start:end]
			if !plain {
				text = cur.String()
				cur.Reset()
			}
			out = append(out, Word{Text: text, Start: start, End: end})
			in = false
		}
	}
	begin := func(i int) {
		if !in {
			in, start, plain = true, i, true
		}
	}
	// spill copies a plain word's text so far into cur: what follows is
	// not printed as it reads.
	spill := func(i int) {
		if in && plain {
			cur.WriteString(s[start:i])
			plain = false
		}
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\\' && i+1 < len(s) && s[i+1] == '\n':
			spill(i)
			i++
		case c == '\\' && i+2 < len(s) && s[i+1] == '\r' && s[i+2] == '\n':
			spill(i)
			i += 2
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			flush(i)
		case c == '#' && !in:
			for i < len(s) && s[i] != '\n' {
				i++
			}
		case c == ';' || c == '&' || c == '|':
			flush(i)
			j := i + 1
			for j < len(s) && j < i+2 && (s[j] == '&' || s[j] == '|') {
				j++
			}
			out = append(out, Word{Text: s[i:j], Start: i, End: j, Op: true})
			i = j - 1
		case c == '\\' && i+1 < len(s):
			begin(i)
			spill(i)
			cur.WriteByte(s[i+1])
			i++
		case c == '\'':
			begin(i)
			spill(i)
			j := strings.IndexByte(s[i+1:], '\'')
			if j < 0 {
				cur.WriteString(s[i+1:])
				i = len(s)
				break
			}
			cur.WriteString(s[i+1 : i+1+j])
			i += j + 1
		case c == '"':
			begin(i)
			spill(i)
			i++
			for ; i < len(s) && s[i] != '"'; i++ {
				if s[i] == '\\' && i+1 < len(s) && strings.IndexByte("\"\\$`\n", s[i+1]) >= 0 {
					i++
				}
				cur.WriteByte(s[i])
			}
		default:
			// The word's bytes up to the next that is not plain: a
			// launch command's words are mostly such runs.
			begin(i)
			j := i + 1
			for j < len(s) && plainWordByte[s[j]] {
				j++
			}
			if !plain {
				cur.WriteString(s[i:j])
			}
			i = j - 1
		}
	}
	flush(len(s))
	return out
}

// plainWordByte marks the bytes that, inside a word, Words takes as they
// are: all but blanks, operators, quotes and the backslash ('#' starts a
// comment only where a word would start).
//
// Note: Words took a word's bytes one turn of its loop each, 43
// instructions a byte of a seed's launch command (`valgrind
// --tool=cachegrind` of ParseLaunch); a run of them is now one tight
// loop. TestWordsIsReference compares it with the byte-by-byte loop.
var plainWordByte = func() (t [256]bool) {
	for c := range t {
		t[c] = true
	}
	for _, c := range []byte(" \t\n\r;&|\\'\"") {
		t[c] = false
	}
	return t
}()
