package parse

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"speedmatrix/schema"
)

func TestTextExtractSeed(t *testing.T) {
	raw, err := extractText(readSeed(t, seed000), "000.txt")
	if err != nil {
		t.Fatal(err)
	}
	if raw.Title != "Ling-3.0-tiny-int4 on RTX PRO 6000 Blackwell Server Edition 96GB" || raw.TitleLine != 2 {
		t.Errorf("title %q at line %d", raw.Title, raw.TitleLine)
	}
	if !strings.HasPrefix(raw.Subtitle, "vllm · 0.30.1rc1.dev452+g73a583112 · INT45 contexts (8K–123K) × 8") || raw.SubtitleLine != 3 {
		t.Errorf("subtitle %q at line %d", raw.Subtitle, raw.SubtitleLine)
	}
	if len(raw.Fields) != 18 {
		t.Errorf("%d fields, want 18: %+v", len(raw.Fields), raw.Fields)
	}
	commit := rawField{Section: "Engine", Key: "Commit", Value: "73a5831127a9", Line: 26}
	found := false
	for _, f := range raw.Fields {
		found = found || f == commit
	}
	if !found {
		t.Errorf("no field %+v in %+v", commit, raw.Fields)
	}
	if !strings.HasPrefix(raw.Launch, `env MAX_JOBS=2 "$HOME/`) || raw.LaunchLine != 44 {
		t.Errorf("launch %q at line %d", raw.Launch, raw.LaunchLine)
	}
	if len(raw.Prefill) != 6 || raw.Prefill[0] != (rawPrefill{Context: "8K", Glued: "55K149 ms TTFT", Line: 46}) ||
		raw.Prefill[5] != (rawPrefill{Context: "128K", Glued: "34.6K3,722 ms TTFT", Line: 51}) {
		t.Errorf("prefill %+v", raw.Prefill)
	}
	if len(raw.Matrix) != 40 || raw.MatrixLine != 53 ||
		raw.Matrix[7] != (rawCell{Context: "8K", Concurrency: "128", Glued: "6,091.1783 ms TTFT", Line: 55}) ||
		raw.Matrix[39] != (rawCell{Context: "123K", Concurrency: "128", Glued: "Over capacity", Line: 59}) {
		t.Errorf("matrix at %d: %d cells, [7]=%+v [39]=%+v", raw.MatrixLine, len(raw.Matrix), raw.Matrix[7], raw.Matrix[39])
	}
	if !strings.HasPrefix(raw.MatrixCaption, "total tok/s") {
		t.Errorf("matrix caption %q", raw.MatrixCaption)
	}
	if raw.Table.HeaderLine != 63 || len(raw.Table.Header) != 12 || raw.Table.Header[0] != "Phase" || len(raw.Table.Rows) != 46 || raw.Table.Rows[0].Line != 65 {
		t.Errorf("table header %v at %d, %d rows", raw.Table.Header, raw.Table.HeaderLine, len(raw.Table.Rows))
	}
}

// edit applies a regexp replacement to a seed and fails when it matches
// nothing, so a variant cannot silently equal the seed.
type edit struct{ re, repl string }

func applyEdits(t *testing.T, b []byte, edits []edit) []byte {
	t.Helper()
	s := string(b)
	for _, e := range edits {
		re := regexp.MustCompile(e.re)
		if !re.MatchString(s) {
			t.Fatalf("edit %q matches nothing", e.re)
		}
		s = re.ReplaceAllString(s, e.repl)
	}
	return []byte(s)
}

// TestTextVariants parses layouts that are not in the repository: each
// variant of seed 000 must parse, with the rows and fields it implies.
func TestTextVariants(t *testing.T) {
	tests := []struct {
		name    string
		edits   []edit
		crlf    bool
		rows    int
		fields  int
		prefill int
		cells   int
		check   func(t *testing.T, m *schema.Matrix)
	}{
		{name: "as is", rows: 46, fields: 18, prefill: 6, cells: 40},
		{name: "windows line endings", crlf: true, rows: 46, fields: 18, prefill: 6, cells: 40},
		{name: "no prefill section", edits: []edit{{`(?s)Prefill\n.*?(Sustained decode\n)`, "$1"}}, rows: 46, fields: 18, cells: 40},
		{name: "no decode matrix", edits: []edit{{`(?s)Sustained decode\n.*?(All measurements\n)`, "$1"}}, rows: 46, fields: 18, prefill: 6},
		{name: "no launch command", edits: []edit{{`(?m)^Launch command\n.*\n`, ""}}, rows: 46, fields: 18, prefill: 6, cells: 40,
			check: func(t *testing.T, m *schema.Matrix) {
				if m.Run.LaunchCommand != "" || m.Run.ModelID != "" || len(m.Run.LaunchFlags) != 0 {
					t.Errorf("launch %q, model id %q", m.Run.LaunchCommand, m.Run.ModelID)
				}
			}},
		{name: "no hardware section", edits: []edit{{`(?s)Hardware\n.*?(Engine\n)`, "$1"}}, rows: 46, fields: 14, prefill: 6, cells: 40,
			check: func(t *testing.T, m *schema.Matrix) {
				if m.Run.GPU != "RTX PRO 6000 Blackwell Server Edition" || *m.Run.VRAMGB != 96 {
					t.Errorf("gpu %q vram %v from the title", m.Run.GPU, m.Run.VRAMGB)
				}
			}},
		{name: "unknown section and extra keys", edits: []edit{
			{`(?m)^Launch command$`, "Cooling\n- Method\n- Liquid\n- Inlet temperature\n- 25 °C\nLaunch command"},
			{`(?m)^- OS\n- linux$`, "- OS\n- linux\n- Driver\n- 580.65"},
		}, rows: 46, fields: 21, prefill: 6, cells: 40,
			check: func(t *testing.T, m *schema.Matrix) {
				want := []schema.Field{{Section: "Hardware", Key: "Driver", Value: "580.65"}, {Section: "Cooling", Key: "Method", Value: "Liquid"}, {Section: "Cooling", Key: "Inlet temperature", Value: "25 °C"}}
				got := fmt.Sprint(m.Run.Metadata)
				for _, w := range want {
					if !strings.Contains(got, fmt.Sprint(w)) {
						t.Errorf("metadata lacks %v: %s", w, got)
					}
				}
			}},
		{name: "fewer contexts", edits: []edit{
			{`(?m)^\| 123K \|.*\n`, ""},
			{`(?m)^\| Sustained decode \| 123K \|.*\n`, ""},
		}, rows: 38, fields: 18, prefill: 6, cells: 32},
		{name: "more concurrencies", edits: []edit{
			{`\| 64 \| 128 \|\n\|---\|---\|---\|---\|---\|---\|---\|---\|---\|`, "| 64 | 128 | 256 |\n|---|---|---|---|---|---|---|---|---|---|"},
			{`(?m)^(\| 8K \|.*\| 6,091.1783 ms TTFT \|)$`, "$1 7,001.0900 ms TTFT |"},
			{`(?m)^(\| (16|32|64|123)K \|.*)$`, "$1 Over capacity |"},
			{`(?m)^(\| Sustained decode \| 8K \| 128 \|.*\n)`, "$1| Sustained decode | 8K | 256 | Valid | 7,001.0 | 27.3 | 900 ms | 30.0 ms | 256.0 | 0 | 210,030 | 30.0 s |\n"},
			{`(?m)^(\| Sustained decode \| (16|32|64|123)K \| 128 \|.*\n)`, "$1| Sustained decode | ${2}K | 256 | Over capacity | — | — | — | — | — | — | — | — |\n"},
		}, rows: 51, fields: 18, prefill: 6, cells: 45,
			check: func(t *testing.T, m *schema.Matrix) {
				x := find(t, m, schema.PhaseDecode, "8K", 256)
				if *x.TotalTokS != 7001 || *x.TTFTMs != 900 {
					t.Errorf("8K×256 = %v tok/s %v ms", *x.TotalTokS, *x.TTFTMs)
				}
			}},
		{name: "sections in another order", edits: []edit{
			{`(?s)(Hardware\n.*?)(Launch command\n.*?)(Sustained decode\n)`, "$2$1$3"},
		}, rows: 46, fields: 18, prefill: 6, cells: 40},
		{name: "no kicker line, blank lines, indentation", edits: []edit{
			{`^Speed test matrix\n`, ""},
			{`(?m)^(Hardware|Engine|Run)$`, "\n$1\n"},
			{`(?m)^- `, "  - "},
		}, rows: 46, fields: 18, prefill: 6, cells: 40,
			check: func(t *testing.T, m *schema.Matrix) {
				if m.Run.Title != "Ling-3.0-tiny-int4 on RTX PRO 6000 Blackwell Server Edition 96GB" || m.Run.EngineCommit != "73a5831127a9" {
					t.Errorf("title %q commit %q", m.Run.Title, m.Run.EngineCommit)
				}
			}},
		{name: "table header on its own line", edits: []edit{
			{`medians\. Total tok/s is output across all simultaneous requests\.\|`, "medians.\n|"},
			{`simultaneous requests\| Context`, "simultaneous requests\n| Context"},
		}, rows: 46, fields: 18, prefill: 6, cells: 40},
		{name: "one-line pairs, with and without dashes", edits: []edit{
			{`(?m)^- (Type|GPU|VRAM|OS)\n- (.*)$`, "- $1: $2"},
			{`(?m)^- (Served model|Revision)\n- (.*)$`, "$1: $2"},
		}, rows: 46, fields: 18, prefill: 6, cells: 40,
			check: func(t *testing.T, m *schema.Matrix) {
				if m.Run.GPU != "RTX PRO 6000 Blackwell Server Edition" || *m.Run.VRAMGB != 96 || m.Run.ServedModel != "ling" || m.Run.Revision != "main" || m.Run.OS != "linux" {
					t.Errorf("gpu %q vram %v served %q revision %q os %q", m.Run.GPU, *m.Run.VRAMGB, m.Run.ServedModel, m.Run.Revision, m.Run.OS)
				}
			}},
		{name: "continued launch command, then an unknown section", edits: []edit{
			{` --served-model-name ling `, " \\\n  --served-model-name ling \\\n  "},
			{`(?m)^Prefill$`, "Notes\n- Cooling\n- air\nPrefill"},
		}, rows: 46, fields: 19, prefill: 6, cells: 40,
			check: func(t *testing.T, m *schema.Matrix) {
				if m.Run.ModelID != "inclusionAI/Ling-3.0-tiny-int4" || *m.Run.MaxModelLen != 131072 || strings.Contains(m.Run.LaunchCommand, "Notes") {
					t.Errorf("model id %q, max len %v, command %q", m.Run.ModelID, m.Run.MaxModelLen, m.Run.LaunchCommand)
				}
			}},
		{name: "headings with more words, table in two parts", edits: []edit{
			{`(?m)^All measurements$`, "All measurements (46 cells)"},
			{`(?m)^Sustained decode$`, "Sustained decode throughput"},
			{`(?m)^(\| Prefill \| 128K \|.*)$`, "$1\nDecode rows\n| Phase | Context | Requests at once | Status | Total tok/s | Per request tok/s | TTFT | Time between tokens | Average active requests | Completed requests | Output tokens | Measured for |\n|---|---|---|---|---|---|---|---|---|---|---|---|"},
		}, rows: 46, fields: 18, prefill: 6, cells: 40},
		{name: "tables without outer pipes", edits: []edit{
			{`(?m)^(\| (Context|Phase|8K|16K|32K|64K|123K|Prefill|Sustained decode|---) \|.*)$`, "<<$1>>"},
			{`(?m)<<\| (.*) \|>>`, "$1"},
			{`(?m)^(.*requests\.)\| Phase`, "$1\nPhase"},
			{`(?m)^(total tok/s.*requests)\| Context`, "$1\nContext"},
		}, rows: 46, fields: 18, prefill: 6, cells: 40},
		{name: "prefill cards one element per line", edits: []edit{
			{`(?m)^(prompt tok/s by context length)8K`, "$1\n8K"},
			{`(?m)^(\d+K context)([\d.]+K)([\d,]+ ms TTFT)$`, "$1\n$2\n$3"},
		}, rows: 46, fields: 18, prefill: 6, cells: 40},
		{name: "columns reordered, one dropped, one added", edits: []edit{
			{`\| Phase \| Context \| Requests at once \| Status \|`, "| Context | Phase | Requests at once | Status |"},
			{`(?m)^\| (Prefill|Sustained decode) \| (\d+K) \|`, "| $2 | $1 |"},
		}, rows: 46, fields: 18, prefill: 6, cells: 40},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := applyEdits(t, readSeed(t, seed000), tt.edits)
			if tt.crlf {
				b = []byte(strings.ReplaceAll(string(b), "\n", "\r\n"))
			}
			raw, err := extractText(b, "v.txt")
			if err != nil {
				t.Fatal(err)
			}
			if len(raw.Fields) != tt.fields || len(raw.Prefill) != tt.prefill || len(raw.Matrix) != tt.cells {
				t.Errorf("fields %d prefill %d cells %d, want %d %d %d", len(raw.Fields), len(raw.Prefill), len(raw.Matrix), tt.fields, tt.prefill, tt.cells)
			}
			m, err := ParseBytes(b, "v.txt", "")
			if err != nil {
				t.Fatal(err)
			}
			if len(m.Measurements) != tt.rows {
				t.Errorf("%d rows, want %d", len(m.Measurements), tt.rows)
			}
			if m.Run.SourceFormat != schema.FormatText {
				t.Errorf("detected as %s", m.Run.SourceFormat)
			}
			if tt.check != nil {
				tt.check(t, m)
			}
		})
	}
}

func TestTextCRLFSameRows(t *testing.T) {
	b := readSeed(t, seed001)
	a, err := ParseBytes(b, "a.txt", "")
	if err != nil {
		t.Fatal(err)
	}
	c, err := ParseBytes([]byte(strings.ReplaceAll(string(b), "\n", "\r\n")), "a.txt", "")
	if err != nil {
		t.Fatal(err)
	}
	ja, _ := json.Marshal(a.Measurements)
	jc, _ := json.Marshal(c.Measurements)
	if a.Run.RunID != c.Run.RunID || string(ja) != string(jc) {
		t.Errorf("CRLF changes the parse: %s vs %s", a.Run.RunID, c.Run.RunID)
	}
}

func TestTextSplitRow(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"| a | b |", []string{"a", "b"}},
		{"|a|b", []string{"a", "b"}},
		{`| a \| b | c |`, []string{"a | b", "c"}},
		{"| | x |", []string{"", "x"}},
	}
	for _, tt := range tests {
		if got := splitRow(tt.in); fmt.Sprint(got) != fmt.Sprint(tt.want) {
			t.Errorf("splitRow(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
