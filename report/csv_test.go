package report

import (
	"encoding/csv"
	"regexp"
	"strings"
	"testing"

	"speedmatrix/analysis"
	"speedmatrix/schema"
)

// TestTableCSV: -format csv -table NAME prints every table for machines:
// figures unrounded and without thousands separators, units or ×, and a
// cell's status in its own column, never in a number's place.
func TestTableCSV(t *testing.T) {
	grouped := regexp.MustCompile(`^-?\d{1,3}(,\d{3})+(\.\d+)?$`)
	for _, p := range pairs {
		r := build(t, p)
		for _, name := range r.TableNames() {
			var b strings.Builder
			if err := r.Write(&b, FormatCSV, name); err != nil {
				t.Fatalf("%s %s: %v", p.name, name, err)
			}
			rows, err := csv.NewReader(strings.NewReader(b.String())).ReadAll()
			if err != nil || len(rows) < 2 {
				t.Errorf("%s %s: %d rows, %v", p.name, name, len(rows), err)
				continue
			}
			for _, row := range rows[1:] {
				for j, cell := range row {
					h := rows[0][j]
					if grouped.MatchString(cell) || strings.HasSuffix(cell, "×") || strings.HasSuffix(cell, "%") || strings.HasPrefix(cell, "≥") {
						t.Errorf("%s %s: column %s holds formatted %q", p.name, name, h, cell)
					}
					if cell == "looped" && h != "status" && h != "baseline_status" {
						t.Errorf("%s %s: status %q in column %s", p.name, name, cell, h)
					}
				}
			}
		}
	}
	// A few figures as stored: the seeds' INT4 answer at 16K and its
	// ratio, a looped cell of the decode ratio matrix.
	r := build(t, pairs[0])
	var b strings.Builder
	for _, name := range []string{"answers", "matrix_decode_total_tok_s"} {
		if err := r.Write(&b, FormatCSV, name); err != nil {
			t.Fatal(err)
		}
	}
	for _, want := range []string{
		"most total tok/s with ≥ 100 tok/s per request,decode,16K,RTX PRO 6000 INT4,true,16K×16,16,2199,139.6,true,N=32 looped,0.289383989788,,,\n",
		"8K,16,,,valid,looped,looped in RTX PRO 6000 INT4\n",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("no row %q in\n%s", want, b.String())
		}
	}
}

// TestMachineForms checks the machine forms of the per-run tables of the
// INT4 seed: the scaling rows in concurrency order with a looped cell's
// status in its column, efficiency a fraction, and the answers with
// their lower bound.
func TestMachineForms(t *testing.T) {
	c, err := analysis.Compare(loadSeed(t, seedBF16), []*schema.Matrix{loadSeed(t, seedINT4)}, analysis.Options{})
	if err != nil {
		t.Fatal(err)
	}
	r := analysis.NewReport(c, 100, analysis.SLO{MaxTTFTMs: 1000})
	a := r.Runs[1]
	join := func(rows [][]string) string {
		var b strings.Builder
		for _, row := range rows {
			b.WriteString(strings.Join(row, ",") + "\n")
		}
		return b.String()
	}
	sc := join(scalingCSV(a))
	for _, want := range []string{
		"8K,8,valid,1627.8,5.00553505535,0.625691881919,204.8,112,4.9,",
		"8K,16,looped,,,,,,,\n" + a.Label + ",8K,32,valid,3520.8,",
	} {
		if !strings.Contains(sc, want) {
			t.Errorf("scaling CSV lacks %q:\n%s", want, sc)
		}
	}
	best := join(bestCSV(a, a.BestAtUserRate))
	if !strings.Contains(best, ",8K,true,8K,32,3520.8,110.5,248,9,true,N=64 looped\n") {
		t.Errorf("answers CSV:\n%s", best)
	}
}
