package report

import (
	"bytes"
	"strings"
	"testing"

	"speedmatrix/plots"
)

// TestRatioRule: every path that prints a ratio (a table cell, a
// sentence, a bound of the targets table, a ratio matrix cell, a heatmap
// cell's label) prints it by one rule, three significant figures,
// whatever the precision of its inputs, so the same magnitude never
// reads to different precision in two rows (issue 24: "≥ 0.27×" beside
// "≥ 0.2894×").
func TestRatioRule(t *testing.T) {
	exact := func(sig int) Pick { return Pick{Found: true, SigFigs: sig} }
	bound := func(sig int) Pick { return Pick{Found: true, SigFigs: sig, LowerBound: true} }
	tests := []struct {
		name        string
		v           float64
		base, other Pick
		want        string // as boundRatio prints it
	}{
		{"four-figure inputs", 2199.0 / 7598.9, exact(4), exact(4), "0.289×"},
		{"two-figure input (13K)", 3520.8 / 13000, exact(2), exact(4), "0.271×"},
		{"lower bound, four figures", 2199.0 / 7598.9, exact(4), bound(4), "≥ 0.289×"},
		{"lower bound, two figures", 3520.8 / 13000, exact(2), bound(4), "≥ 0.271×"},
		{"upper bound", 3520.8 / 13000, bound(4), exact(2), "≤ 0.271×"},
		{"both bounds", 1.0312, bound(2), bound(4), "1.03×"},
		{"near parity", 1.0312, exact(4), exact(4), "1.03×"},
		{"just below one", 0.97, exact(2), exact(2), "0.970×"},
		{"rounds up to one", 0.99951, exact(4), exact(4), "1.00×"},
		{"rounds up to ten", 9.9951, exact(4), exact(4), "10.0×"},
		{"tiny", 0.0043412, exact(4), exact(4), "0.00434×"},
		{"large", 128.37, exact(4), exact(2), "128×"},
		{"very large", 1234.5, exact(4), exact(4), "1,230×"},
		{"two digits", 12.46, exact(3), exact(4), "12.5×"},
	}
	heatmap := ratioHeatmapFormat(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := boundRatio(&tt.v, tt.base, tt.other); got != tt.want {
				t.Errorf("boundRatio: %q, want %q", got, tt.want)
			}
			plain := strings.TrimPrefix(strings.TrimPrefix(tt.want, "≥ "), "≤ ")
			for name, got := range map[string]string{
				"ratioText":        ratioText(tt.v),
				"optRatio":         optRatio(&tt.v),
				"FormatRatio + ×":  FormatRatio(tt.v) + "×",
				"heatmap cell + ×": heatmap(tt.v) + "×", // no times sign in a cell, as in the ratio matrices
			} {
				if got != plain {
					t.Errorf("%s: %q, want %q", name, got, plain)
				}
			}
		})
	}
}

// ratioHeatmapFormat is how the seeds' ratio heatmap labels its cells.
func ratioHeatmapFormat(t *testing.T) func(float64) string {
	t.Helper()
	h, ok := ratioHeatmap(build(t, pairs[0]).Comparison, 0)
	if !ok || h.Format == nil {
		t.Fatalf("the seeds' heatmap has no cell format (ok %v): plots' own two decimals", ok)
	}
	return h.Format
}

// TestRatioRuleAcrossTables: the seeds' report prints one ratio, the
// 8K×128 cell's 6,091.1 / 13,000 (13K printed with two figures), alike
// in the long deltas table, the ratio matrix and the heatmap's SVG.
func TestRatioRuleAcrossTables(t *testing.T) {
	r := build(t, pairs[0])
	const want = "0.469"
	var deltas, matrix bool
	for _, tb := range r.Tables() {
		for _, row := range tb.Rows {
			switch {
			case tb.Name == "deltas" && len(row) > 6 && row[1] == "8K" && row[2] == "128" && row[3] == "total tok/s":
				deltas = true
				if row[6] != want {
					t.Errorf("deltas: 8K×128 ratio %q, want %q", row[6], want)
				}
			case tb.Name == "matrix_decode_total_tok_s" && row[0] == "8K":
				matrix = true
				if row[len(row)-1] != want {
					t.Errorf("matrix: 8K×128 ratio %q, want %q", row[len(row)-1], want)
				}
			}
		}
	}
	if !deltas || !matrix {
		t.Fatalf("no 8K×128 row in the deltas (%v) or the matrix (%v): %v", deltas, matrix, r.TableNames())
	}
	h, _ := ratioHeatmap(r.Comparison, 0)
	f, err := h.Figure()
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := plots.SaveSVGNoFont(f, &b, 640, 480); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), ">"+want+"<") {
		t.Errorf("the heatmap's SVG has no cell label %q", want)
	}
}
