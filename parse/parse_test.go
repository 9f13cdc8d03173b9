package parse

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"speedmatrix/schema"
)

var update = flag.Bool("update", false, "rewrite testdata/golden from the parser's output")

const (
	seed000 = "000_acc4a01d882a0446.txt"
	seed001 = "001_03cf9c936d246394.txt"
)

// readSeed returns a seed document of the repository (testdata/seeds).
func readSeed(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "testdata", "seeds", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// find returns the measurement of a cell, failing when there is none.
func find(t testing.TB, m *schema.Matrix, p schema.Phase, label string, conc int32) schema.Measurement {
	t.Helper()
	for _, x := range m.Measurements {
		if x.Phase == p && x.ContextLabel == label && (x.Concurrency != nil && *x.Concurrency == conc) {
			return x
		}
	}
	t.Fatalf("no %s %s×%d row", p, label, conc)
	return schema.Measurement{}
}

func TestParseGolden(t *testing.T) {
	for _, name := range []string{seed000, seed001} {
		t.Run(name, func(t *testing.T) {
			m, err := Parse(bytes.NewReader(readSeed(t, name)), name, "")
			if err != nil {
				t.Fatal(err)
			}
			got, err := json.MarshalIndent(m, "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, '\n')
			path := filepath.Join("testdata", "golden", strings.TrimSuffix(name, ".txt")+".json")
			if *update {
				if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, got, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run go test ./parse -update)", err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("%s differs from the parse; run go test ./parse -update and review the diff", path)
			}
		})
	}
}

// TestParseSeedFigures asserts the figures the seeds' README names.
func TestParseSeedFigures(t *testing.T) {
	m, err := ParseBytes(readSeed(t, seed000), seed000, "")
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Measurements) != 46 {
		t.Errorf("seed 000: %d rows, want 46", len(m.Measurements))
	}
	d := find(t, m, schema.PhaseDecode, "8K", 128)
	if *d.TotalTokS != 6091.1 || *d.TTFTMs != 783 || *d.TBTMs != 21.1 || *d.OutputTokens != 182670 || *d.CompletedRequests != 0 ||
		*d.PerRequestTokS != 47.4 || *d.AvgActiveRequests != 128 || *d.MeasuredS != 30 || *d.ContextTokens != 8192 || d.SourceLine != 78 {
		t.Errorf("seed 000 decode 8K×128 = %+v", d)
	}
	if s := find(t, m, schema.PhaseDecode, "8K", 16).Status; s != schema.StatusLooped {
		t.Errorf("8K×16 status %s, want looped", s)
	}
	if s := find(t, m, schema.PhaseDecode, "123K", 128); s.Status != schema.StatusOverCapacity || s.TotalTokS != nil || s.CompletedRequests != nil || *s.ContextTokens != 123*1024 {
		t.Errorf("123K×128 = %+v, want over_capacity with null figures", s)
	}
	p := find(t, m, schema.PhasePrefill, "8K", 1)
	if *p.TotalTokS != 55000 || *p.TTFTMs != 149 || p.PerRequestTokS != nil {
		t.Errorf("prefill 8K = %+v", p)
	}
	if p := find(t, m, schema.PhasePrefill, "16K", 1); *p.TotalTokS != 57500 {
		t.Errorf("prefill 16K = %v", *p.TotalTokS)
	}
	count := map[schema.Status]int{}
	for _, x := range m.Measurements {
		count[x.Status]++
	}
	if count[schema.StatusLooped] != 7 || count[schema.StatusOverCapacity] != 1 || count[schema.StatusValid] != 38 {
		t.Errorf("statuses %v, want 7 looped, 1 over capacity, 38 valid", count)
	}

	m1, err := ParseBytes(readSeed(t, seed001), seed001, "")
	if err != nil {
		t.Fatal(err)
	}
	if d := find(t, m1, schema.PhaseDecode, "8K", 128); *d.TotalTokS != 13000 || *d.TTFTMs != 780 {
		t.Errorf("seed 001 decode 8K×128 = %v tok/s %v ms", *d.TotalTokS, *d.TTFTMs)
	}
	if p := find(t, m1, schema.PhasePrefill, "8K", 1); *p.TotalTokS != 65300 {
		t.Errorf("seed 001 prefill 8K = %v", *p.TotalTokS)
	}
	if m.Run.RunID == m1.Run.RunID || len(m.Run.RunID) != schema.RunIDLen {
		t.Errorf("run ids %q %q", m.Run.RunID, m1.Run.RunID)
	}
	for _, x := range m1.Measurements {
		if x.RunID != m1.Run.RunID {
			t.Fatalf("row run id %q, run %q", x.RunID, m1.Run.RunID)
		}
	}
}

func TestDetect(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"seed 000", string(readSeed(t, seed000)), schema.FormatText},
		{"seed 001", string(readSeed(t, seed001)), schema.FormatText},
		{"html document", "<!DOCTYPE html><html><body><h1>M on G</h1></body></html>", schema.FormatHTML},
		{"html fragment", "<h1>Title</h1>\n<table><tr><th>Phase</th></tr></table>", schema.FormatHTML},
		{"html after text", "Speed test\n<div class=x><p>hi</p></div>", schema.FormatHTML},
		{"markdown heading", "# M on G 80GB\n\n## Hardware\n- **GPU:** H100\n", schema.FormatMarkdown},
		{"markdown bold list", "M on G\n- **GPU:** H100\n", schema.FormatMarkdown},
		{"markdown fence", "Launch\n```sh\nvllm serve m\n```\n", schema.FormatMarkdown},
		{"markdown setext", "M on G 80GB\n===========\n", schema.FormatMarkdown},
		{"text with a table", "Title\n| Phase | Context |\n|---|---|\n", schema.FormatText},
		{"markdown with an html table", "# M on G 80GB\n\n<table><tr><th>Phase</th></tr></table>\n", schema.FormatMarkdown},
		{"markdown with a div wrapper", "# M on G\n<div>\n\n## Hardware\n</div>\n", schema.FormatMarkdown},
	}
	for _, tt := range tests {
		got, err := Detect([]byte(tt.in))
		if err != nil || got != tt.want {
			t.Errorf("%s: Detect = %q, %v; want %q", tt.name, got, err, tt.want)
		}
	}
	for _, in := range []string{"", " \n\t", "\ufeff", "ab\x00cd"} {
		if f, err := Detect([]byte(in)); err == nil {
			t.Errorf("Detect(%q) = %q, want an error", in, f)
		}
	}
}

// badCases are the documents of testdata/bad with the error each must
// give: the line and a part of the message.
var badCases = map[string]struct {
	line int
	msg  string
}{
	"empty.txt":                 {0, "empty document"},
	"blank.txt":                 {0, "empty document"},
	"binary.txt":                {3, "binary data"},
	"latin1.txt":                {2, "invalid UTF-8"},
	"prose.txt":                 {3, "no All measurements table"},
	"truncated-metadata.txt":    {20, "no All measurements table"},
	"truncated-matrix.txt":      {57, "no All measurements table"},
	"truncated-row.txt":         {80, "row has 6 cells, the All measurements header at line 63 has 12"},
	"truncated-table.txt":       {56, "decode 16K×1: the matrix has a cell but All measurements (line 63) has no such row"},
	"garbled-number.txt":        {78, `column "Total tok/s": malformed number "6,09.1"`},
	"garbled-ttft.txt":          {71, `column "TTFT": malformed number "4l ms"`},
	"garbled-vram.txt":          {9, `VRAM "ninety-six GB" is not a size like 96 GB`},
	"duplicated-row.txt":        {79, "decode 8K×128: duplicated row: line 79 repeats line 78"},
	"contradictory-row.txt":     {79, "decode 8K×128: duplicated row: line 79 contradicts (Total tok/s \"6,091.2\" vs \"6,091.1\") line 78"},
	"matrix-disagrees.txt":      {55, "decode 8K×128: matrix says 6,091.1 tok/s, All measurements line 78 says 6,091.2"},
	"matrix-ttft-disagrees.txt": {56, "decode 16K×128: matrix says TTFT 1,644 ms, All measurements line 86 says 1,645 ms"},
	"matrix-status.txt":         {55, "decode 8K×16: matrix says Looped, All measurements line 75 says Valid"},
	"matrix-extra-cell.txt":     {55, "decode 8K×256: the matrix has a cell but All measurements (line 63) has no such row"},
	"prefill-disagrees.txt":     {46, "prefill 8K: prefill figure says 55K tok/s, All measurements line 65 says 56K"},
	"prefill-missing-row.txt":   {51, "prefill 128K: a prefill figure but All measurements (line 63) has no Prefill row"},
	"unknown-status.txt":        {75, `unknown status "Looping"`},
	"unknown-phase.txt":         {65, `unknown phase "Warm-up"`},
}

func TestParseBad(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "bad", "*"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != len(badCases) {
		t.Errorf("%d files in testdata/bad, %d cases", len(files), len(badCases))
	}
	for _, f := range files {
		name := filepath.Base(f)
		want, ok := badCases[name]
		if !ok {
			t.Errorf("%s: no expected error", name)
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		_, err = Parse(bytes.NewReader(b), name, "")
		var pe *Error
		if !errors.As(err, &pe) {
			t.Errorf("%s: error %v (%T), want a *parse.Error", name, err, err)
			continue
		}
		if pe.File != name || pe.Line != want.line || !strings.Contains(pe.Msg, want.msg) {
			t.Errorf("%s: got  %v\nwant %s:%d: …%s…", name, err, name, want.line, want.msg)
		}
	}
}

func TestParseJunk(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	const size = 60 << 20
	// Printable junk (lines of random words and pipes) and random bytes.
	words := []string{"Phase", "|", "Context", "8K", "- Key", "1,2", "Looped", "prefill", "ms", "TTFT", "x", "\n", "\n", "—"}
	var text bytes.Buffer
	text.Grow(size)
	for text.Len() < size {
		text.WriteString(words[rng.IntN(len(words))])
		text.WriteByte(' ')
	}
	raw := make([]byte, size)
	for i := range raw {
		raw[i] = byte(rng.Uint32())
	}
	for name, b := range map[string][]byte{"junk-text": text.Bytes(), "junk-bytes": raw} {
		_, err := Parse(bytes.NewReader(b), name, "")
		var pe *Error
		if !errors.As(err, &pe) || pe.File != name || pe.Line < 1 {
			t.Errorf("%s: error %v, want a positioned *parse.Error", name, err)
		}
	}
	big := bytes.Repeat([]byte("a"), MaxDocumentBytes+1)
	if _, err := Parse(bytes.NewReader(big), "big", ""); err == nil || !strings.Contains(err.Error(), "larger than") {
		t.Errorf("oversized document: %v", err)
	}
}

// statFile counts the Read calls made on a file while keeping its Stat.
type statFile struct {
	*os.File
	reads int
}

func (f *statFile) Read(p []byte) (int, error) { f.reads++; return f.File.Read(p) }

func TestReadAll(t *testing.T) {
	dir := t.TempDir()
	for _, size := range []int{0, 1, 511, 512, 513, 7600, 100_000} {
		want := bytes.Repeat([]byte("0123456789abcdef"), size/16+1)[:size]
		path := filepath.Join(dir, fmt.Sprint(size))
		if err := os.WriteFile(path, want, 0o644); err != nil {
			t.Fatal(err)
		}
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		sf := &statFile{File: f}
		got, err := readAll(sf)
		f.Close()
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("size %d: read %d bytes, err %v", size, len(got), err)
		}
		// The data, then the end of file: a regular file is read in
		// two calls whatever its size.
		if sf.reads > 2 {
			t.Errorf("size %d: %d read calls, want at most 2", size, sf.reads)
		}
		// A reader without Stat reads the same bytes.
		if got, err := readAll(bytes.NewReader(want)); err != nil || !bytes.Equal(got, want) {
			t.Errorf("size %d without Stat: read %d bytes, err %v", size, len(got), err)
		}
	}
	// A file past the bound is read to one byte over it, not whole, and
	// Parse refuses it.
	path := filepath.Join(dir, "sparse")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := f.Truncate(MaxDocumentBytes + 1<<20); err != nil {
		t.Fatal(err)
	}
	got, err := readAll(f)
	if err != nil || len(got) != MaxDocumentBytes+1 {
		t.Errorf("oversized file: read %d bytes, err %v; want %d", len(got), err, MaxDocumentBytes+1)
	}
	f.Seek(0, 0)
	if _, err := Parse(f, path, ""); err == nil || !strings.Contains(err.Error(), "larger than") {
		t.Errorf("oversized file: %v", err)
	}
}

func TestParseUnknownFormat(t *testing.T) {
	if _, err := ParseBytes(readSeed(t, seed000), "x", "pdf"); err == nil || !strings.Contains(err.Error(), `unknown format "pdf"`) {
		t.Errorf("format pdf: %v", err)
	}
}

// addTextFuzzSeeds adds the seeds and the bad documents to a fuzz corpus.
func addTextFuzzSeeds(f *testing.F) {
	f.Add(readSeed(f, seed000))
	f.Add(readSeed(f, seed001))
	files, _ := filepath.Glob(filepath.Join("testdata", "bad", "*"))
	files = append(files, filepath.Join("testdata", "serve", "rates.txt"))
	for _, p := range files {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
}

// FuzzParseText checks that no input makes the text parser panic and
// that every error is a *Error naming the document.
func FuzzParseText(f *testing.F) {
	addTextFuzzSeeds(f)
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := ParseBytes(b, "fuzz.txt", schema.FormatText)
		if err != nil {
			var pe *Error
			if !errors.As(err, &pe) || pe.File != "fuzz.txt" {
				t.Fatalf("error %v (%T) is not a *parse.Error naming the file", err, err)
			}
			if pe.Line < 0 {
				t.Fatalf("negative line in %v", err)
			}
			return
		}
		if len(m.Measurements) == 0 {
			t.Fatal("a parse without an error has no rows")
		}
		for _, x := range m.Measurements {
			if x.SourceLine < 1 {
				t.Fatalf("row without a source line: %+v", x)
			}
		}
	})
}

// BenchmarkParseText parses each seed whole, run id included.
func BenchmarkParseText(b *testing.B) {
	benchSeeds(b, func(doc []byte, name string) error {
		_, err := ParseBytes(doc, name, schema.FormatText)
		return err
	})
}

// benchSeeds runs f on each seed's bytes as a sub-benchmark of b named
// by the seed, reporting bytes per second and allocations.
func benchSeeds(b *testing.B, f func(doc []byte, name string) error) {
	for _, name := range []string{seed000, seed001} {
		doc := readSeed(b, name)
		b.Run(name[:3], func(b *testing.B) {
			b.SetBytes(int64(len(doc)))
			b.ReportAllocs()
			for b.Loop() {
				if err := f(doc, name); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// largeDoc builds a valid document with n contexts × 8 concurrencies, a
// prefill figure per context and the matrix, to show that parsing stays
// linear in the document's size.
func largeDoc(n int) []byte {
	var b bytes.Buffer
	b.WriteString("Big on G 80GB\nPrefill\n")
	for c := 1; c <= n; c++ {
		fmt.Fprintf(&b, "%dK context%d.5K%d ms TTFT\n", c, c%90+10, c+100)
	}
	b.WriteString("Sustained decode\ntotal tok/s| Context | 1 | 2 | 4 | 8 | 16 | 32 | 64 | 128 |\n|---|---|---|---|---|---|---|---|---|\n")
	for c := 1; c <= n; c++ {
		fmt.Fprintf(&b, "| %dK |", c)
		for k := 0; k < 8; k++ {
			fmt.Fprintf(&b, " %d.%d%d ms TTFT |", 100+k*10, c%10, 10+c%50)
		}
		b.WriteByte('\n')
	}
	b.WriteString("All measurements\n| Phase | Context | Requests at once | Status | Total tok/s | TTFT |\n|---|---|---|---|---|---|\n")
	for c := 1; c <= n; c++ {
		fmt.Fprintf(&b, "| Prefill | %dK | 1 | Valid | %d.5K | %d ms |\n", c, c%90+10, c+100)
		for k := 0; k < 8; k++ {
			fmt.Fprintf(&b, "| Sustained decode | %dK | %d | Valid | %d.%d | %d ms |\n", c, 1<<k, 100+k*10, c%10, 10+c%50)
		}
	}
	return b.Bytes()
}

func TestParseLargeDocument(t *testing.T) {
	m, err := ParseBytes(largeDoc(500), "large.txt", "")
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Measurements) != 500*9 {
		t.Errorf("%d rows, want %d", len(m.Measurements), 500*9)
	}
}

func BenchmarkParseTextLarge(b *testing.B) {
	doc := largeDoc(2000)
	b.SetBytes(int64(len(doc)))
	for b.Loop() {
		if _, err := ParseBytes(doc, "large.txt", schema.FormatText); err != nil {
			b.Fatal(err)
		}
	}
}

// TestParsePanicIsAnError checks that a reader that panics costs only its
// own document: ParseAll returns a positioned *Error naming the file, and
// the next document parses as before.
func TestParsePanicIsAnError(t *testing.T) {
	const format = "test-panics"
	extractors[format] = func([]byte, string) (*rawDoc, error) { panic("index out of range [3] with length 3") }
	defer delete(extractors, format)
	ms, err := ParseAllBytes([]byte("{}"), "boom.json", format)
	var pe *Error
	if ms != nil || !errors.As(err, &pe) || pe.File != "boom.json" || !strings.Contains(pe.Msg, "index out of range") {
		t.Fatalf("ParseAllBytes of a panicking reader: %v, %v", ms, err)
	}
	b, err := os.ReadFile(filepath.Join("testdata", "peers", "llmperf", "leaderboard-groq_70b_summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ParseBytes(b, "next.json", ""); err != nil {
		t.Errorf("the next document: %v", err)
	}
}
