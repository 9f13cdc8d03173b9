package render

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"speedmatrix/parse"
	"speedmatrix/schema"
)

// seedPaths are the two published matrices the project starts from.
var seedPaths = []string{
	"../testdata/seeds/000_acc4a01d882a0446.txt",
	"../testdata/seeds/001_03cf9c936d246394.txt",
}

func parseSeed(t testing.TB, path string) ([]byte, *schema.Matrix) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	m, err := parse.ParseBytes(b, filepath.Base(path), schema.FormatText)
	if err != nil {
		t.Fatal(err)
	}
	return b, m
}

// TestTextReproducesSeeds is the strongest test of the renderer: the text
// form of a parsed seed is the seed, byte for byte.
func TestTextReproducesSeeds(t *testing.T) {
	for _, p := range seedPaths {
		t.Run(filepath.Base(p), func(t *testing.T) {
			seed, m := parseSeed(t, p)
			var b bytes.Buffer
			if err := Text(&b, m); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(b.Bytes(), seed) {
				t.Errorf("Text(parse(seed)) is not the seed:\n%s", firstDiff(b.Bytes(), seed))
			}
		})
	}
}

// stripSource returns m without its run id (compared on its own) and what
// depends on where and how it was read: source path, hash and format,
// ingest time, line numbers, printed text.
func stripSource(m *schema.Matrix) *schema.Matrix {
	c := *m
	c.Run.RunID, c.Run.SourcePath, c.Run.SourceSHA256, c.Run.SourceFormat = "", "", "", ""
	c.Run.IngestedAt = c.Run.IngestedAt.UTC().Truncate(0)
	c.Measurements = make([]schema.Measurement, len(m.Measurements))
	for i, x := range m.Measurements {
		x.RunID, x.SourceLine, x.Printed = "", 0, nil
		c.Measurements[i] = x
	}
	return &c
}

// diffMatrices describes the first difference between two matrices.
func diffMatrices(got, want *schema.Matrix) string {
	js := func(v any) string { b, _ := json.Marshal(v); return string(b) }
	if len(got.Measurements) != len(want.Measurements) {
		return "measurement count " + itoa(len(got.Measurements)) + ", want " + itoa(len(want.Measurements))
	}
	for i := range got.Measurements {
		if !reflect.DeepEqual(got.Measurements[i], want.Measurements[i]) {
			return "measurement " + itoa(i) + ":\n got: " + js(got.Measurements[i]) + "\nwant: " + js(want.Measurements[i])
		}
	}
	if !reflect.DeepEqual(got.Run, want.Run) {
		gv, wv := reflect.ValueOf(got.Run), reflect.ValueOf(want.Run)
		for i := 0; i < gv.NumField(); i++ {
			if !reflect.DeepEqual(gv.Field(i).Interface(), wv.Field(i).Interface()) {
				return "run." + gv.Type().Field(i).Name + ":\n got: " + js(gv.Field(i).Interface()) + "\nwant: " + js(wv.Field(i).Interface())
			}
		}
	}
	return "(equal)"
}

// renderParse writes m in one form and parses the result back as that
// form.
func renderParse(t *testing.T, m *schema.Matrix, ext, format string) *schema.Matrix {
	t.Helper()
	var b bytes.Buffer
	for _, f := range forms {
		if f.ext == ext {
			if err := f.write(&b, m); err != nil {
				t.Fatal(err)
			}
		}
	}
	back, err := parse.ParseBytes(b.Bytes(), "rendered."+ext, format)
	if err != nil {
		t.Fatalf("parse(render(m)) as %s: %v", format, err)
	}
	return back
}

// roundTripForms are the three forms and the parse format that reads each.
var roundTripForms = []struct{ ext, format string }{
	{"txt", schema.FormatText},
	{"md", schema.FormatMarkdown},
	{"html", schema.FormatHTML},
}

// TestSeedRoundTrip checks parse(render(parse(seed))) == parse(seed) for
// every form: the same run id and the same rows.
func TestSeedRoundTrip(t *testing.T) {
	for _, p := range seedPaths {
		_, m := parseSeed(t, p)
		for _, f := range roundTripForms {
			t.Run(filepath.Base(p)+"/"+f.ext, func(t *testing.T) {
				back := renderParse(t, m, f.ext, f.format)
				if back.Run.RunID != m.Run.RunID {
					t.Errorf("run id %s, want %s", back.Run.RunID, m.Run.RunID)
				}
				if g, w := stripSource(back), stripSource(m); !reflect.DeepEqual(g, w) {
					t.Errorf("parse(render(m)) != m: %s", diffMatrices(g, w))
				}
			})
		}
	}
}

func TestGoldenSeeds(t *testing.T) {
	for _, p := range seedPaths {
		_, m := parseSeed(t, p)
		for _, f := range forms {
			name := filepath.Base(p)
			name = name[:len(name)-len(filepath.Ext(name))]
			t.Run(name+"/"+f.ext, func(t *testing.T) {
				var b bytes.Buffer
				if err := f.write(&b, m); err != nil {
					t.Fatal(err)
				}
				golden(t, name+".golden."+f.ext, b.Bytes())
			})
		}
	}
}

// TestKiloRoundTrip prints every three-significant-digit K figure from
// 10.0K to 999K as a table's tok/s and parses the document back: each
// must print in the K form and read back as exactly its value.
func TestKiloRoundTrip(t *testing.T) {
	m := &schema.Matrix{Run: schema.Run{Title: "k-model on K GPU 80GB"}}
	var values []float64
	for n := 100; n < 1000; n++ {
		values = append(values, float64(n*100), float64(n*1000))
	}
	for i, v := range values {
		if s := FormatTokS(v); !strings.HasSuffix(s, "K") || strings.Contains(s, ",") {
			t.Errorf("FormatTokS(%v) = %q, want the K form", v, s)
		}
		ctx := int64(i/30 + 1)
		m.Measurements = append(m.Measurements, schema.Measurement{
			Phase: schema.PhaseDecode, ContextLabel: strconv.FormatInt(ctx, 10) + "K", ContextTokens: schema.I64(ctx * 1024),
			Concurrency: schema.I32(int32(i%30 + 1)), Status: schema.StatusValid,
			TotalTokS: schema.F64(v), PerRequestTokS: schema.F64(values[len(values)-1-i]), TTFTMs: schema.F64(41),
		})
	}
	for _, f := range roundTripForms {
		t.Run(f.ext, func(t *testing.T) {
			back := renderParse(t, m, f.ext, f.format)
			if len(back.Measurements) != len(m.Measurements) {
				t.Fatalf("%d rows, want %d", len(back.Measurements), len(m.Measurements))
			}
			for i, x := range back.Measurements {
				w := m.Measurements[i]
				if *x.TotalTokS != *w.TotalTokS || *x.PerRequestTokS != *w.PerRequestTokS {
					t.Errorf("row %d: %v and %v tok/s (printed %q, %q), want exactly %v and %v", i,
						*x.TotalTokS, *x.PerRequestTokS, FormatTokS(*w.TotalTokS), FormatTokS(*w.PerRequestTokS), *w.TotalTokS, *w.PerRequestTokS)
				}
			}
		})
	}
}
