package parse

import (
	"testing"
)

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
