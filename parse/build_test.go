package parse

import (
	"errors"
	"fmt"
	"math"
	"reflect"
	"strconv"
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

func TestBuildGluedSplit(t *testing.T) {
	tests := []struct {
		cell, status, tok, ttft string
		wantTok, wantTTFT       string // the reading chosen; both empty for status cells
		wantErr                 string // substring of the error, "" for none
	}{
		{cell: "325.241 ms TTFT", status: "Valid", tok: "325.2", ttft: "41 ms", wantTok: "325.2", wantTTFT: "41 ms"},
		{cell: "5,319.41,644 ms TTFT", status: "Valid", tok: "5,319.4", ttft: "1,644 ms", wantTok: "5,319.4", wantTTFT: "1,644 ms"},
		{cell: "13K780 ms TTFT", status: "Valid", tok: "13K", ttft: "780 ms", wantTok: "13K", wantTTFT: "780 ms"},
		{cell: "11.4K1,372 ms TTFT", status: "Valid", tok: "11.4K", ttft: "1,372 ms", wantTok: "11.4K", wantTTFT: "1,372 ms"},
		{cell: "1,330.01,574 ms TTFT", status: "Valid", tok: "1,330.0", ttft: "1,574 ms", wantTok: "1,330.0", wantTTFT: "1,574 ms"},
		{cell: "334.744 ms TTFT", status: "Valid", tok: "334.7", ttft: "44 ms", wantTok: "334.7", wantTTFT: "44 ms"},
		{cell: "6,091.1783 ms TTFT", status: "Valid", tok: "6,091.1", ttft: "783 ms", wantTok: "6,091.1", wantTTFT: "783 ms"},
		// The same digits split differently when the table says so.
		{cell: "325.241 ms TTFT", status: "Valid", tok: "325.24", ttft: "1 ms", wantTok: "325.24", wantTTFT: "1 ms"},
		// The matrix rounds like the table: 13K is 13,012.3 at its precision.
		{cell: "13K780 ms TTFT", status: "Valid", tok: "13,012.3", ttft: "780 ms", wantTok: "13K", wantTTFT: "780 ms"},
		// Separated forms.
		{cell: "6,091.1 783 ms TTFT", status: "Valid", tok: "6,091.1", ttft: "783 ms", wantTok: "6,091.1", wantTTFT: "783 ms"},
		{cell: "6,091.1 tok/s · 783 ms TTFT", status: "Valid", tok: "6,091.1", ttft: "783 ms", wantTok: "6,091.1", wantTTFT: "783 ms"},
		{cell: "6,091.1", status: "Valid", tok: "6,091.1", ttft: "783 ms", wantTok: "6,091.1"},
		// Status cells.
		{cell: "Looped", status: "Looped", tok: "—", ttft: "—"},
		{cell: "Over capacity", status: "Over capacity", tok: "—", ttft: "—"},
		{cell: "—", status: "Skipped", tok: "—", ttft: "—"},
		// Disagreements.
		{cell: "6,091.1783 ms TTFT", status: "Valid", tok: "6,091.2", ttft: "783 ms",
			wantErr: "mini.txt:6: decode 8K×1: matrix says 6,091.1 tok/s, All measurements line 10 says 6,091.2"},
		{cell: "6,091.1783 ms TTFT", status: "Valid", tok: "6,091.1", ttft: "784 ms",
			wantErr: "mini.txt:6: decode 8K×1: matrix says TTFT 783 ms, All measurements line 10 says 784 ms"},
		{cell: "5,319.41,644 ms TTFT", status: "Valid", tok: "5,319.4", ttft: "644 ms", wantErr: "line 10"},
		{cell: "13K780 ms TTFT", status: "Valid", tok: "12K", ttft: "780 ms", wantErr: "matrix says 13K tok/s, All measurements line 10 says 12K"},
		{cell: "Looped", status: "Valid", tok: "325.2", ttft: "41 ms", wantErr: "mini.txt:6: decode 8K×1: matrix says Looped, All measurements line 10 says Valid"},
		{cell: "325.241 ms TTFT", status: "Over capacity", tok: "—", ttft: "—", wantErr: `matrix says "325.241 ms TTFT", All measurements line 10 says Over capacity`},
		{cell: "Over capacity", status: "Looped", tok: "—", ttft: "—", wantErr: "matrix says Over capacity, All measurements line 10 says Looped"},
		{cell: "—", status: "Valid", tok: "325.2", ttft: "41 ms", wantErr: "matrix has no figure"},
		{cell: "fast", status: "Valid", tok: "325.2", ttft: "41 ms", wantErr: "mini.txt:6: decode 8K×1: matrix cell \"fast\" is not a tok/s figure"},
	}
	for _, tt := range tests {
		name := tt.cell + " vs " + tt.tok + "/" + tt.ttft
		got, err := readCell(t, miniDoc(tt.cell, tt.status, tt.tok, tt.ttft))
		if tt.wantErr != "" {
			var pe *Error
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) || !errors.As(err, &pe) || pe.Line != 6 {
				t.Errorf("%s: error %v, want *Error at line 6 containing %q", name, err, tt.wantErr)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		var gotTok, gotTTFT string
		if got != nil {
			gotTok, gotTTFT = got.tokText, got.ttftText
		}
		if gotTok != tt.wantTok || gotTTFT != tt.wantTTFT {
			t.Errorf("%s: read as %q + %q, want %q + %q", name, gotTok, gotTTFT, tt.wantTok, tt.wantTTFT)
		}
	}
}

func TestBuildSplitGluedCandidates(t *testing.T) {
	tests := []struct {
		in   string
		want []split
	}{
		{"325.241 ms TTFT", []split{{"3", "25.241 ms"}, {"32", "5.241 ms"}, {"325.2", "41 ms"}, {"325.24", "1 ms"}}},
		{"55K149 ms TTFT", []split{{"55K", "149 ms"}}},
		{"13K780 ms TTFT", []split{{"13K", "780 ms"}}},
		{"5,319.41,644 ms TTFT", []split{{"5,319.4", "1,644 ms"}}},
		{"55K 149 ms", []split{{"55K", "149 ms"}}},
		{"1.2K3.5 s", []split{{"1.2K", "3.5 s"}}},
		{"abc", nil},
	}
	for _, tt := range tests {
		var got []split
		for _, r := range readings(splitGlued(tt.in)) {
			got = append(got, split{r.tokText, r.ttftText})
		}
		if fmt.Sprint(got) != fmt.Sprint(tt.want) {
			t.Errorf("readings(splitGlued(%q)) = %v, want %v", tt.in, got, tt.want)
		}
	}
}

func TestBuildHeaderVariants(t *testing.T) {
	doc := `Qwen on 2× H100 80GB
All measurements
| context | PHASE | concurrency | status | Total Tok/s | per-request tok/s | TTFT (ms) | TBT | Avg active requests | Completed | Output tokens | Measured for | p99 TTFT | Notes |
|---|---|---|---|---|---|---|---|---|---|---|---|---|---|
| 8K | Decode | 4 | OK | 1.2K | 300.5 | 41 | 3.1 ms | 4.0 | 8 | 9,756 | 500 ms | 1.2 s | warm |
| 16K | Prefill | 1 | valid | 57.5K | — | 282 | — | — | 1 | — | — | — | — |
| 16K | decode | 8 | Error | — | — | — | — | — | — | — | — | — | timeouts |
| 16K | decode | 16 | Skipped | — | — | — | — | — | — | — | — | — | — |
| 16K | Decode (sustained) | 32 | Over capacity (KV cache) | — | — | — | — | — | — | — | — | — | — |
`
	m, err := ParseBytes([]byte(doc), "variants.txt", schema.FormatText)
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Measurements) != 5 {
		t.Fatalf("%d rows, want 5", len(m.Measurements))
	}
	d := m.Measurements[0]
	check := func(what string, got *float64, want float64) {
		t.Helper()
		if got == nil || *got != want {
			t.Errorf("%s = %v, want %v", what, fmtPtr(got), want)
		}
	}
	if d.Phase != schema.PhaseDecode || d.ContextLabel != "8K" || *d.ContextTokens != 8192 || *d.Concurrency != 4 || d.Status != schema.StatusValid {
		t.Errorf("row 0 = %+v", d)
	}
	check("total", d.TotalTokS, 1200)
	check("per request", d.PerRequestTokS, 300.5)
	check("ttft", d.TTFTMs, 41)
	check("tbt", d.TBTMs, 3.1)
	check("avg active", d.AvgActiveRequests, 4)
	check("measured", d.MeasuredS, 0.5)
	if d.CompletedRequests == nil || *d.CompletedRequests != 8 || d.OutputTokens == nil || *d.OutputTokens != 9756 {
		t.Errorf("counts = %v %v", d.CompletedRequests, d.OutputTokens)
	}
	if len(d.Extra) != 1 || d.Extra[0] != (schema.Metric{Name: "p99_ttft_s", Value: 1.2}) {
		t.Errorf("extra = %+v, want p99_ttft_s 1.2", d.Extra)
	}
	if len(d.Printed) != 14 || d.Printed[13] != (schema.KV{Key: "Notes", Value: "warm"}) || d.Printed[0] != (schema.KV{Key: "context", Value: "8K"}) {
		t.Errorf("printed = %+v", d.Printed)
	}
	if d.SourceLine != 5 {
		t.Errorf("source line %d, want 5", d.SourceLine)
	}
	if m.Measurements[1].Phase != schema.PhasePrefill || *m.Measurements[1].TotalTokS != 57500 {
		t.Errorf("row 1 = %+v", m.Measurements[1])
	}
	if m.Measurements[2].Status != schema.StatusError || m.Measurements[3].Status != schema.StatusSkipped ||
		m.Measurements[4].Status != schema.StatusOverCapacity || m.Measurements[4].Phase != schema.PhaseDecode {
		t.Errorf("statuses %v %v %v", m.Measurements[2].Status, m.Measurements[3].Status, m.Measurements[4].Status)
	}
	if m.Run.Model != "Qwen" || m.Run.GPU != "H100" || m.Run.GPUCount == nil || *m.Run.GPUCount != 2 || *m.Run.VRAMGB != 80 {
		t.Errorf("run from title: model %q gpu %q count %v vram %v", m.Run.Model, m.Run.GPU, m.Run.GPUCount, m.Run.VRAMGB)
	}
}

func fmtPtr(p *float64) string {
	if p == nil {
		return "null"
	}
	return fmt.Sprint(*p)
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

func TestBuildLongGluedCell(t *testing.T) {
	long := strings.Repeat("1", 100000) + " ms TTFT"
	if got := splitGlued(long); len(got) != 0 {
		t.Errorf("splitGlued of a 100,000-digit cell gave %d readings", len(got))
	}
	_, err := readCell(t, miniDoc(long, "Valid", "1", "1 ms"))
	if err == nil || !strings.Contains(err.Error(), "is not a tok/s figure followed by a TTFT") {
		t.Errorf("long cell: %v", err)
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

// typedDoc is a one-row table with the base columns and one column per
// name in cols, each holding the matching text.
func typedDoc(cols, texts []string) string {
	return "M on G\nAll measurements\n| Phase | Context | Requests at once | Status | Total tok/s | TTFT | " + strings.Join(cols, " | ") +
		" |\n|" + strings.Repeat("---|", 6+len(cols)) + "\n| Sustained decode | 8K | 4 | Valid | 1,000.0 | 41 ms | " + strings.Join(texts, " | ") + " |\n"
}

// TestBuildTypedColumns gives every Measurement column a typed column
// sets (every nullable figure beyond the seeds' twelve, status_reason,
// repeat) a column headed by its name, and checks that the field, not
// Extra, holds the value exactly.
func TestBuildTypedColumns(t *testing.T) {
	mt := reflect.TypeFor[schema.Measurement]()
	var cols, texts []string
	want := map[string]string{} // column name → value as fmt prints it
	for i := 0; i < mt.NumField(); i++ {
		f := mt.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		switch f.Name {
		case "RunID", "Phase", "ContextLabel", "Concurrency", "Status", "TotalTokS", "PerRequestTokS", "TTFTMs", "TBTMs",
			"AvgActiveRequests", "CompletedRequests", "OutputTokens", "MeasuredS", "Extra", "SourceLine", "Printed":
			continue
		}
		var text string
		switch f.Type {
		case reflect.TypeFor[*float64]():
			text = strconv.FormatFloat(float64(i)+0.1+1e-9, 'f', -1, 64) // needs every digit
		case reflect.TypeFor[*int64]():
			text = strconv.Itoa(9000 + i)
		case reflect.TypeFor[*int32]():
			text = strconv.Itoa(i)
		case reflect.TypeFor[string]():
			text = "reason " + strconv.Itoa(i)
		default:
			t.Fatalf("field %s of type %v: the test does not know it", f.Name, f.Type)
		}
		cols, texts = append(cols, name), append(texts, text)
		want[name] = text
	}
	m, err := ParseBytes([]byte(typedDoc(cols, texts)), "typed.txt", schema.FormatText)
	if err != nil {
		t.Fatal(err)
	}
	x := m.Measurements[0]
	if len(x.Extra) != 0 {
		t.Errorf("extra = %+v, want none", x.Extra)
	}
	v := reflect.ValueOf(x)
	for i := 0; i < mt.NumField(); i++ {
		name, _, _ := strings.Cut(mt.Field(i).Tag.Get("json"), ",")
		w, ok := want[name]
		if !ok {
			continue
		}
		f := v.Field(i)
		var got string
		switch {
		case f.Kind() == reflect.String:
			got = f.String()
		case f.IsNil():
			got = "null"
		case f.Elem().Kind() == reflect.Float64:
			got = strconv.FormatFloat(f.Elem().Float(), 'f', -1, 64)
		default:
			got = strconv.FormatInt(f.Elem().Int(), 10)
		}
		if got != w {
			t.Errorf("%s = %s, want %s", name, got, w)
		}
	}
	if *x.TotalTokS != 1000 || *x.TTFTMs != 41 || *x.Concurrency != 4 || x.ContextLabel != "8K" {
		t.Errorf("base columns: %+v", x)
	}
}

func TestBuildTypedColumnCases(t *testing.T) {
	tests := []struct {
		name        string
		cols, texts []string
		check       func(x schema.Measurement) string // "" when right
		wantErr     string
	}{
		{name: "context_tokens overrides the label", cols: []string{"context_tokens"}, texts: []string{"8,000"},
			check: func(x schema.Measurement) string { return want64(x.ContextTokens, 8000) }},
		{name: "context_tokens null", cols: []string{"context_tokens"}, texts: []string{"—"},
			check: func(x schema.Measurement) string { return want64(x.ContextTokens, -1) }},
		{name: "ttft_p50_ms beside TTFT", cols: []string{"ttft_p50_ms"}, texts: []string{"39.5"},
			check: func(x schema.Measurement) string {
				if *x.TTFTMs != 41 || x.TTFTP50Ms == nil || *x.TTFTP50Ms != 39.5 {
					return fmt.Sprintf("ttft %v p50 %v", *x.TTFTMs, fmtPtr(x.TTFTP50Ms))
				}
				return ""
			}},
		{name: "header case and space", cols: []string{" TTFT_P90_MS "}, texts: []string{"44.5"},
			check: func(x schema.Measurement) string { return wantF(x.TTFTP90Ms, 44.5) }},
		{name: "a unit converts", cols: []string{"e2e_p99_ms"}, texts: []string{"1.5 s"},
			check: func(x schema.Measurement) string { return wantF(x.E2EP99Ms, 1500) }},
		{name: "infinite request rate", cols: []string{"request_rate"}, texts: []string{"inf"},
			check: func(x schema.Measurement) string { return wantF(x.RequestRate, math.Inf(1)) }},
		{name: "status reason with a bar", cols: []string{"status_reason"}, texts: []string{`HTTP 503 \| upstream`},
			check: func(x schema.Measurement) string {
				if x.StatusReason != "HTTP 503 | upstream" {
					return fmt.Sprintf("reason %q", x.StatusReason)
				}
				return ""
			}},
		{name: "status reason none", cols: []string{"status_reason"}, texts: []string{"—"},
			check: func(x schema.Measurement) string {
				if x.StatusReason != "" {
					return fmt.Sprintf("reason %q", x.StatusReason)
				}
				return ""
			}},
		{name: "repeat", cols: []string{"repeat"}, texts: []string{"2"},
			check: func(x schema.Measurement) string {
				if x.Repeat == nil || *x.Repeat != 2 {
					return "repeat not 2"
				}
				return ""
			}},
		{name: "unknown column stays extra", cols: []string{"ttft_p999_ms", "loop_cycles"}, texts: []string{"48.5", "120"},
			check: func(x schema.Measurement) string {
				if len(x.Extra) != 1 || x.Extra[0] != (schema.Metric{Name: "ttft_p999_ms", Value: 48.5}) {
					return fmt.Sprintf("extra %+v", x.Extra)
				}
				return want64(x.LoopCycles, 120)
			}},
		{name: "bad count", cols: []string{"errored_requests"}, texts: []string{"1.5"}, wantErr: `typed.txt:5: column "errored_requests": 1.5 is not a whole number`},
		{name: "bad figure", cols: []string{"tbt_p99_ms"}, texts: []string{"fast"}, wantErr: `typed.txt:5: column "tbt_p99_ms": not a number`},
		{name: "repeat out of range", cols: []string{"repeat"}, texts: []string{"99999999999"}, wantErr: `column "repeat": 9.9999999999e+10 is out of range`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := ParseBytes([]byte(typedDoc(tt.cols, tt.texts)), "typed.txt", schema.FormatText)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if msg := tt.check(m.Measurements[0]); msg != "" {
				t.Error(msg)
			}
		})
	}
}

func want64(p *int64, w int64) string {
	switch {
	case p == nil && w == -1:
		return ""
	case p == nil:
		return fmt.Sprintf("null, want %d", w)
	case *p != w:
		return fmt.Sprintf("%d, want %d", *p, w)
	}
	return ""
}

func wantF(p *float64, w float64) string {
	if p == nil || *p != w {
		return fmt.Sprintf("%s, want %v", fmtPtr(p), w)
	}
	return ""
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
