package parse

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"speedmatrix/schema"
)

// serveForms are the rate-run documents under testdata/serve (render's
// rates golden files) with the format that reads each.
var serveForms = []struct{ ext, format string }{
	{"txt", schema.FormatText}, {"md", schema.FormatMarkdown}, {"html", schema.FormatHTML},
}

func readServeDoc(t *testing.T, ext string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "serve", "rates."+ext))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestServeTableReads: each form of a rate run parses, its rate table
// checked against the five serve rows, and the table is found (a
// document whose rate table were skipped would pass the mutations below
// unnoticed, so it is asserted here).
func TestServeTableReads(t *testing.T) {
	for _, f := range serveForms {
		doc := readServeDoc(t, f.ext)
		raw, err := extractors[f.format]([]byte(doc), "rates."+f.ext)
		if err != nil {
			t.Fatalf("%s: %v", f.ext, err)
		}
		if raw.Serve.HeaderLine == 0 || len(raw.Serve.Rows) != 5 || len(raw.Serve.Header) != 18 {
			t.Errorf("%s: rate table at line %d with %d rows and %d columns, want 5 rows of 18", f.ext, raw.Serve.HeaderLine, len(raw.Serve.Rows), len(raw.Serve.Header))
		}
		m, err := ParseBytes([]byte(doc), "rates."+f.ext, f.format)
		if err != nil {
			t.Fatalf("%s: %v", f.ext, err)
		}
		if len(m.Measurements) != 5 || m.Measurements[4].Status != schema.StatusError {
			t.Errorf("%s: %d rows, want 5, the last an error", f.ext, len(m.Measurements))
		}
	}
}

// TestServeTableDisagrees changes one cell (or header) of the rate table
// in each form: a change the full rows contradict is an error at the
// changed line; a rounding of the same value is not.
func TestServeTableDisagrees(t *testing.T) {
	cell := func(ext, s string, head bool) string {
		switch {
		case ext != "html":
			return "| " + s + " |"
		case head:
			return "<th>" + s + "</th>"
		case s == "Error" || s == "Valid":
			return `<td class="status">` + s + "</td>" // as render marks a failed load's status
		}
		return "<td>" + s + "</td>"
	}
	tests := []struct {
		name     string
		old, new string
		head     bool   // the cell is a th in HTML (the row's context and load, the header)
		want     string // "" for no error
	}{
		{"achieved rate", "110.79", "110.89", false, "rate table: serve 1K at 117/s: Achieved/s 110.89, All measurements line"},
		{"status", "Error", "Valid", false, `rate table: serve 1K at 160.1/s: status "Valid", All measurements line`},
		{"load", "117/s", "118/s", true, "rate table: serve 1K at 118/s, but All measurements"},
		{"context", "1K", "2K", true, "rate table: serve 2K at 1 stream, but All measurements"},
		{"figure dropped", "5.72", "—", false, "rate table: serve 1K at 117/s: In flight —, All measurements line"},
		{"figure added", "—", "99.27", false, "rate table: serve 1K at 160.1/s: Goodput/s 99.27, All measurements line"},
		{"rounded tok/s agrees", "7,057.8", "7.06K", false, ""},
		{"rounded tok/s disagrees", "7,057.8", "7.2K", false, "rate table: serve 1K at 117/s: Output tok/s 7.2K, All measurements line"},
		{"rounded latency agrees", "178.3", "178", false, ""},
		{"a unit the column does not take", "178.3", "178.3 tok/s", false, `rate table: serve 1K at 1 stream: column "TTFT p99 (ms)": unit "tok/s" is not a time`},
		{"trend changed", "▃▆▇▇█▇▇▇▆▄", "▃▆▇▇█▇▇▇▆▃", false, "rate table: serve 1K at 1 stream: In flight over time ▃▆▇▇█▇▇▇▆▃, All measurements line"},
		{"trend dropped", "▃▆▇▇█▇▇▇▆▄", "—", false, "rate table: serve 1K at 1 stream: In flight over time —, All measurements line"},
		{"unknown column", "In flight", "Queue depth", true, `rate table: column "Queue depth" is not a serve figure`},
	}
	// The caption's arrival against the Run section's pair; the error is
	// at the table's header (the text form glues the caption to it).
	for _, f := range serveForms {
		doc := readServeDoc(t, f.ext)
		changed := strings.Replace(doc, "Arrival: poisson, seed 42.", "Arrival: constant, seed 42.", 1)
		_, err := ParseBytes([]byte(changed), "rates."+f.ext, f.format)
		if err == nil || !strings.Contains(err.Error(), "rate table: its caption says Arrival: constant, seed 42, line ") {
			t.Errorf("%s: a caption naming another arrival: %v", f.ext, err)
		}
		changed = strings.Replace(doc, "Arrival: poisson, seed 42.", "", 1)
		if _, err := ParseBytes([]byte(changed), "rates."+f.ext, f.format); err != nil {
			t.Errorf("%s: a caption without the arrival: %v", f.ext, err)
		}
	}
	for _, f := range serveForms {
		doc := readServeDoc(t, f.ext)
		for _, tc := range tests {
			t.Run(f.ext+"/"+tc.name, func(t *testing.T) {
				old := cell(f.ext, tc.old, tc.head)
				at := strings.Index(doc, old)
				if at < 0 {
					t.Fatalf("no %q in the document", old)
				}
				changed := doc[:at] + cell(f.ext, tc.new, tc.head) + doc[at+len(old):]
				_, err := ParseBytes([]byte(changed), "rates."+f.ext, f.format)
				if tc.want == "" {
					if err != nil {
						t.Fatalf("%v, want no error", err)
					}
					return
				}
				var pe *Error
				if !errors.As(err, &pe) || !strings.Contains(pe.Msg, tc.want) {
					t.Fatalf("error %v, want %q", err, tc.want)
				}
				if line := strings.Count(doc[:at], "\n") + 1; pe.Line != line {
					t.Errorf("error at line %d, the change is at line %d: %v", pe.Line, line, err)
				}
			})
		}
	}
}

// TestServeTableSecond: a document with two rate tables is an error at
// the second.
func TestServeTableSecond(t *testing.T) {
	doc := readServeDoc(t, "md")
	start, end := strings.Index(doc, "## Serve by request rate"), strings.Index(doc, "## Hardware")
	twice := doc[:end] + doc[start:]
	_, err := ParseBytes([]byte(twice), "twice.md", schema.FormatMarkdown)
	if line := strings.Count(twice[:end], "\n") + 5; err == nil || !strings.Contains(err.Error(), "a second rate table (the first is at line 11)") ||
		!strings.HasPrefix(err.Error(), "twice.md:"+strconv.Itoa(line)+":") {
		t.Errorf("error %v, want a second rate table at line %d", err, line)
	}
}

func TestParseServeLoad(t *testing.T) {
	tests := []struct {
		in      string
		rate    float64 // NaN: none
		streams int32
		ok      bool
	}{
		{"4/s", 4, 0, true},
		{"0.5/s", 0.5, 0, true},
		{"1,200/s", 1200, 0, true},
		{"all at once", math.Inf(1), 0, true},
		{"64 streams", math.NaN(), 64, true},
		{"1 stream", math.NaN(), 1, true},
		{"4/s · 8 streams", 4, 8, true},
		{"—", math.NaN(), 0, true},
		{"fast", 0, 0, false},
		{"4 req/s/s", 0, 0, false},
		{"x streams", 0, 0, false},
	}
	for _, tc := range tests {
		l, ok := parseServeLoad(tc.in)
		if ok != tc.ok {
			t.Errorf("%q: ok %v, want %v", tc.in, ok, tc.ok)
			continue
		}
		if !ok {
			continue
		}
		if math.IsNaN(tc.rate) != l.rate.Null || !l.rate.Null && l.rate.Value != tc.rate || l.streams != tc.streams {
			t.Errorf("%q: %+v, want rate %v and %d streams", tc.in, l, tc.rate, tc.streams)
		}
	}
}

// TestServeFiguresKeys checks that the rate table's columns, now taken
// from docspec.ServeColumns, are found under the header keys documents
// already written use, each read in the unit it always was.
func TestServeFiguresKeys(t *testing.T) {
	want := map[string]unitKind{
		"achieveds": kindPlain, "dones": kindPlain, "goodputs": kindPlain, "completed": kindCount,
		"errors": kindCount, "outputtoks": kindRate, "inouttoks": kindRate, "ttftp50ms": kindMillis,
		"ttftp99ms": kindMillis, "tbtp50ms": kindMillis, "tbtp99ms": kindMillis, "e2ep50ms": kindMillis,
		"e2ep99ms": kindMillis, "inflight": kindPlain, "inflightovertime": kindPlain,
	}
	if len(serveFigures) != len(want) {
		t.Errorf("%d rate-table columns, want %d", len(serveFigures), len(want))
	}
	for k, kind := range want {
		f, ok := serveFigures[k]
		switch {
		case !ok:
			t.Errorf("no rate-table column %q", k)
		case k == "inflightovertime" && (f.text == nil || f.get != nil):
			t.Errorf("%q is not read as text", k)
		case k != "inflightovertime" && (f.get == nil || f.kind != kind):
			t.Errorf("%q: kind %v, want %v", k, f.kind, kind)
		}
	}
}
