package peers

import (
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"speedmatrix/schema"
)

// fixtures holds the files of other tools the tests read, one folder per
// tool, with their origins (README.md, SYNTHETIC.md).
//
// Note: they stay under parse/testdata, where they were first kept: the
// golden files of report and the tests of render and cmd/run name them
// by that path (a run's source path is in report's goldens).
const fixtures = "../parse/testdata/peers"

// maxFuzzSeed bounds the fixtures a fuzz target takes as seeds while it
// fuzzes (plain go test still runs every one), as parse's does: large
// seeds leave the engine minimizing them.
const maxFuzzSeed = 2 << 10

// addSeed adds b to f's corpus unless it is too large to fuzz from.
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

// readPeer parses one fixture under parse/testdata/peers through detection.
func readPeer(t *testing.T, rel string) (*schema.Matrix, error) {
	t.Helper()
	path := filepath.Join(fixtures, rel)
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return readOne(b, path, "")
}

// readAll is Read for a file the test knows is another tool's: one that
// is not is an error, as it is in a document the document formats do
// not recognise either.
func readAll(b []byte, name, format string) ([]*schema.Matrix, error) {
	ms, ok, err := Read(b, name, format)
	if !ok && err == nil {
		return nil, fmt.Errorf("%s: not recognised as another tool's result file", name)
	}
	return ms, err
}

// readOne is readAll for a file of one run.
func readOne(b []byte, name, format string) (*schema.Matrix, error) {
	ms, err := readAll(b, name, format)
	if err != nil {
		return nil, err
	}
	if len(ms) != 1 {
		return nil, fmt.Errorf("%s: %d runs, want one", name, len(ms))
	}
	return ms[0], nil
}

// mustReadOne reads a file that holds one run, failing the test on
// error.
func mustReadOne(t *testing.T, path string) *schema.Matrix {
	t.Helper()
	ms := mustReadAll(t, path)
	if len(ms) != 1 {
		t.Fatalf("%s: %d runs, want one", path, len(ms))
	}
	return ms[0]
}

// mustReadAll reads a file into its runs, failing the test on error.
func mustReadAll(t *testing.T, path string) []*schema.Matrix {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	ms, err := readAll(b, path, "")
	if err != nil {
		t.Fatal(err)
	}
	return ms
}

// near reports whether p holds want within a relative 1e-6.
func near(p *float64, want float64) bool {
	if p == nil {
		return false
	}
	if math.IsInf(want, 0) {
		return *p == want
	}
	return math.Abs(*p-want) <= 1e-6*math.Max(1, math.Abs(want))
}

// extra returns a named Extra figure.
func extra(m *schema.Measurement, name string) *float64 {
	for _, e := range m.Extra {
		if e.Name == name {
			v := e.Value
			return &v
		}
	}
	return nil
}

// fileCase is a fixture of a tool and what reading it must give: its
// format, its model, its number of cells and figures of them.
type fileCase struct {
	file   string // under fixtures
	format string
	model  string
	cells  int
	checks []check
}

// check is a figure of a read fixture and the value it must have
// (within a relative 1e-6; near).
type check struct {
	what string
	got  func(m *schema.Matrix) *float64
	want float64
}

// f64 points at v.
func f64(v float64) *float64 { return &v }

// i64 and i32p read an optional count as a figure.
func i64(p *int64) *float64 {
	if p == nil {
		return nil
	}
	return f64(float64(*p))
}

func i32p(p *int32) *float64 {
	if p == nil {
		return nil
	}
	return f64(float64(*p))
}

// set counts the figures present among ps (checks of absence want 0).
func set(ps ...*float64) *float64 {
	n := 0.0
	for _, p := range ps {
		if p != nil {
			n++
		}
	}
	return f64(n)
}

// checkFiles reads each fixture through detection and checks what it
// gives: the format, the model, the number of cells, each figure, and a
// context label on every cell.
func checkFiles(t *testing.T, tests []fileCase) {
	t.Helper()
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			m, err := readPeer(t, tt.file)
			if err != nil {
				t.Fatal(err)
			}
			if m.Run.SourceFormat != tt.format {
				t.Errorf("format %q, want %q", m.Run.SourceFormat, tt.format)
			}
			if m.Run.Model != tt.model {
				t.Errorf("model %q, want %q", m.Run.Model, tt.model)
			}
			if len(m.Measurements) != tt.cells {
				t.Fatalf("%d cells, want %d", len(m.Measurements), tt.cells)
			}
			for _, c := range tt.checks {
				if got := c.got(m); !near(got, c.want) {
					if got == nil {
						t.Errorf("%s: null, want %v", c.what, c.want)
					} else {
						t.Errorf("%s: %v, want %v", c.what, *got, c.want)
					}
				}
			}
			for i := range m.Measurements {
				if m.Measurements[i].ContextLabel == "" {
					t.Errorf("cell %d has no context label", i)
				}
			}
		})
	}
}

// meta returns the value of a run metadata field ("" when absent).
func meta(m *schema.Matrix, section, key string) string {
	for _, f := range m.Run.Metadata {
		if f.Section == section && f.Key == key {
			return f.Value
		}
	}
	return ""
}

// fieldCheck is one figure of a fixture and the source value it must hold.
type fieldCheck struct {
	what string
	got  *float64
	want float64
}

// checkFields reports every figure that does not hold its source value.
func checkFields(t *testing.T, checks []fieldCheck) {
	t.Helper()
	for _, c := range checks {
		if !near(c.got, c.want) {
			if c.got == nil {
				t.Errorf("%s: null, want %v", c.what, c.want)
			} else {
				t.Errorf("%s: %v, want %v", c.what, *c.got, c.want)
			}
		}
	}
}

// metaCheck is a run metadata field and the value it must hold.
type metaCheck struct{ section, key, want string }

// checkMeta reports every metadata field that does not hold its value.
func checkMeta(t *testing.T, m *schema.Matrix, checks []metaCheck) {
	t.Helper()
	for _, w := range checks {
		if got := meta(m, w.section, w.key); got != w.want {
			t.Errorf("metadata %s/%s = %q, want %q", w.section, w.key, got, w.want)
		}
	}
}

// fp returns a pointer to v, converting counts.
func fp[T int32 | int64 | float64](p *T) *float64 {
	if p == nil {
		return nil
	}
	v := float64(*p)
	return &v
}

// js renders v as JSON for messages.
func js(v any) string { b, _ := json.Marshal(v); return string(b) }

func itoa32(p *int32) string {
	if p == nil {
		return "-"
	}
	return strconv.Itoa(int(*p))
}

// parsePeerText parses an inline fixture through detection, as ingest
// reads a file of that name.
func parsePeerText(t *testing.T, name, text string) *schema.Matrix {
	t.Helper()
	m, err := readOne([]byte(text), name, "")
	if err != nil {
		t.Fatal(err)
	}
	return m
}
