package redact

import (
	"fmt"
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
