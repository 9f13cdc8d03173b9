package peers

import (
	"encoding/json"
	"slices"
	"testing"

	"speedmatrix/schema"
)

// Fixtures written in the shapes of real files found in public
// repositories that speedmatrix once read wrong or rejected (see
// parse/testdata/peers/SYNTHETIC.md for their origins) are checked field
// by field against the numbers of the source: each tool's cases live in
// its own _test.go (TestGenAIBenchFoundShapes, …) and run through
// checkFoundShapes.

// foundCheck is one figure of a fixture written in the shape of a real
// file found in a public repository, and the value the source gives it
// (converted to the column's unit).
type foundCheck struct {
	what string
	got  func(m *schema.Matrix) *float64
	want float64 // none: the figure must be absent
}

// none marks a figure that must not be stored.
const none = -1e308

// foundShape is one such fixture: what its run must say and its figures.
type foundShape struct {
	file  string
	id    string // the model id, as the source names it
	model string
	cells int
	warn  string // a Warnings field the run must carry
	gpu   string // the GPU the run names, when it names one
	check []foundCheck
}

// foundCell reads figure f of cell i.
func foundCell(i int, f func(c *schema.Measurement) *float64) func(m *schema.Matrix) *float64 {
	return func(m *schema.Matrix) *float64 {
		if i >= len(m.Measurements) {
			return nil
		}
		return f(&m.Measurements[i])
	}
}

// foundExtra reads the extra figure name of cell i.
func foundExtra(i int, name string) func(m *schema.Matrix) *float64 {
	return foundCell(i, func(c *schema.Measurement) *float64 { return extra(c, name) })
}

// foundI64 and foundI32 read a count as a figure.
func foundI64(p *int64) *float64 {
	if p == nil {
		return nil
	}
	return schema.F64(float64(*p))
}

func foundI32(p *int32) *float64 {
	if p == nil {
		return nil
	}
	return schema.F64(float64(*p))
}

// checkFoundShapes reads each fixture and checks its run and figures.
func checkFoundShapes(t *testing.T, tests []foundShape) {
	t.Helper()
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			m, err := readPeer(t, tt.file)
			if err != nil {
				t.Fatal(err)
			}
			if m.Run.ModelID != tt.id {
				t.Errorf("model id = %q, want %q", m.Run.ModelID, tt.id)
			}
			if m.Run.Model != tt.model {
				t.Errorf("model = %q, want %q", m.Run.Model, tt.model)
			}
			if len(m.Measurements) != tt.cells {
				t.Fatalf("%d cells, want %d", len(m.Measurements), tt.cells)
			}
			if tt.gpu != "" && m.Run.GPU != tt.gpu {
				t.Errorf("gpu = %q, want %q", m.Run.GPU, tt.gpu)
			}
			if tt.warn != "" && !slices.ContainsFunc(m.Run.Metadata, func(f schema.Field) bool { return f.Section == "Warnings" && f.Key == tt.warn }) {
				t.Errorf("no warning %q in %v", tt.warn, m.Run.Metadata)
			}
			for _, c := range tt.check {
				got := c.got(m)
				switch {
				case c.want == none && got != nil:
					t.Errorf("%s: got %g, want nothing", c.what, *got)
				case c.want != none && !near(got, c.want):
					t.Errorf("%s: got %v, want %g", c.what, shown(got), c.want)
				}
			}
		})
	}
}

// checkStable parses each fixture several times: a run's id is a hash of
// what is read, so the same file must read the same every time
// (inference-benchmarker's meta map once came out in Go's random map
// order, and a re-ingest was added as a new run).
func checkStable(t *testing.T, files ...string) {
	t.Helper()
	for _, file := range files {
		first, err := readPeer(t, file)
		if err != nil {
			t.Fatal(err)
		}
		want := asJSON(t, first)
		for range 20 {
			m, err := readPeer(t, file)
			if err != nil {
				t.Fatal(err)
			}
			if got := asJSON(t, m); got != want {
				t.Fatalf("%s reads differently from one parse to the next:\n%s\n%s", file, got, want)
			}
		}
	}
}

// shown prints a figure or "none".
func shown(p *float64) any {
	if p == nil {
		return "none"
	}
	return *p
}

// asJSON is what a parse read, as JSON (the run's metadata and cells).
func asJSON(t *testing.T, m *schema.Matrix) string {
	t.Helper()
	b, err := json.Marshal(struct {
		Meta  []schema.Field
		Cells []schema.Measurement
	}{m.Run.Metadata, m.Measurements})
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
