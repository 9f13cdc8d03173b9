package redact

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

func TestWords(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{`a "b c" 'd e' f\ g`, []string{"a", "b c", "d e", "f g"}},
		{`"x\"y" 'it''s'`, []string{`x"y`, "its"}},
		{"a \\\n b", []string{"a", "b"}},
		{"a\r\nb", []string{"a", "b"}},
		{`"unterminated`, []string{"unterminated"}},
		{`a # comment "x"`, []string{"a"}},
		{`a#b`, []string{"a#b"}},
		{`cd x&&vllm serve;b|c || d & e`, []string{"cd", "x", "&&", "vllm", "serve", ";", "b", "|", "c", "||", "d", "&", "e"}},
		{`"a;b" 'c&&d'`, []string{"a;b", "c&&d"}},
	}
	for _, tt := range tests {
		var got []string
		for _, w := range Words(tt.in) {
			got = append(got, w.Text)
			if w.Start < 0 || w.End > len(tt.in) || w.Start >= w.End {
				t.Errorf("Words(%q): bad span %d..%d", tt.in, w.Start, w.End)
			}
			if w.Op != (w.Text == tt.in[w.Start:w.End] && len(w.Text) <= 2 && (w.Text[0] == ';' || w.Text[0] == '&' || w.Text[0] == '|')) {
				t.Errorf("Words(%q): %q has Op %v", tt.in, w.Text, w.Op)
			}
		}
		if fmt.Sprint(got) != fmt.Sprint(tt.want) {
			t.Errorf("Words(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// referenceWords is Words as it was before its runs of plain bytes: one
// turn of the loop per byte.
func referenceWords(s string) []Word {
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
			begin(i)
			if !plain {
				cur.WriteByte(c)
			}
		}
	}
	flush(len(s))
	return out
}

// TestWordsIsReference checks that Words splits every reference text,
// and random texts made of the bytes its cases tell apart, as
// referenceWords does: the same texts, spans and operators.
func TestWordsIsReference(t *testing.T) {
	texts := referenceTexts(t)
	pieces := []string{"a", "bc", "--flag", "=", " ", "  ", "\t", "\n", "\r", "\r\n", "\\", "\\\n", "\\\r\n", "\\ ", "'", "\"", "\\\"",
		"#", "# x", ";", "&", "&&", "|", "||", ";&", "$", "`", "é", "\xff"}
	texts = append(texts, randomTexts(11, 50000, 10, pieces)...)
	for _, s := range texts {
		if got, want := Words(s), referenceWords(s); !slices.Equal(got, want) {
			t.Fatalf("Words(%q) = %+v, the reference %+v", s, got, want)
		}
	}
}
