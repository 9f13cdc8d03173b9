package analysis

import (
	"math"
	"strings"
	"testing"

	"speedmatrix/schema"
)

func TestRaw(t *testing.T) {
	for _, c := range []struct {
		in   float64
		want string
	}{
		{19.199999999999996, "19.2"}, {13000, "13000"}, {0.2893839897880, "0.289383989788"}, {1e-7, "1e-07"},
		{math.NaN(), ""}, {math.Inf(1), "+Inf"}, {-3.5, "-3.5"},
	} {
		if got := Raw(c.in); got != c.want {
			t.Errorf("Raw(%v) = %q, want %q", c.in, got, c.want)
		}
	}
	if RawPtr(nil) != "" {
		t.Error("RawPtr(nil) not empty")
	}
}

// TestMachineForms checks the machine forms of the per-run tables of the
// INT4 seed: the scaling rows in concurrency order with a looped cell's
// status in its column, efficiency a fraction, and the answers with
// their lower bound.
func TestMachineForms(t *testing.T) {
	c, err := Compare(loadSeed(t, seedBF16), []*schema.Matrix{loadSeed(t, seedINT4)}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	r := NewReport(c, 100, SLO{MaxTTFTMs: 1000})
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
