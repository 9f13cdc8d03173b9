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

func TestKeyValue(t *testing.T) {
	for _, c := range []struct {
		b    block
		want string // "key=value" or "" for no pair
	}{
		{block{Kind: blockItem, Text: "GPU: H200 NVL"}, "GPU=H200 NVL"},
		{block{Kind: blockItem, Text: "GPU:H200:x"}, "GPU=H200:x"},
		{block{Kind: blockItem, Text: "GPU: H200", LeadKey: "GPU:", Rest: " H200"}, "GPU=H200"},
		{block{Kind: blockText, Text: "GPUH200", LeadKey: "GPU", Rest: "H200"}, "GPU=H200"},
		{block{Kind: blockText, Text: "Commit:", LeadKey: "Commit:", Rest: ""}, "Commit="},
		{block{Kind: blockKV, Text: "Served model", Value: " ling "}, "Served model=ling"},
		{block{Kind: blockItem, Text: "**VRAM**: 141 GB", LeadKey: "VRAM", Rest: ": 141 GB"}, "VRAM=141 GB"},
		{block{Kind: blockText, Text: "https://example.com/x"}, ""},
		{block{Kind: blockText, Text: "8K context: 55K"}, ""},
		{block{Kind: blockText, Text: "a sentence without a colon"}, ""},
		{block{Kind: blockText, Text: "This is a long note, with commas, that mentions: a colon"}, ""},
		{block{Kind: blockCode, Text: "GPU: x"}, ""},
	} {
		k, v, ok := keyValue(&c.b)
		got := ""
		if ok {
			got = k + "=" + v
		}
		if got != c.want {
			t.Errorf("keyValue(%+v) = %q, want %q", c.b, got, c.want)
		}
	}
}

func TestClassifySection(t *testing.T) {
	for _, c := range []struct {
		text  string
		kind  sectionKind
		known bool
	}{
		{"Hardware", secMeta, true},
		{"  ENGINE ", secMeta, true},
		{"Run:", secMeta, true},
		{"Launch command", secLaunch, true},
		{"Prefill", secPrefill, true},
		{"Sustained decode throughput", secDecode, true},
		{"All measurements", secFull, true},
		{"Runner notes", secMeta, false},
		{"Notes", secMeta, false},
	} {
		kind, known := classifySection(c.text)
		if kind != c.kind || known != c.known {
			t.Errorf("classifySection(%q) = %v, %v; want %v, %v", c.text, kind, known, c.kind, c.known)
		}
	}
}

func TestClassifyTable(t *testing.T) {
	tab := func(header string, rows ...string) *table {
		t := &table{}
		for _, h := range strings.Split(header, "|") {
			t.Header = append(t.Header, cell{Text: h})
		}
		for _, r := range rows {
			var cells []cell
			for _, x := range strings.Split(r, "|") {
				cells = append(cells, cell{Text: x})
			}
			t.Rows = append(t.Rows, row{Cells: cells})
		}
		return t
	}
	for _, c := range []struct {
		name string
		t    *table
		sec  sectionKind
		want tableKind
	}{
		{"full", tab("Phase|Context|Requests at once|Status|Total tok/s"), secFull, tableFull},
		{"full anywhere", tab("Phase|Context|Status"), secMeta, tableFull},
		{"matrix", tab("Context|1|2|4"), secDecode, tableMatrix},
		{"matrix with units", tab("Context|1 req|2 reqs"), secNone, tableMatrix},
		{"matrix, empty corner", tab("|1|2", "8K|x|y"), secDecode, tableMatrix},
		{"matrix, corner names columns", tab("Requests →|1|2", "8K|x|y"), secDecode, tableMatrix},
		{"transposed", tab("Requests|8K|16K"), secDecode, tableMatrixT},
		{"prefill", tab("Context|Prompt tok/s|TTFT"), secPrefill, tablePrefill},
		{"prefill elsewhere", tab("Context|Prompt tok/s|TTFT"), secMeta, tableOther},
		{"two columns", tab("Key|Value"), secMeta, tableTwoColumns},
		{"other", tab("a|b|c"), secMeta, tableOther},
	} {
		if got := classifyTable(c.t, c.sec); got != c.want {
			t.Errorf("%s: classifyTable = %v, want %v", c.name, got, c.want)
		}
	}
}

func TestCollapse(t *testing.T) {
	for in, want := range map[string]string{
		"  a \t b\n":            "a b",
		"96\u00a0GB":            "96 GB",
		"in\u200bvisible\u00ad": "invisible",
		"":                      "",
		" \u00a0 ":              "",
	} {
		if got := collapse(in); got != want {
			t.Errorf("collapse(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestSectionLabels checks that lines naming a section head it, and that
// numbered or decorated headings are recognized.
func TestSectionLabels(t *testing.T) {
	doc := `<h1>` + fxTitle + `</h1>
<p><strong>Hardware</strong></p>
<ul><li>GPU: H200 NVL</li></ul>
<div class="section-title">Engine</div>
<div class="kv"><div>Engine</div><div>vllm</div></div>
<h2>3. Run</h2>
<ul><li>Served model: ling</li></ul>
<h2>⚡ Prompt processing</h2>
<ul><li>8K context: 55K tok/s, 149 ms TTFT</li></ul>
` + fxHTMLMatrix + fxHTMLFull
	raw, err := extractHTML([]byte(doc), "doc")
	if err != nil {
		t.Fatal(err)
	}
	fxCheck(t, raw, fxWant{title: fxTitle, rows: fxRows, prefill: fxPrefill, matrix: fxMatrix,
		fields: []string{"Hardware/GPU=H200 NVL", "Engine/Engine=vllm", "Run/Served model=ling"}})
}
