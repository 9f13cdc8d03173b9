package report

import (
	"bytes"
	"encoding/json"
	"io"
	"math/rand/v2"
	"strings"
	"testing"

	"speedmatrix/analysis"
	"speedmatrix/schema"
)

// writeLong prints the long tables of r as Report.Write prints them
// after the summary (text, Markdown), or the delta rows (CSV).
func writeLong(w io.Writer, r *analysis.Report, f Format) error {
	if f == FormatCSV {
		return WriteDeltas(w, r.Comparison, f)
	}
	for _, t := range longTables(r) {
		if err := t.Write(w, f); err != nil {
			return err
		}
	}
	return nil
}

// TestLongTablesGolden prints the long tables of the seeds: runs,
// deltas, geometric means, scaling with the USL fits, context scaling,
// frontier and both targets.
func TestLongTablesGolden(t *testing.T) {
	r := analysis.NewReport(seedComparison(t), 100, analysis.SLO{MaxTTFTMs: 500, MaxTBTMs: 10})
	for _, tt := range []struct {
		f    Format
		file string
	}{
		{FormatText, "long_seeds.txt"},
		{FormatMarkdown, "long_seeds.md"},
		{FormatCSV, "long_seeds.csv"},
	} {
		t.Run(string(tt.f), func(t *testing.T) {
			var b bytes.Buffer
			if err := writeLong(&b, r, tt.f); err != nil {
				t.Fatal(err)
			}
			golden(t, tt.file, b.Bytes())
		})
	}
}

func TestLongTablesContent(t *testing.T) {
	r := analysis.NewReport(seedComparison(t), 100, analysis.SLO{MaxTTFTMs: 500, MaxTBTMs: 10})
	var b bytes.Buffer
	if err := writeLong(&b, r, FormatText); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		"decode   8K       128  total tok/s        13,000.0   6,091.1  0.469",
		"prefill  8K         1  prefill tok/s      65,300.0  55,000.0  0.842",
		"looped in RTX-INT4",
		"over capacity in both",
		NoSpreadNote,
		"USL 8K: λ = ",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("text report lacks %q", want)
		}
	}
}

func TestWriteDeltasJSON(t *testing.T) {
	var b bytes.Buffer
	if err := WriteDeltas(&b, seedComparison(t), FormatJSON); err != nil {
		t.Fatal(err)
	}
	var rows []map[string]any
	if err := json.Unmarshal(b.Bytes(), &rows); err != nil {
		t.Fatal(err)
	}
	if len(rows) != 172 {
		t.Fatalf("%d rows", len(rows))
	}
	want := []string{"phase", "context_label", "concurrency", "metric", "baseline", "value", "ratio", "delta_pct", "better", "baseline_status", "status", "note", "baseline_run_id", "run_id"}
	for _, r := range rows {
		if len(r) != len(want) {
			t.Fatalf("row has %d fields, want %d: %v", len(r), len(want), r)
		}
		for _, k := range want {
			if _, ok := r[k]; !ok {
				t.Fatalf("row lacks %q: %v", k, r)
			}
		}
	}
	var typed []DeltaRow
	if err := json.Unmarshal(b.Bytes(), &typed); err != nil {
		t.Fatal(err)
	}
	r := findRow(typed, schema.PhaseDecode, "8K", 16, "total_tok_s")
	if r == nil || r.Ratio != nil || r.Value != nil || r.Note != "looped in RTX-INT4" || *r.Baseline != 3016.8 {
		t.Errorf("8K×16 row %+v", r)
	}
}

// TestDeltasShowTheTest: where both runs carry a spread (repeats of a
// cell), the delta table prints each side's interval and the test, not
// the note that ratios are point estimates.
func TestDeltasShowTheTest(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	repeated := func(id string, center float64) *schema.Matrix {
		m := &schema.Matrix{Run: schema.Run{RunID: id}}
		for i := range 6 {
			m.Measurements = append(m.Measurements, schema.Measurement{RunID: id, Phase: schema.PhaseDecode, ContextLabel: "8K",
				Concurrency: schema.I32(8), Status: schema.StatusValid, Repeat: schema.I32(int32(i)), TotalTokS: schema.F64(center * (0.99 + 0.02*rng.Float64()))})
		}
		return m
	}
	c, err := analysis.Compare(repeated("a", 100), []*schema.Matrix{repeated("b", 110)}, analysis.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := WriteDeltas(&b, c, FormatText); err != nil {
		t.Fatal(err)
	}
	if out := b.String(); strings.Contains(out, NoSpreadNote) || !strings.Contains(out, "repeats p=") || !strings.Contains(out, "baseline CI") {
		t.Errorf("text output does not show the test:\n%s", out)
	}
}
