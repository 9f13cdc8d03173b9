package parse

import (
	"strings"
	"testing"

	"speedmatrix/schema"
)

const fxMDFull = `
## All measurements

| Phase | Context | Requests at once | Status | Total tok/s | TTFT |
|---|---|---|---|---|---|
| Prefill | 8K | 1 | Valid | 55K | 149 ms |
| Sustained decode | 8K | 1 | Valid | 325.2 | 41 ms |
| Sustained decode | 8K | 2 | Looped | — | — |
`

const fxMDMatrix = `
## Sustained decode

| Context | 1 | 2 |
|---|--:|--:|
| 8K | 325.2 · 41 ms | Looped |
`

const fxMDPrefill = `
## Prefill

- 8K context: 55K tok/s, 149 ms TTFT
`

var fxMDCases = []fxCase{
	{
		name: "bold keys, fenced launch, prefill list, middle-dot cells",
		doc: `*Speed test matrix*

# ` + fxTitle + `

vllm · 0.27.2 · BF16

## Hardware

- **GPU:** H200 NVL
- **VRAM:** 141 GB

## Launch command

` + "```sh\nvllm serve x --tensor-parallel-size 2\n```\n" + fxMDPrefill + fxMDMatrix + fxMDFull,
		want: fxWant{title: fxTitle, subtitle: "vllm · 0.27.2 · BF16", launch: "vllm serve x --tensor-parallel-size 2",
			fields: []string{"Hardware/GPU=H200 NVL", "Hardware/VRAM=141 GB"}, prefill: fxPrefill, matrix: fxMatrix, rows: fxRows},
	},
	{
		name: "setext headings, plain key lists, two-column table with a pair as header, escapes, CRLF",
		doc: strings.ReplaceAll(fxTitle+`
=====

vllm &middot; 0.27.2

Engine
------

* Engine: vllm
* Build: cuda-13.2 \| nightly

### Run ###

| Served model | ling |
| --- | --- |
| Revision | main |

### Prefill

| Context | Prompt tok/s | TTFT |
|---|---|---|
| 8K | 55K | 149 ms |

### Sustained decode

| Context | 1 | 2 |
| --- | --- | --- |
| **8K** | 325.2 tok/s<br>41 ms TTFT | *Looped* |
`+fxMDFull, "\n", "\r\n"),
		want: fxWant{title: fxTitle, subtitle: "vllm · 0.27.2",
			fields:  []string{"Engine/Engine=vllm", "Engine/Build=cuda-13.2 | nightly", "Run/Served model=ling", "Run/Revision=main"},
			prefill: fxPrefill, matrix: fxMatrix, rows: fxRows},
	},
	{
		name: "prefill lines in a paragraph, inline-code launch, transposed glued matrix, nested list",
		doc: `# ` + fxTitle + `

## Run

- Settings
  - Served model: ling
  - **Decode test**: Fixed duration

## Launch command

` + "`vllm serve z`" + `

## Prefill

prompt tok/s by context length
8K context — 55K · 149 ms TTFT

## Sustained decode

| Requests | 8K |
|---|---|
| 1 | 325.241 ms TTFT |
| 2 | Looped |
` + fxMDFull,
		want: fxWant{title: fxTitle, launch: "vllm serve z",
			fields:  []string{"Run/Served model=ling", "Run/Decode test=Fixed duration"},
			prefill: fxPrefill, matrix: []string{"8K×1:  |  | 325.241 ms TTFT", "8K×2:  |  | Looped"}, rows: fxRows},
	},
	{
		name: "heading attributes, prefill table with a column per context",
		doc: `# ` + fxTitle + ` {#top}

## Engine {#engine .card}

- Engine: vllm

## Prefill

|  | 8K |
|---|---|
| Prompt tok/s | 55K |
| TTFT | 149 ms |
` + fxMDMatrix + fxMDFull,
		want: fxWant{title: fxTitle, fields: []string{"Engine/Engine=vllm"}, prefill: []string{"8K: 55K | 149 ms | "}, matrix: fxMatrix, rows: fxRows},
	},
	{
		name: "YAML front matter",
		doc: `---
title: "` + fxTitle + `"
gpu: H200 NVL
tags: [bench]
---

` + fxMDMatrix + fxMDFull,
		want: fxWant{title: fxTitle, fields: []string{"/gpu=H200 NVL", "/tags=[bench]"}, matrix: fxMatrix, rows: fxRows},
	},
	{
		name: "section named in a table header, dash-separated pairs",
		doc: `# ` + fxTitle + `

| Hardware | |
|---|---|
| GPU | H200 NVL |

## Run

- Served model — ling
- Prefill mode - Measured during decode warm-up
- Build: cuda-13.2
` + fxMDFull,
		want: fxWant{title: fxTitle, rows: fxRows,
			fields: []string{"Hardware/GPU=H200 NVL", "Run/Served model=ling", "Run/Prefill mode=Measured during decode warm-up", "Run/Build=cuda-13.2"}},
	},
	{
		name: "HTML table pasted into the Markdown, emphasized headings",
		doc: `# ` + fxTitle + `

## **Hardware**

- GPU: H200 NVL

## Sustained decode

<table>
<tr><th>Context</th><th>1</th><th>2</th></tr>
<tr><td>8K</td><td><b>325.2</b><br>41 ms TTFT</td><td>Looped</td></tr>
</table>
` + fxMDPrefill + fxMDFull,
		want: fxWant{title: fxTitle, fields: []string{"Hardware/GPU=H200 NVL"}, prefill: fxPrefill, matrix: fxMatrix, rows: fxRows},
		// A leading Markdown heading wins over the embedded <table>.
	},
}

func TestExtractMarkdownLayouts(t *testing.T) {
	fxRunCases(t, schema.FormatMarkdown, fxMDCases)
}

var fxMDErrors = []fxErrorCase{
	{name: "empty", doc: "", msg: []string{"no title"}},
	{name: "no title", doc: "some text\n\n- a list\n", msg: []string{"no title", "# heading"}},
	{name: "no full table", doc: "# " + fxTitle + "\n\ntext\n\n## All measurements\n\nsoon\n", at: "## All", msg: []string{"no All measurements table"}},
	{name: "decode table that is not a matrix", doc: "# " + fxTitle + "\n\n## Sustained decode\n\n| a | b | c |\n|---|---|---|\n| 1 | 2 | 3 |\n" + fxMDFull,
		at: "| a | b", msg: []string{"Sustained decode: the table is not a matrix"}},
	{name: "matrix disagrees with the table", doc: "# " + fxTitle + "\n" + strings.Replace(fxMDMatrix, "325.2", "352.2", 1) + fxMDFull,
		at: "352.2", names: []fxLineOf{{"| 325.2 |", 1}}, msg: []string{"decode 8K×1", "352.2", "325.2"}},
	{name: "matrix TTFT disagrees", doc: "# " + fxTitle + "\n" + strings.Replace(fxMDMatrix, "41 ms", "14 ms", 1) + fxMDFull,
		at: "14 ms", names: []fxLineOf{{"| 325.2 |", 1}}, msg: []string{"decode 8K×1", "TTFT 14 ms", "41 ms"}},
	{name: "prefill disagrees with the table", doc: "# " + fxTitle + "\n" + strings.Replace(fxMDPrefill, "55K", "65K", 1) + fxMDFull,
		at: "65K", names: []fxLineOf{{"| Prefill |", 1}}, msg: []string{"prefill 8K", "65K", "55K"}},
	{name: "contradictory row", doc: "# " + fxTitle + "\n" + fxMDFull + "| Prefill | 8K | 1 | Valid | 56K | 149 ms |\n",
		at: "56K", names: []fxLineOf{{"| Prefill |", 1}}, msg: []string{"duplicated row", "contradicts"}},
	{name: "garbled number", doc: "# " + fxTitle + "\n" + strings.Replace(fxMDFull, "325.2", "32x5.2", 1),
		at: "32x5.2", msg: []string{"Total tok/s"}},
	{name: "link brackets that would make goldmark slow", doc: "# " + fxTitle + "\n\n" + strings.Repeat("[a](", 600) + "\n" + fxMDFull,
		at: "[a](", msg: []string{"link brackets"}},
	{name: "deeply nested quotes", doc: "# " + fxTitle + "\n\n" + strings.Repeat("> ", 40) + "x\n" + fxMDFull,
		at: "> >", msg: []string{"block quotes"}},
	{name: "deeply nested lists", doc: "# " + fxTitle + "\n\n" + strings.Repeat("  - x\n", 3) + strings.Repeat(" ", 300) + "- x\n" + strings.Repeat("-", 400) + "\n" + fxMDFull,
		at: "      - x", msg: []string{"columns in"}},
	{name: "truncated table row", doc: "# " + fxTitle + "\n" + strings.Replace(fxMDFull, "| 41 ms |", "", 1),
		at: "| Sustained decode | 8K | 1 |", msg: []string{"cells"}},
}

func TestExtractMarkdownErrors(t *testing.T) {
	fxRunErrors(t, schema.FormatMarkdown, fxMDErrors)
}

// TestUnescapeMarkdown checks backslash escapes and character references.
func TestUnescapeMarkdown(t *testing.T) {
	for in, want := range map[string]string{
		`a \| b`:            "a | b",
		`\*not emphasis\*`:  "*not emphasis*",
		`&middot; &#8212;`:  "· —",
		`\&amp; stays`:      "&amp; stays",
		`C:\path\to`:        `C:\path\to`,
		`trailing \`:        `trailing \`,
		`5&nbsp;ms`:         "5\u00a0ms",
		`no escapes at all`: "no escapes at all",
	} {
		if got := unescapeMarkdown([]byte(in)); got != want {
			t.Errorf("unescapeMarkdown(%q) = %q, want %q", in, got, want)
		}
	}
}

func FuzzParseMarkdown(f *testing.F) {
	fxFuzzSeeds(f, ".md", ".txt")
	for _, c := range fxMDCases {
		f.Add([]byte(c.doc))
	}
	for _, c := range fxMDErrors {
		f.Add([]byte(c.doc))
	}
	f.Fuzz(func(t *testing.T, b []byte) { fxFuzzParse(t, b, schema.FormatMarkdown) })
}

func BenchmarkParseMarkdown(b *testing.B) {
	fxBench(b, ".md", schema.FormatMarkdown)
}
