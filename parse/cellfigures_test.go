package parse

import (
	"fmt"
	"strings"
	"testing"
)

func TestSplitCell(t *testing.T) {
	for _, c := range []struct {
		pieces []string
		want   string // "tok | ttft | glued"
	}{
		{[]string{"325.2", "41 ms TTFT"}, "325.2 | 41 ms | "},
		{[]string{"41 ms TTFT", "325.2"}, "325.2 | 41 ms | "},
		{[]string{"325.2", "tok/s", "41", "ms"}, "325.2 | 41 ms | "},
		{[]string{"5,319.4 tok/s", "TTFT 1,644 ms"}, "5,319.4 | 1,644 ms | "},
		{[]string{"13K · 780 ms"}, "13K | 780 ms | "},
		{[]string{"325.2 / 41 ms"}, "325.2 | 41 ms | "},
		{[]string{"325.2 (41 ms)"}, "325.2 | 41 ms | "},
		{[]string{"325.2 tok/s, 41 ms TTFT"}, "325.2 | 41 ms | "},
		{[]string{"1.2K", "2.5 s"}, "1.2K | 2.5 s | "},
		{[]string{"325.241 ms TTFT"}, " |  | 325.241 ms TTFT"},
		{[]string{"13K780 ms TTFT"}, " |  | 13K780 ms TTFT"},
		{[]string{"Looped"}, " |  | Looped"},
		{[]string{"Over capacity", "would exceed the KV cache"}, " |  | Over capacity"},
		{[]string{"—"}, " |  | —"},
		{[]string{"325.2", "—"}, "325.2 | — | "},
		{[]string{"325.2"}, "325.2 |  | "},
		{nil, " |  | "},
	} {
		tok, ttft, glued := splitCell(c.pieces)
		if got := fmt.Sprintf("%s | %s | %s", tok, ttft, glued); got != c.want {
			t.Errorf("splitCell(%q) = %q, want %q", c.pieces, got, c.want)
		}
	}
}

func TestScanPrefill(t *testing.T) {
	ps := func(texts ...string) []piece {
		var out []piece
		for i, s := range texts {
			out = append(out, piece{Text: s, Line: i + 1})
		}
		return out
	}
	for _, c := range []struct {
		name string
		in   []piece
		want []string // "ctx: tok | ttft | glued @line"
	}{
		{"cards", ps("prompt tok/s by context length", "8K context", "55K", "149 ms TTFT", "16K context", "57.5K", "282 ms TTFT"),
			[]string{"8K: 55K | 149 ms |  @2", "16K: 57.5K | 282 ms |  @5"}},
		{"list lines", ps("8K context: 55K tok/s, 149 ms TTFT", "123K context — 35.4K · 3,490 ms"),
			[]string{"8K: 55K | 149 ms |  @1", "123K: 35.4K | 3,490 ms |  @2"}},
		{"label apart after the figure", ps("8K", "context", "55K", "149 ms", "16K", "context", "57.5K", "282 ms"),
			[]string{"8K: 55K | 149 ms |  @1", "16K: 57.5K | 282 ms |  @5"}},
		{"labels first", ps("Context", "8K", "Prompt tok/s", "55K", "TTFT", "149 ms", "Context", "16K", "TTFT", "282 ms", "tok/s", "57.5K"),
			[]string{"8K: 55K | 149 ms |  @2", "16K: 57.5K | 282 ms |  @8"}},
		{"ttft first", ps("8K context", "149 ms TTFT", "55K"), []string{"8K: 55K | 149 ms |  @1"}},
		{"dash after a bold label", ps("8K context", "— 55K tok/s · 149 ms TTFT"), []string{"8K: 55K | 149 ms |  @1"}},
		{"glued", ps("8K context", "55K149 ms TTFT"), []string{"8K:  |  | 55K149 ms TTFT @1"}},
		{"latency-looking glue", ps("8K context", "9,756149 ms"), []string{"8K:  |  | 9,756149 ms @1"}},
		{"nothing", ps("no figures here"), nil},
	} {
		var got []string
		for _, p := range scanPrefill(c.in) {
			got = append(got, fmt.Sprintf("%s: %s | %s | %s @%d", p.Context, p.TokS, p.TTFT, p.Glued, p.Line))
		}
		if strings.Join(got, "\n") != strings.Join(c.want, "\n") {
			t.Errorf("%s:\n%s\nwant\n%s", c.name, strings.Join(got, "\n"), strings.Join(c.want, "\n"))
		}
	}
}
