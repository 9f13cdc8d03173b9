package parse

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"speedmatrix/schema"
)

// fxSeedForms lists each seed's text form (the seed itself) and the HTML
// and Markdown forms written from it in testdata/forms.
func fxSeedForms(t testing.TB) map[string][]string {
	t.Helper()
	seeds, err := filepath.Glob(filepath.Join("..", "testdata", "seeds", "*.txt"))
	if err != nil || len(seeds) < 2 {
		t.Fatalf("seeds: %v (found %d, want 2)", err, len(seeds))
	}
	out := map[string][]string{}
	for _, s := range seeds {
		base := strings.TrimSuffix(filepath.Base(s), ".txt")
		forms := []string{s}
		for _, ext := range []string{".html", ".md"} {
			p := filepath.Join("testdata", "forms", base+ext)
			if _, err := os.Stat(p); err != nil {
				t.Fatalf("seed %s has no %s form: %v", base, ext, err)
			}
			forms = append(forms, p)
		}
		out[base] = forms
	}
	return out
}

// fxComparable strips what legitimately differs between forms of one
// document (where it was read from, line numbers, printed text) and the
// run id, which the test compares first.
func fxComparable(m *schema.Matrix) *schema.Matrix {
	c := *m
	c.Run.SourcePath, c.Run.SourceSHA256, c.Run.SourceFormat = "", "", ""
	c.Run.RunID = "" // compared on its own
	c.Measurements = make([]schema.Measurement, len(m.Measurements))
	for i, x := range m.Measurements {
		x.SourceLine, x.Printed, x.RunID = 0, nil, ""
		c.Measurements[i] = x
	}
	return &c
}

// TestFormsAgree checks that the text, HTML and Markdown forms of each
// seed parse (detected from content, and with the format given) to the
// same run id, the same run and the same measurements.
func TestFormsAgree(t *testing.T) {
	wantFormat := map[string]string{".txt": schema.FormatText, ".html": schema.FormatHTML, ".md": schema.FormatMarkdown}
	for base, forms := range fxSeedForms(t) {
		t.Run(base, func(t *testing.T) {
			var ref *schema.Matrix
			var refName string
			for _, path := range forms {
				b, err := os.ReadFile(path)
				if err != nil {
					t.Fatal(err)
				}
				format := wantFormat[filepath.Ext(path)]
				if got, err := Detect(b); err != nil || got != format {
					t.Errorf("%s: Detect = %q, %v; want %q", path, got, err, format)
				}
				for _, f := range []string{"", format} {
					m, err := ParseBytes(b, path, f)
					if err != nil {
						t.Fatalf("%s (format %q): %v", path, f, err)
					}
					if m.Run.SourceFormat != format {
						t.Errorf("%s: source format %q, want %q", path, m.Run.SourceFormat, format)
					}
					if len(m.Measurements) == 0 {
						t.Fatalf("%s: no measurements", path)
					}
					for _, x := range m.Measurements {
						if x.SourceLine <= 0 {
							t.Errorf("%s: %s %s×%v has no source line", path, x.Phase, x.ContextLabel, x.Concurrency)
							break
						}
					}
					if ref == nil {
						ref, refName = m, path
						continue
					}
					if m.Run.RunID != ref.Run.RunID {
						t.Errorf("%s: run id %s, %s has %s", path, m.Run.RunID, refName, ref.Run.RunID)
					}
					got, want := fxComparable(m), fxComparable(ref)
					if !reflect.DeepEqual(got.Run, want.Run) {
						t.Errorf("%s: run differs from %s:\n%s", path, refName, fxDiffJSON(got.Run, want.Run))
					}
					if len(got.Measurements) != len(want.Measurements) {
						t.Fatalf("%s: %d measurements, %s has %d", path, len(got.Measurements), refName, len(want.Measurements))
					}
					for i := range got.Measurements {
						if !reflect.DeepEqual(got.Measurements[i], want.Measurements[i]) {
							t.Errorf("%s: measurement %d differs from %s:\n%s", path, i, refName, fxDiffJSON(got.Measurements[i], want.Measurements[i]))
						}
					}
				}
			}
		})
	}
}

// fxDiffJSON shows the JSON lines of got that differ from want.
func fxDiffJSON(got, want any) string {
	g, _ := json.MarshalIndent(got, "", " ")
	w, _ := json.MarshalIndent(want, "", " ")
	gl, wl := strings.Split(string(g), "\n"), strings.Split(string(w), "\n")
	var b strings.Builder
	for i := 0; i < max(len(gl), len(wl)); i++ {
		var x, y string
		if i < len(gl) {
			x = gl[i]
		}
		if i < len(wl) {
			y = wl[i]
		}
		if x != y {
			b.WriteString("  got  " + x + "\n  want " + y + "\n")
		}
	}
	return b.String()
}

// TestExtractGolden pins what each fixture extracts to, lines and pieces
// included, in testdata/forms/raw (go test ./parse -update rewrites it).
func TestExtractGolden(t *testing.T) {
	var paths []string
	for _, ext := range []string{"*.html", "*.md"} {
		p, _ := filepath.Glob(filepath.Join("testdata", "forms", ext))
		paths = append(paths, p...)
	}
	if len(paths) < 4 {
		t.Fatalf("%d fixtures, want 4", len(paths))
	}
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		format := schema.FormatHTML
		if filepath.Ext(p) == ".md" {
			format = schema.FormatMarkdown
		}
		raw, err := extractors[format](b, filepath.Base(p))
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		got, err := json.MarshalIndent(raw, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, '\n')
		golden := filepath.Join("testdata", "forms", "raw", filepath.Base(p)+".json")
		if *update {
			if err := os.MkdirAll(filepath.Dir(golden), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(golden, got, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(golden)
		if err != nil {
			t.Fatalf("%v (run go test ./parse -run ExtractGolden -update)", err)
		}
		if string(got) != string(want) {
			t.Errorf("%s: extraction differs from %s (run go test ./parse -run ExtractGolden -update and review the diff):\n%s", p, golden, fxDiffJSON(json.RawMessage(got), json.RawMessage(want)))
		}
	}
}

// TestExtractConcurrently extracts the fixtures from several goroutines
// at once (the shared goldmark parser) and expects what one goroutine
// gets; run with -race to check the sharing.
func TestExtractConcurrently(t *testing.T) {
	var paths []string
	for _, ext := range []string{"*.html", "*.md"} {
		p, _ := filepath.Glob(filepath.Join("testdata", "forms", ext))
		paths = append(paths, p...)
	}
	want := map[string]string{}
	docs := map[string][]byte{}
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		format, _ := Detect(b)
		raw, err := extractors[format](b, p)
		if err != nil {
			t.Fatal(err)
		}
		j, _ := json.Marshal(raw)
		want[p], docs[p] = string(j), b
	}
	errs := make(chan error, 4*len(paths))
	for g := 0; g < 4; g++ {
		go func() {
			for _, p := range paths {
				format, _ := Detect(docs[p])
				raw, err := extractors[format](docs[p], p)
				if err == nil {
					if j, _ := json.Marshal(raw); string(j) != want[p] {
						err = fmt.Errorf("%s: concurrent extraction differs", p)
					}
				}
				errs <- err
			}
		}()
	}
	for range 4 * len(paths) {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
}
