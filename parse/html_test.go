package parse

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"speedmatrix/schema"
)

// fxWant describes what a small document must extract to. Fields are
// "Section/Key=Value"; prefill figures "8K: 55K | 149 ms | glued";
// matrix cells "8K×1: 325.2 | 41 ms | glued"; rows the number of All
// measurements rows.
type fxWant struct {
	title, subtitle string
	launch          string
	fields          []string
	prefill         []string
	matrix          []string
	rows            int
}

// fxCase is one layout of a small document.
type fxCase struct {
	name string
	doc  string
	want fxWant
	// detected is what Detect says when it is not the case's format.
	detected string
}

// The All measurements table and the figures every small document
// shares: one prefill row, a valid and a looped decode cell.
const (
	fxTitle = "Ling-3.0-tiny on H200 NVL 141GB"
	fxRows  = 3
)

var fxMatrix = []string{"8K×1: 325.2 | 41 ms | ", "8K×2:  |  | Looped"}
var fxPrefill = []string{"8K: 55K | 149 ms | "}

const fxHTMLFull = `
<h2>All measurements</h2>
<table>
<thead><tr><th>Phase</th><th>Context</th><th>Requests at once</th><th>Status</th><th>Total tok/s</th><th>TTFT</th></tr></thead>
<tbody>
<tr><td>Prefill</td><td>8K</td><td>1</td><td>Valid</td><td>55K</td><td>149 ms</td></tr>
<tr><td>Sustained decode</td><td>8K</td><td>1</td><td>Valid</td><td>325.2</td><td>41 ms</td></tr>
<tr><td>Sustained decode</td><td>8K</td><td>2</td><td>Looped</td><td>—</td><td>—</td></tr>
</tbody>
</table>
`

const fxHTMLMatrix = `
<h2>Sustained decode</h2>
<table>
<tr><th>Context</th><th>1</th><th>2</th></tr>
<tr><th>8K</th><td><span>325.2</span><span>41 ms TTFT</span></td><td>Looped</td></tr>
</table>
`

const fxHTMLPrefill = `
<h2>Prefill</h2>
<div class="cards"><div><div>8K context</div><div>55K</div><div>149 ms TTFT</div></div></div>
`

// fxSortHeader is the full table's header as sortable tables print it:
// each name in a button, with a sort arrow.
var fxSortHeader = func() string {
	var b strings.Builder
	for _, h := range []string{"Phase", "Context", "Requests at once", "Status", "Total tok/s", "TTFT"} {
		fmt.Fprintf(&b, "<th aria-sort=none><button>%s<span aria-hidden=true>▲</span></button></th>", h)
	}
	return b.String()
}()

var fxHTMLCases = []fxCase{
	{
		name: "nested wrappers, dl with div rows, dd with inner spans",
		doc: `<!DOCTYPE html><html><body><div id="app"><main><article><div class="x">
<header><p>Speed test matrix</p><h1>` + fxTitle + `</h1>
<p><span>vllm</span> · <span>0.27.2</span> · <span>BF16</span></p></header>
<div><section><div><h2>Hardware</h2>
<dl><div><dt>GPU</dt><dd><span>H200</span> <span>NVL</span></dd></div>
<div><dt>VRAM</dt><dd><b>141</b> GB</dd></div></dl></div></section></div>
<section><h2>Launch command</h2><pre><code>vllm serve x --tensor-parallel-size 2</code></pre></section>
<section>` + fxHTMLPrefill + `</section><section>` + fxHTMLMatrix + `</section><section>` + fxHTMLFull + `</section>
</div></article></main></div></body></html>`,
		want: fxWant{title: fxTitle, subtitle: "vllm · 0.27.2 · BF16", launch: "vllm serve x --tensor-parallel-size 2",
			fields: []string{"Hardware/GPU=H200 NVL", "Hardware/VRAM=141 GB"}, prefill: fxPrefill, matrix: fxMatrix, rows: fxRows},
	},
	{
		name: "uppercase tags, CRLF, comments, entities, th in first tbody row",
		doc: strings.ReplaceAll(`<!doctype html>
<HTML><BODY>
<!-- a comment <h1>not a title</h1> -->
<H1 CLASS="t">Ling-3.0-tiny on H200&nbsp;NVL 141GB</H1>
<P>vllm &middot; 0.27.2</P>
<H3>Engine</H3>
<UL><LI>Engine: vllm</LI><LI>Version:&nbsp;0.27.2</LI></UL>
<H3>Prefill</H3>
<UL><LI>8K context &#8212; 55K tok/s &middot; 149&nbsp;ms TTFT</LI></UL>
<H3>Sustained decode</H3>
<TABLE><TBODY>
<TR><TH>Context</TH><TH>1</TH><TH>2</TH></TR>
<TR><TD>8K</TD><TD>325.2<BR>41 ms TTFT</TD><TD><EM>Looped</EM></TD></TR>
</TBODY></TABLE>
<H3>All measurements</H3>
<TABLE><TBODY>
<TR><TH>Phase</TH><TH>Context</TH><TH>Requests at once</TH><TH>Status</TH><TH>Total tok/s</TH><TH>TTFT</TH></TR>
<TR><TD>Prefill</TD><TD>8K</TD><TD>1</TD><TD>Valid</TD><TD>55K</TD><TD>149 ms</TD></TR>
<TR><TD>Sustained decode</TD><TD>8K</TD><TD>1</TD><TD>Valid</TD><TD>325.2</TD><TD>41 ms</TD></TR>
<TR><TD>Sustained decode</TD><TD>8K</TD><TD>2</TD><TD>Looped</TD><TD>&#8212;</TD><TD>&mdash;</TD></TR>
</TBODY></TABLE>
</BODY></HTML>`, "\n", "\r\n"),
		want: fxWant{title: fxTitle, subtitle: "vllm · 0.27.2",
			fields: []string{"Engine/Engine=vllm", "Engine/Version=0.27.2"}, prefill: fxPrefill, matrix: fxMatrix, rows: fxRows},
	},
	{
		name: "list items with span pairs and two-column tables",
		doc: `<h1>` + fxTitle + `</h1>
<h2>Hardware</h2><ul><li><span>GPU</span><span>H200 NVL</span></li><li><strong>VRAM:</strong> 141 GB</li></ul>
<h2>Run</h2><table><tr><td>Served model</td><td>ling</td></tr><tr><td>Launch command</td><td><code>vllm serve y</code></td></tr></table>
<h2>Notes</h2><p><b>Warm-up:</b> 2 requests</p>
` + fxHTMLPrefill + fxHTMLMatrix + fxHTMLFull,
		want: fxWant{title: fxTitle, launch: "vllm serve y",
			fields:  []string{"Hardware/GPU=H200 NVL", "Hardware/VRAM=141 GB", "Run/Served model=ling", "Notes/Warm-up=2 requests"},
			prefill: fxPrefill, matrix: fxMatrix, rows: fxRows},
	},
	{
		name: "tooltips beside matrix labels, captioned key/value tables",
		doc: `<h1>` + fxTitle + `</h1>
<table><caption>Engine</caption><tr><th>Engine</th><td>vllm</td></tr><tr><th>Backend</th><td>cuda</td></tr></table>
<h2>Sustained decode</h2>
<table>
<tr><th>Context</th><th>1<sup>req</sup></th><th>2 <abbr title="simultaneous requests">req</abbr></th></tr>
<tr><th>8K<span class="tip">8,192 tokens</span></th><td><span>325.2</span><span>41 ms TTFT</span></td><td>Looped</td></tr>
</table>` + fxHTMLFull,
		want: fxWant{title: fxTitle, fields: []string{"Engine/Engine=vllm", "Engine/Backend=cuda"}, matrix: fxMatrix, rows: fxRows},
	},
	{
		name: "key/value table under a spanning header cell",
		doc: `<h1>` + fxTitle + `</h1>
<table><thead><tr><th colspan="2">Hardware</th></tr></thead>
<tbody><tr><td>GPU</td><td>H200 NVL</td></tr><tr><td>VRAM</td><td>141&nbsp;GB</td></tr></tbody></table>` + fxHTMLFull,
		want: fxWant{title: fxTitle, fields: []string{"Hardware/GPU=H200 NVL", "Hardware/VRAM=141 GB"}, rows: fxRows},
	},
	{
		name: "full table in parts under phase headings, with different columns",
		doc: `<h1>` + fxTitle + `</h1>
<h2>All measurements</h2>
<h3>Prefill</h3>
<table><tr><th>Context</th><th>Status</th><th>Total tok/s</th><th>TTFT</th></tr>
<tr><td>8K</td><td>Valid</td><td>55K</td><td>149 ms</td></tr></table>
<h3>Sustained decode</h3>
<table><tr><th>Context</th><th>Requests at once</th><th>Status</th><th>Total tok/s</th><th>TTFT</th><th>Output tokens</th></tr>
<tr><td>8K</td><td>1</td><td>Valid</td><td>325.2</td><td>41 ms</td><td>9,756</td></tr>
<tr><td>8K</td><td>2</td><td>Looped</td><td>—</td><td>—</td><td>0</td></tr></table>`,
		want: fxWant{title: fxTitle, rows: fxRows},
	},
	{
		name: "sortable header buttons, copy buttons, card headers, details",
		doc: `<h1>` + fxTitle + `</h1>
<div class="card"><div class="card-header">Engine</div><div class="card-body">
<table class="table"><tr><td>Engine</td><td>vllm</td></tr><tr><td>Quantization</td><td>BF16</td></tr></table></div></div>
<div class="card"><div class="card-header">Launch command</div><button>Copy</button><pre>vllm serve m</pre></div>
<details open><summary>All measurements</summary>
<table><thead><tr>` + fxSortHeader + `</tr></thead>
<tbody>
<tr><td>Prefill</td><td>8K</td><td>1</td><td>Valid</td><td>55K</td><td>149 ms</td></tr>
<tr><td>Sustained decode</td><td>8K</td><td>1</td><td>Valid</td><td>325.2</td><td>41 ms</td></tr>
<tr><td>Sustained decode</td><td>8K</td><td>2</td><td>Looped</td><td>—</td><td>—</td></tr>
</tbody></table></details>`,
		want: fxWant{title: fxTitle, launch: "vllm serve m", fields: []string{"Engine/Engine=vllm", "Engine/Quantization=BF16"}, rows: fxRows},
	},
	{
		name: "row and column spans in the full table",
		doc: `<h1>` + fxTitle + `</h1>
<table>
<tr><th rowspan="2">Phase</th><th rowspan="2">Context</th><th rowspan="2">Requests at once</th><th rowspan="2">Status</th><th colspan="2">Figures</th></tr>
<tr><th>Total tok/s</th><th>TTFT</th></tr>
<tr><td colspan="6">Prefill rows</td></tr>
<tr><td>Prefill</td><td>8K</td><td>1</td><td>Valid</td><td>55K</td><td>149 ms</td></tr>
<tr><td rowspan="2">Sustained decode</td><td rowspan="2">8K</td><td>1</td><td>Valid</td><td>325.2</td><td>41 ms</td></tr>
<tr><td>2</td><td>Looped</td><td colspan="2">—</td></tr>
</table>`,
		want: fxWant{title: fxTitle, rows: fxRows},
	},
	{
		name: "full table rows grouped under phase rows, without a Phase column",
		doc: `<h1>` + fxTitle + `</h1>
<h2>Results</h2>
<table>
<thead><tr><th>Context</th><th>Requests at once</th><th>Status</th><th>Total tok/s</th><th>TTFT</th></tr></thead>
<tbody>
<tr><th colspan="5">Prefill</th></tr>
<tr><td>8K</td><td>1</td><td>Valid</td><td>55K</td><td>149 ms</td></tr>
<tr><th colspan="5">Sustained decode</th></tr>
<tr><td>8K</td><td>1</td><td>Valid</td><td>325.2</td><td>41 ms</td></tr>
<tr><td>8K</td><td>2</td><td>Looped</td><td>—</td><td>—</td></tr>
</tbody></table>`,
		want: fxWant{title: fxTitle, rows: fxRows},
	},
	{
		name: "matrix with a summary column and a summary row",
		doc: `<h1>` + fxTitle + `</h1>
<h2>Sustained decode</h2>
<table>
<tr><th>Context</th><th>1</th><th>2</th><th>Peak</th></tr>
<tr><td>8K</td><td>325.2<br>41 ms</td><td>Looped</td><td>325.2</td></tr>
<tr><td>Mean</td><td>325.2</td><td>—</td><td></td></tr>
</table>` + fxHTMLFull,
		want: fxWant{title: fxTitle, matrix: fxMatrix, rows: fxRows},
	},
	{
		name: "no headings: the page title names the document",
		doc: `<html><head><title>` + fxTitle + `</title></head><body>
<table><tr><th>Context</th><th>1</th><th>2</th></tr><tr><td>8K</td><td>325.2 · 41 ms</td><td>Looped</td></tr></table>
` + strings.Replace(fxHTMLFull, "<h2>All measurements</h2>", "", 1) + `</body></html>`,
		want: fxWant{title: fxTitle, matrix: fxMatrix, rows: fxRows},
	},
	{
		name: "keys on their own line above their values",
		doc: `<h1>` + fxTitle + `</h1><h2>Hardware</h2>
<p><strong>GPU</strong><br>H200 NVL<br><strong>VRAM:</strong><br>141 GB</p>
<p>Measured on <b>one</b> node.</p>` + fxHTMLFull,
		want: fxWant{title: fxTitle, fields: []string{"Hardware/GPU=H200 NVL", "Hardware/VRAM=141 GB"}, rows: fxRows},
	},
	{
		name: "site name in an h1 above the title",
		doc: `<header><h1>Bench Lab</h1><nav><a href="/">Home</a></nav></header>
<h1>` + fxTitle + `</h1><p>vllm • 0.27.2</p>` + fxHTMLMatrix + fxHTMLFull,
		want: fxWant{title: fxTitle, subtitle: "vllm • 0.27.2", matrix: fxMatrix, rows: fxRows},
	},
	{
		name: "kicker h1, title in h2, card labels as sub-headings, label-first prefill",
		doc: `<h1>Speed test matrix</h1><h2>` + fxTitle + `</h2>
<h2>Prefill</h2><p>prompt tok/s by context length</p>
<div class="card"><h4>Context</h4><p>8K</p><h4>Prompt tok/s</h4><p>55K</p><h4>TTFT</h4><p>149 ms</p></div>
` + fxHTMLMatrix + fxHTMLFull,
		want: fxWant{title: fxTitle, prefill: fxPrefill, matrix: fxMatrix, rows: fxRows},
	},
	{
		name: "separated and glued matrix cells, transposed matrix, div key/value pairs",
		doc: `<h1>` + fxTitle + `</h1>
<h2>Engine</h2><div class="kv"><div>Engine</div><div>vllm</div></div><div class="kv"><div>Commit</div><div>5cecfc0</div></div>
<h2>Prefill</h2><p>8K context<br>55K149 ms TTFT</p>
<h2>Sustained decode</h2>
<table><thead><tr><th>Requests</th><th>8K</th></tr></thead>
<tbody><tr><td>1</td><td>325.241 ms TTFT</td></tr><tr><td>2</td><td>Looped</td></tr></tbody></table>
` + fxHTMLFull,
		want: fxWant{title: fxTitle, fields: []string{"Engine/Engine=vllm", "Engine/Commit=5cecfc0"},
			prefill: []string{"8K:  |  | 55K149 ms TTFT"},
			matrix:  []string{"8K×1:  |  | 325.241 ms TTFT", "8K×2:  |  | Looped"}, rows: fxRows},
	},
	{
		name: "prefill table and matrix cells with a middle dot",
		doc: `<h1>` + fxTitle + `</h1>
<h2>Prefill</h2><table><tr><th>Context</th><th>tok/s</th><th>TTFT (ms)</th></tr><tr><td>8K context</td><td>55K</td><td>149</td></tr></table>
<h2>Sustained decode</h2>
<table><tr><th>Context</th><th>1 req</th><th>2 req</th></tr><tr><td>8K</td><td>325.2 · 41 ms</td><td>Looped<span title="x"> (repeated itself)</span></td></tr></table>
` + fxHTMLFull,
		want: fxWant{title: fxTitle, prefill: fxPrefill, matrix: fxMatrix, rows: fxRows},
	},
}

// fxCheck compares an extracted document with what was wanted.
func fxCheck(t *testing.T, raw *rawDoc, w fxWant) {
	t.Helper()
	if raw.Title != w.title {
		t.Errorf("title %q, want %q", raw.Title, w.title)
	}
	if w.subtitle != "" && raw.Subtitle != w.subtitle {
		t.Errorf("subtitle %q, want %q", raw.Subtitle, w.subtitle)
	}
	if w.launch != "" && raw.Launch != w.launch {
		t.Errorf("launch %q, want %q", raw.Launch, w.launch)
	}
	var fields []string
	for _, f := range raw.Fields {
		fields = append(fields, fmt.Sprintf("%s/%s=%s", f.Section, f.Key, f.Value))
	}
	if w.fields != nil && strings.Join(fields, "\n") != strings.Join(w.fields, "\n") {
		t.Errorf("fields\n%s\nwant\n%s", strings.Join(fields, "\n"), strings.Join(w.fields, "\n"))
	}
	var prefill []string
	for _, p := range raw.Prefill {
		prefill = append(prefill, fmt.Sprintf("%s: %s | %s | %s", p.Context, p.TokS, p.TTFT, p.Glued))
	}
	if strings.Join(prefill, "\n") != strings.Join(w.prefill, "\n") {
		t.Errorf("prefill\n%s\nwant\n%s", strings.Join(prefill, "\n"), strings.Join(w.prefill, "\n"))
	}
	var matrix []string
	for _, c := range raw.Matrix {
		matrix = append(matrix, fmt.Sprintf("%s×%s: %s | %s | %s", c.Context, c.Concurrency, c.TokS, c.TTFT, c.Glued))
	}
	if strings.Join(matrix, "\n") != strings.Join(w.matrix, "\n") {
		t.Errorf("matrix\n%s\nwant\n%s", strings.Join(matrix, "\n"), strings.Join(w.matrix, "\n"))
	}
	if len(raw.Table.Rows) != w.rows {
		t.Errorf("%d table rows, want %d", len(raw.Table.Rows), w.rows)
	}
}

// fxRunCases extracts each case, checks the result and that the
// builder accepts it (the figures agree with the table).
func fxRunCases(t *testing.T, format string, cases []fxCase) {
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			raw, err := extractors[format]([]byte(c.doc), "doc")
			if err != nil {
				t.Fatalf("extract: %v", err)
			}
			fxCheck(t, raw, c.want)
			wantDetect := format
			if c.detected != "" {
				wantDetect = c.detected
			}
			if got, err := Detect([]byte(c.doc)); err != nil || got != wantDetect {
				t.Errorf("Detect = %q, %v; want %q", got, err, wantDetect)
			}
			m, err := ParseBytes([]byte(c.doc), "doc", format)
			if err != nil {
				t.Fatalf("ParseBytes: %v", err)
			}
			if len(m.Measurements) != c.want.rows {
				t.Errorf("%d measurements, want %d", len(m.Measurements), c.want.rows)
			}
		})
	}
}

func TestExtractHTMLLayouts(t *testing.T) {
	fxRunCases(t, schema.FormatHTML, fxHTMLCases)
}

// fxErrorCase is a bad document and what its error must say.
type fxErrorCase struct {
	name string
	doc  string
	// at is the text on the line the error must be positioned at (the
	// first line holding it); "" means line 1.
	at string
	// names are texts whose lines the message must name ("line N"),
	// each with the occurrence meant (1 = first).
	names []fxLineOf
	msg   []string // substrings of the message
}

// fxLineOf names the nth line of a document holding a text.
type fxLineOf struct {
	text string
	nth  int
}

// line returns the 1-based line of the nth occurrence of l.text in doc,
// 0 when there is none.
func (l fxLineOf) line(doc string) int {
	off := 0
	for n := 0; n < max(l.nth, 1); n++ {
		i := strings.Index(doc[off:], l.text)
		if i < 0 {
			return 0
		}
		off += i + len(l.text)
	}
	return newLineIndex([]byte(doc)).line(off - len(l.text))
}

var fxHTMLErrors = []fxErrorCase{
	{name: "empty", doc: "", msg: []string{"no title"}},
	{name: "no title", doc: "<p>hello</p>\n<table><tr><th>a</th></tr></table>", msg: []string{"no title", "h1"}},
	{name: "no full table", doc: "<h1>" + fxTitle + "</h1>\n<p>x</p>\n\n<h2>All measurements</h2>\n<p>soon</p>", at: "<h2>All", msg: []string{"no All measurements table"}},
	{name: "no full table, no heading", doc: "<h1>" + fxTitle + "</h1>\n<p>x</p>\n<p>y</p>\n", at: "<p>y", msg: []string{"no All measurements table"}},
	{name: "decode table that is not a matrix", doc: "<h1>" + fxTitle + "</h1>\n<h2>Sustained decode</h2>\n\n<table><tr><th>a</th><th>b</th><th>c</th></tr></table>" + fxHTMLFull,
		at: "<table><tr><th>a", msg: []string{"Sustained decode: the table is not a matrix"}},
	{name: "prefill figures not understood", doc: "<h1>" + fxTitle + "</h1>\n<h2>Prefill</h2>\n<p>8K: soon</p>" + fxHTMLFull, at: "<h2>Prefill", msg: []string{"Prefill: figures not understood"}},
	{name: "two matrices", doc: "<h1>" + fxTitle + "</h1>" + fxHTMLMatrix + "\n" + strings.Replace(fxHTMLMatrix, "<table>", `<table class="again">`, 1) + fxHTMLFull,
		at: `<table class="again">`, names: []fxLineOf{{"<table>", 1}}, msg: []string{"second decode matrix"}},
	{name: "rows of two full-table parts that repeat", doc: "<h1>" + fxTitle + "</h1>" + fxHTMLFull + "<h3>Prefill</h3>\n<table><tr><th>Context</th><th>Requests at once</th><th>Status</th><th>Total tok/s</th></tr>\n<tr><td>8K</td><td>1</td><td>Valid</td><td>56K</td></tr></table>",
		at: "<td>56K", names: []fxLineOf{{"<td>Prefill</td>", 1}}, msg: []string{"duplicated row", "contradicts"}},
	{name: "matrix disagrees with the table", doc: "<h1>" + fxTitle + "</h1>" + strings.Replace(fxHTMLMatrix, "325.2", "352.2", 1) + fxHTMLFull,
		at: "352.2", names: []fxLineOf{{"<td>325.2</td>", 1}}, msg: []string{"decode 8K×1", "352.2", "325.2"}},
	{name: "prefill disagrees with the table", doc: "<h1>" + fxTitle + "</h1>" + strings.Replace(fxHTMLPrefill, "149 ms", "194 ms", 1) + fxHTMLFull,
		at: "194 ms", names: []fxLineOf{{"<td>Prefill</td>", 1}}, msg: []string{"prefill 8K", "194"}},
	{name: "matrix status disagrees", doc: "<h1>" + fxTitle + "</h1>" + strings.Replace(fxHTMLMatrix, "<td>Looped</td>", "<td>Over capacity</td>", 1) + fxHTMLFull,
		at: "Over capacity", names: []fxLineOf{{"<td>Looped</td>", 1}}, msg: []string{"decode 8K×2", "Over capacity", "Looped"}},
	{name: "duplicated row", doc: "<h1>" + fxTitle + "</h1>" + strings.Replace(fxHTMLFull, "</tbody>", "<tr><td>Prefill</td><td>8K</td><td>1</td><td>Valid</td><td>55K</td><td>149 ms</td></tr>\n</tbody>", 1),
		at: "</tbody>", names: []fxLineOf{{"<td>Prefill</td>", 1}}, msg: []string{"duplicated row"}},
}

// fxRunErrors checks that each bad document fails with a *Error naming
// the file, positioned where the case says, naming the other lines.
func fxRunErrors(t *testing.T, format string, cases []fxErrorCase) {
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := ParseBytes([]byte(c.doc), "bad.doc", format)
			var pe *Error
			if !errors.As(err, &pe) {
				t.Fatalf("error %v (%T), want a *Error", err, err)
			}
			line := 1
			if c.at != "" {
				// The error is on the line before the text when the text
				// opens a line ("</tbody>" after the duplicated row).
				line = fxLineOf{c.at, 1}.line(c.doc)
				if strings.HasPrefix(c.at, "</") {
					line--
				}
			}
			if pe.File != "bad.doc" || pe.Line != line {
				t.Errorf("error at %s:%d, want bad.doc:%d (%v)", pe.File, pe.Line, line, err)
			}
			for _, n := range c.names {
				if l := n.line(c.doc); !strings.Contains(pe.Msg, fmt.Sprintf("line %d", l)) {
					t.Errorf("error %q does not name line %d (%q)", err, l, n.text)
				}
			}
			for _, m := range c.msg {
				if !strings.Contains(pe.Msg, m) {
					t.Errorf("error %q does not say %q", err, m)
				}
			}
		})
	}
}

func TestExtractHTMLErrors(t *testing.T) {
	fxRunErrors(t, schema.FormatHTML, fxHTMLErrors)
}

// TestAnnotateLines checks that the line attributes leave the document
// otherwise byte for byte as it was, and name each tag's line.
func TestAnnotateLines(t *testing.T) {
	for _, doc := range []string{
		"<p>a</p>\n<p\nclass=x>b</p>\r\n<br/><img src=a.png />",
		"<script>if (a<b) { x = '<p>' }</script>\n<p>c</p>",
		"<title>a <b> c</title>\r<textarea><p></textarea>\n<div",
		"no tags at all\n",
		"<!-- <p> --><![CDATA[ <p> ]]><p data-sm-line=\"99\">x</p>",
	} {
		out := annotateLines([]byte(doc), newLineIndex([]byte(doc)))
		stripped := regexp.MustCompile(` data-sm-line="[0-9]+"`).ReplaceAll(out, nil)
		if doc == "<!-- <p> --><![CDATA[ <p> ]]><p data-sm-line=\"99\">x</p>" {
			// The document's own attribute stays; ours comes first.
			if !bytes.Contains(out, []byte(`<p data-sm-line="1" data-sm-line="99">`)) {
				t.Errorf("annotate(%q) = %q", doc, out)
			}
			continue
		}
		if string(stripped) != doc {
			t.Errorf("annotate(%q) = %q: changed more than the attributes", doc, out)
		}
	}
	doc := "<p>a</p>\n<p\nclass=x>b</p>\r\n<br/>\r<i>x</i>"
	out := string(annotateLines([]byte(doc), newLineIndex([]byte(doc))))
	want := "<p data-sm-line=\"1\">a</p>\n<p data-sm-line=\"2\"\nclass=x>b</p>\r\n<br data-sm-line=\"4\"/>\r<i data-sm-line=\"5\">x</i>"
	if out != want {
		t.Errorf("annotate = %q\nwant       %q", out, want)
	}
}

// TestFixtureLines checks, on every fixture, that each extracted line
// points at the text extracted from it.
func TestFixtureLines(t *testing.T) {
	var paths []string
	for _, ext := range []string{"*.html", "*.md"} {
		p, _ := filepath.Glob(filepath.Join("testdata", "forms", ext))
		paths = append(paths, p...)
	}
	if len(paths) < 4 {
		t.Fatalf("%d fixtures, want 4", len(paths))
	}
	unescape := strings.NewReplacer("&amp;", "&", "&lt;", "<", "&gt;", ">", "&#x27;", "'", "&#39;", "'", "&quot;", `"`, "&middot;", "·", "&#8212;", "—", "&nbsp;", " ", `\|`, "|")
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		format, _ := Detect(b)
		raw, err := extractors[format](b, p)
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		lines := strings.Split(strings.ReplaceAll(string(b), "\r\n", "\n"), "\n")
		// A line is that of the element's start tag (HTML) or of the
		// text itself (Markdown): the text is on it or, for an element
		// whose text starts on the next lines, just after it.
		span := 1
		if format == schema.FormatHTML {
			span = 3
		}
		at := func(what string, line int, text string) {
			t.Helper()
			if line < 1 || line > len(lines) {
				t.Errorf("%s: %s %q at line %d, outside the document", p, what, text, line)
				return
			}
			l := unescape.Replace(strings.Join(lines[line-1:min(line-1+span, len(lines))], "\n"))
			if !strings.Contains(l, text) || !strings.Contains(unescape.Replace(lines[line-1]), "<") && format == schema.FormatHTML {
				t.Errorf("%s:%d: %s %q is not on that line: %q", p, line, what, text, l)
			}
		}
		at("title", raw.TitleLine, raw.Title)
		at("launch", raw.LaunchLine, raw.Launch[:20])
		for _, f := range raw.Fields {
			at("key", f.Line, f.Key)
		}
		for _, x := range raw.Prefill {
			at("prefill", x.Line, x.Context)
		}
		for _, c := range raw.Matrix {
			at("matrix cell", c.Line, c.TokS+c.Glued)
		}
		for _, r := range raw.Table.Rows {
			at("row", r.Line, r.cells(nil)[4])
		}
		if len(raw.Matrix) != 40 || len(raw.Prefill) != 6 || len(raw.Table.Rows) != 46 || len(raw.Fields) != 18 {
			t.Errorf("%s: %d cells, %d prefill, %d rows, %d fields; want 40, 6, 46, 18", p, len(raw.Matrix), len(raw.Prefill), len(raw.Table.Rows), len(raw.Fields))
		}
	}
}

// fxFuzzSeeds adds the fixtures and seeds of a format to a fuzz corpus.
func fxFuzzSeeds(f *testing.F, exts ...string) {
	for _, dir := range []string{filepath.Join("testdata", "forms"), filepath.Join("testdata", "serve"), filepath.Join("..", "testdata", "seeds")} {
		for _, ext := range exts {
			paths, _ := filepath.Glob(filepath.Join(dir, "*"+ext))
			for _, p := range paths {
				b, err := os.ReadFile(p)
				if err != nil {
					f.Fatal(err)
				}
				addSeed(f, b)
			}
		}
	}
}

// maxFuzzSeed bounds the seeds given to the fuzzing engine (go test
// -fuzz). Note: with whole documents (8–18 KB) as seeds the engine spent a
// 3-minute run minimizing them and ran 5–43 inputs; the small cases of
// each format cover the same paths. Plain go test still runs every seed.
const maxFuzzSeed = 2 << 10

// addSeed adds b to the seed corpus, unless the engine is fuzzing and b
// is larger than maxFuzzSeed.
func addSeed(f *testing.F, b []byte) {
	if fuzzing() && len(b) > maxFuzzSeed {
		return
	}
	f.Add(b)
}

// fuzzing reports whether the test binary runs a fuzz target's engine
// (-test.fuzz set), not only its seed corpus.
func fuzzing() bool {
	fl := flag.Lookup("test.fuzz")
	return fl != nil && fl.Value.String() != ""
}

// fxFuzzParse parses b and requires a matrix or a positioned *Error
// naming the file, never a panic.
func fxFuzzParse(t *testing.T, b []byte, format string) {
	m, err := ParseBytes(b, "fuzz.doc", format)
	if err != nil {
		var pe *Error
		if !errors.As(err, &pe) || pe.File != "fuzz.doc" {
			t.Fatalf("error %v (%T) is not a *Error naming the file", err, err)
		}
		return
	}
	if len(m.Measurements) == 0 {
		t.Fatalf("a matrix without measurements")
	}
}

func FuzzParseHTML(f *testing.F) {
	fxFuzzSeeds(f, ".html", ".txt")
	for _, c := range fxHTMLCases {
		f.Add([]byte(c.doc))
	}
	for _, c := range fxHTMLErrors {
		f.Add([]byte(c.doc))
	}
	f.Fuzz(func(t *testing.T, b []byte) { fxFuzzParse(t, b, schema.FormatHTML) })
}

func BenchmarkParseHTML(b *testing.B) {
	fxBench(b, ".html", schema.FormatHTML)
}

// fxBench parses each fixture of a format, reporting MB/s.
func fxBench(b *testing.B, ext, format string) {
	paths, _ := filepath.Glob(filepath.Join("testdata", "forms", "*"+ext))
	for _, p := range paths {
		doc, err := os.ReadFile(p)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(filepath.Base(p), func(b *testing.B) {
			b.SetBytes(int64(len(doc)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := ParseBytes(doc, p, format); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
