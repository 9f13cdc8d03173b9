package parse

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"speedmatrix/schema"
)

// miniDoc is a one-cell document: the matrix cell is on line 6, the
// table row on line 10.
func miniDoc(cell, status, tok, ttft string) string {
	return fmt.Sprintf(`Speed test matrix
M on G 80GB
Sustained decode
total tok/s · rows are context length, columns are simultaneous requests| Context | 1 |
|---|---|
| 8K | %s |
All measurements
Latencies are medians.| Phase | Context | Requests at once | Status | Total tok/s | TTFT |
|---|---|---|---|---|---|
| Sustained decode | 8K | 1 | %s | %s | %s |
`, cell, status, tok, ttft)
}

// readCell extracts a mini document and returns how its matrix cell was
// read against its table row.
func readCell(t *testing.T, doc string) (*cellReading, error) {
	t.Helper()
	raw, err := extractText([]byte(doc), "mini.txt")
	if err != nil {
		return nil, err
	}
	raw.Name = "mini.txt"
	rows, err := buildRows(raw)
	if err != nil {
		return nil, err
	}
	if len(raw.Matrix) != 1 || len(rows) != 1 {
		t.Fatalf("mini document: %d cells, %d rows; want 1 and 1", len(raw.Matrix), len(rows))
	}
	c := raw.Matrix[0]
	return agree(raw.Name, figure{what: "decode 8K×1", source: "matrix", line: c.Line, tok: c.TokS, ttft: c.TTFT, glued: c.Glued}, rows[0], colTotal)
}

func TestBuildRowErrors(t *testing.T) {
	head := "All measurements\n| Phase | Context | Requests at once | Status | Total tok/s | TTFT |\n|---|---|---|---|---|---|\n"
	tests := []struct {
		name, rows string
		line       int
		want       string
	}{
		{"unknown phase", "| Warmup | 8K | 1 | Valid | 1 | 1 ms |\n", 4, `unknown phase "Warmup"`},
		{"unknown status", "| Decode | 8K | 1 | Fine | 1 | 1 ms |\n", 4, `unknown status "Fine"`},
		{"garbled tok/s", "| Decode | 8K | 1 | Valid | 1,62.8 | 1 ms |\n", 4, `column "Total tok/s": malformed number "1,62.8"`},
		{"garbled ttft", "| Decode | 8K | 1 | Valid | 1 | 4x1 ms |\n", 4, `column "TTFT"`},
		{"wrong unit", "| Decode | 8K | 1 | Valid | 1 GB | 1 ms |\n", 4, `unit "GB" is not tok/s`},
		{"bad context", "| Decode | big | 1 | Valid | 1 | 1 ms |\n", 4, `context "big"`},
		{"bad concurrency", "| Decode | 8K | 0 | Valid | 1 | 1 ms |\n", 4, `"0" is not a number of requests`},
		{"short row", "| Decode | 8K | 1 | Valid | 1 |\n", 4, "row has 5 cells, the All measurements header at line 2 has 6"},
		{"valid without figure", "| Decode | 8K | 1 | Valid | — | 1 ms |\n", 4, "status Valid but no Total tok/s"},
		{"decode without requests", "| Decode | 8K | — | Valid | 1 | 1 ms |\n", 4, "without a number of simultaneous requests"},
		{"duplicate", "| Decode | 8K | 1 | Valid | 1 | 1 ms |\n| Decode | 8K | 1 | Valid | 1 | 1 ms |\n", 5, "decode 8K×1: duplicated row: line 5 repeats line 4"},
		{"contradiction", "| Decode | 8K | 1 | Valid | 1 | 1 ms |\n| Sustained decode | 8192 | 1 | Valid | 2 | 1 ms |\n", 5, "line 5 contradicts"},
		{"no rows", "", 2, "no rows"},
	}
	for _, tt := range tests {
		_, err := ParseBytes([]byte(head+tt.rows), "t.txt", schema.FormatText)
		var pe *Error
		if !errors.As(err, &pe) || pe.Line != tt.line || pe.File != "t.txt" || !strings.Contains(pe.Msg, tt.want) {
			t.Errorf("%s: error %v, want t.txt:%d: …%s…", tt.name, err, tt.line, tt.want)
		}
	}
}

func TestBuildMatrixLayouts(t *testing.T) {
	table := `All measurements
| Phase | Context | Requests at once | Status | Total tok/s | Per request tok/s | TTFT |
|---|---|---|---|---|---|---|
| Decode | 8K | 1 | Valid | 300.0 | 300.0 | 40 ms |
| Decode | 8K | 2 | Valid | 500.0 | 250.0 | 60 ms |
| Decode | 16K | 1 | Valid | 280.0 | 280.0 | 80 ms |
| Decode | 16K | 2 | Looped | — | — | — |
`
	tests := []struct {
		name, matrix string
		want         string // "" for no error
	}{
		{"rows are contexts", "Sustained decode\ntotal tok/s| Context | 1 | 2 |\n|---|---|---|\n| 8K | 300.040 ms TTFT | 500.060 ms TTFT |\n| 16K | 280.080 ms TTFT | Looped |\n", ""},
		{"transposed", "Sustained decode\ntotal tok/s| Requests | 8K | 16K |\n|---|---|---|\n| 1 | 300.040 ms TTFT | 280.080 ms TTFT |\n| 2 | 500.060 ms TTFT | Looped |\n", ""},
		{"transposed, blank corner", "Sustained decode\n|  | 8K | 16K |\n|---|---|---|\n| 1 | 300.040 ms TTFT | 280.080 ms TTFT |\n| 2 | 500.060 ms TTFT | Looped |\n", ""},
		{"transposed and wrong", "Sustained decode\n| Requests | 8K | 16K |\n|---|---|---|\n| 1 | 300.040 ms TTFT | 280.080 ms TTFT |\n| 2 | 280.080 ms TTFT | Looped |\n",
			"m.txt:6: decode 8K×2: matrix cell \"280.080 ms TTFT\" agrees with neither the tok/s (500.0) nor the TTFT (60 ms) of All measurements line 11"},
		{"per-request caption", "Sustained decode\nper request tok/s · rows are context length| Context | 1 | 2 |\n|---|---|---|\n| 8K | 300.040 ms TTFT | 250.060 ms TTFT |\n| 16K | 280.080 ms TTFT | Looped |\n", ""},
		{"per-request figures against total", "Sustained decode\ntotal tok/s| Context | 1 | 2 |\n|---|---|---|\n| 8K | 300.040 ms TTFT | 250.060 ms TTFT |\n| 16K | 280.080 ms TTFT | Looped |\n",
			"decode 8K×2: matrix says 250.0 tok/s, All measurements line 11 says 500.0"},
		{"dash cell without a row", "Sustained decode\n| Context | 1 | 2 | 4 |\n|---|---|---|---|\n| 8K | 300.040 ms TTFT | 500.060 ms TTFT | — |\n| 16K | 280.080 ms TTFT | Looped | — |\n", ""},
		{"short matrix row", "Sustained decode\n| Context | 1 | 2 |\n|---|---|---|\n| 8K | 300.040 ms TTFT |\n", "m.txt:5: decode matrix row has 2 cells, its header at line 3 has 3"},
	}
	for _, tt := range tests {
		doc := "M on G\n" + tt.matrix + table
		_, err := ParseBytes([]byte(doc), "m.txt", schema.FormatText)
		if tt.want == "" && err != nil || tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)) {
			t.Errorf("%s: error %v, want %q", tt.name, err, tt.want)
		}
	}
}

// TestBuildContextTokensAlone: a table whose only context column is
// context_tokens reads it as the context.
func TestBuildContextTokensAlone(t *testing.T) {
	doc := "All measurements\n| Phase | context_tokens | Requests at once | Status | Total tok/s |\n|---|---|---|---|---|\n| Decode | 8192 | 1 | Valid | 300.0 |\n"
	m, err := ParseBytes([]byte(doc), "c.txt", schema.FormatText)
	if err != nil {
		t.Fatal(err)
	}
	if x := m.Measurements[0]; x.ContextLabel != "8192" || *x.ContextTokens != 8192 {
		t.Errorf("context %q %v", x.ContextLabel, fmtPtr64(x.ContextTokens))
	}
}

func fmtPtr64(p *int64) string {
	if p == nil {
		return "null"
	}
	return fmt.Sprint(*p)
}

// TestBuildRowIdentity: repeats of one cell and serve rows at several
// request rates are distinct rows; the same cell, repeat and rate twice
// is a duplicate naming both lines; the matrix shows a repeated cell's
// first row.
func TestBuildRowIdentity(t *testing.T) {
	head := "All measurements\n| Phase | Context | Requests at once | Status | Total tok/s | TTFT | repeat | request_rate |\n|---|---|---|---|---|---|---|---|\n"
	matrix := "Sustained decode\n| Context | 1 |\n|---|---|\n| 8K | 300.041 ms TTFT |\n"
	tests := []struct {
		name, doc string
		rows      int
		wantErr   string
	}{
		{"repeats", head + "| Decode | 8K | 1 | Valid | 300.0 | 41 ms | 0 | — |\n| Decode | 8K | 1 | Valid | 310.0 | 40 ms | 1 | — |\n", 2, ""},
		{"repeats and the matrix shows the first", matrix + head + "| Decode | 8K | 1 | Valid | 300.0 | 41 ms | 0 | — |\n| Decode | 8K | 1 | Valid | 310.0 | 40 ms | 1 | — |\n", 2, ""},
		{"the matrix against a later repeat", matrix + head + "| Decode | 8K | 1 | Valid | 310.0 | 40 ms | 0 | — |\n| Decode | 8K | 1 | Valid | 300.0 | 41 ms | 1 | — |\n", 0,
			"d.txt:5: decode 8K×1: matrix cell \"300.041 ms TTFT\" agrees with neither"},
		{"same repeat twice", head + "| Decode | 8K | 1 | Valid | 300.0 | 41 ms | 1 | — |\n| Decode | 8K | 1 | Valid | 310.0 | 40 ms | 1 | — |\n", 0,
			"d.txt:6: decode 8K×1 repeat 1: duplicated row: line 6 contradicts (Total tok/s \"310.0\" vs \"300.0\") line 5"},
		{"serve rate sweep", head + "| Serve | 1K | — | Valid | 900.0 | 41 ms | — | 1 |\n| Serve | 1K | — | Valid | 1,800.0 | 45 ms | — | 2 |\n| serve | 1K | — | Valid | 2,000.0 | 60 ms | — | inf |\n", 3, ""},
		{"serve rate twice", head + "| Serve | 1K | — | Valid | 900.0 | 41 ms | — | 2 |\n| Serve | 1K | — | Valid | 900.0 | 41 ms | — | 2 |\n", 0,
			"d.txt:6: serve 1K at 2 req/s: duplicated row: line 6 repeats line 5"},
		{"serve at concurrencies", head + "| Serve | 509 | 8 | Valid | 900.0 | 41 ms | — | inf |\n| Serve | 509 | 16 | Valid | 1,600.0 | 45 ms | — | inf |\n", 2, ""},
		{"contexts without K", head + "| Serve | 0 | 1 | Valid | 900.0 | 41 ms | — | — |\n| Serve | 509 | 1 | Valid | 800.0 | 41 ms | — | — |\n", 2, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := ParseBytes([]byte("M on G\n"+tt.doc), "d.txt", schema.FormatText)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(m.Measurements) != tt.rows {
				t.Fatalf("%d rows, want %d", len(m.Measurements), tt.rows)
			}
		})
	}
}

func TestBuildServeRows(t *testing.T) {
	doc := "M on G\nAll measurements\n| Phase | Context | Requests at once | Status | Total tok/s | request_rate |\n|---|---|---|---|---|---|\n" +
		"| Serve | 509 | — | Valid | 900.0 | 4 |\n| Serve | 0 | 8 | Error | — | — |\n"
	m, err := ParseBytes([]byte(doc), "s.txt", schema.FormatText)
	if err != nil {
		t.Fatal(err)
	}
	a, b := m.Measurements[0], m.Measurements[1]
	if a.Phase != schema.PhaseServe || a.ContextLabel != "509" || *a.ContextTokens != 509 || a.Concurrency != nil || *a.RequestRate != 4 {
		t.Errorf("row 0: %+v", a)
	}
	if b.Phase != schema.PhaseServe || b.ContextLabel != "0" || *b.ContextTokens != 0 || *b.Concurrency != 8 || b.RequestRate != nil || b.Status != schema.StatusError {
		t.Errorf("row 1: %+v", b)
	}
}

// TestPhaseKey checks that every phase parsePhase reads has a key of its
// own: rows of different phases never share a tableCell.
func TestPhaseKey(t *testing.T) {
	keys := map[int32]schema.Phase{}
	for _, printed := range []string{"Prefill", "prompt", "Prompt processing", "pp", "Sustained decode", "Decode", "generation", "tg",
		"Decode, sustained", "Serve", "serving", "Serve benchmark", "Prefill (prompt processing)"} {
		p, ok := parsePhase(printed)
		if !ok {
			t.Fatalf("parsePhase(%q) reads no phase", printed)
		}
		k := phaseKey(p)
		if q, seen := keys[k]; k == 0 || seen && q != p {
			t.Errorf("phase %q has key %d (%q has it too)", p, k, keys[k])
		}
		keys[k] = p
	}
	if len(keys) != 3 {
		t.Errorf("%d phases read, want prefill, decode and serve", len(keys))
	}
}
