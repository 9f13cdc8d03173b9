package analysis

import (
	"testing"

	"speedmatrix/schema"
)

// one builds a run of single-figure decode cells: TTFT per concurrency.
func one(id string, ttft map[int32]float64) *schema.Matrix {
	m := &schema.Matrix{Run: schema.Run{RunID: id}}
	for n, v := range ttft {
		m.Measurements = append(m.Measurements, schema.Measurement{RunID: id, Phase: schema.PhaseDecode, ContextLabel: "8K",
			Concurrency: schema.I32(n), Status: schema.StatusValid, TotalTokS: schema.F64(1000), TTFTMs: schema.F64(v)})
	}
	return m
}

func geo(t *testing.T, c *Comparison, metric string) GeoMean {
	t.Helper()
	for _, g := range c.Summarize() {
		if g.ContextLabel == "" && g.Metric.Name == metric {
			return g
		}
	}
	t.Fatalf("no phase summary of %s", metric)
	return GeoMean{}
}

// TestNoiseBand: a change within the tolerance reads "same" (780 → 783 ms
// is not "worse"); one beyond it keeps its verdict.
func TestNoiseBand(t *testing.T) {
	for _, tt := range []struct {
		name  string
		value float64
		want  Verdict
	}{{"within 3%", 783, VerdictSame}, {"beyond 3%", 900, VerdictWorse}} {
		t.Run(tt.name, func(t *testing.T) {
			c, err := Compare(one("a", map[int32]float64{1: 780}), []*schema.Matrix{one("b", map[int32]float64{1: tt.value})}, Options{SameWithin: 0.03})
			if err != nil {
				t.Fatal(err)
			}
			d, _ := findDelta(c, schema.PhaseDecode, "8K", 1, "ttft_ms")
			if d.Verdict != tt.want {
				t.Errorf("780 → %v: %v, want %v", tt.value, d.Verdict, tt.want)
			}
			if g := geo(t, c, "ttft_ms"); g.Verdict != tt.want {
				t.Errorf("geometric mean verdict %v, want %v", g.Verdict, tt.want)
			}
		})
	}
}

// TestGeoMeanSpread checks the min–max over cells and, where every cell
// has repeats, the interval: one that holds 1 reads "same" whatever the
// tolerance, as benchstat reads a confidence interval.
func TestGeoMeanSpread(t *testing.T) {
	c, err := Compare(one("a", map[int32]float64{1: 100, 2: 200}), []*schema.Matrix{one("b", map[int32]float64{1: 50, 2: 400})}, Options{SameWithin: 0.03})
	if err != nil {
		t.Fatal(err)
	}
	g := geo(t, c, "ttft_ms")
	if g.Min != 0.5 || g.Max != 2 || g.Ratio != 1 || g.HasCI || g.N != 2 {
		t.Errorf("geomean %+v, want ratio 1 over 0.5–2, no CI", g)
	}

	overlap, err := Compare(repeated("a", []float64{100, 104, 96, 102, 98, 101, 99, 103}), []*schema.Matrix{repeated("b", []float64{101, 97, 103, 99, 100.5, 102, 98, 104})}, Options{SameWithin: 0.001})
	if err != nil {
		t.Fatal(err)
	}
	g = geo(t, overlap, "total_tok_s")
	if !g.HasCI || !(g.CILo <= 1 && 1 <= g.CIHi) || g.Verdict != VerdictSame {
		t.Errorf("overlapping repeats: %+v, want a CI holding 1 and same", g)
	}
	apart, err := Compare(repeated("a", []float64{100, 101, 99, 100.5, 99.5, 100.2, 99.8, 100.1}), []*schema.Matrix{repeated("b", []float64{110, 111, 109, 110.5, 109.5, 110.2, 109.8, 110.1})}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	g = geo(t, apart, "total_tok_s")
	if !g.HasCI || g.CILo <= 1 || g.Verdict != VerdictBetter {
		t.Errorf("distinct repeats: %+v, want a CI above 1 and better", g)
	}
}

func TestPrecision(t *testing.T) {
	for _, tt := range []struct {
		printed string
		v       float64
		sig     int
	}{{"13K", 13000, 2}, {"4,207.1", 4207.1, 5}, {"149 ms", 149, 3}, {"57.5K", 57500, 3}, {"0.05", 0.05, 1}} {
		v, sig, ok := printedNumber(tt.printed)
		if !ok || v != tt.v || sig != tt.sig {
			t.Errorf("printedNumber(%q) = %v, %d, %v; want %v, %d", tt.printed, v, sig, ok, tt.v, tt.sig)
		}
	}
	cell := &Cell{Status: schema.StatusValid, Rows: []*schema.Measurement{{Status: schema.StatusValid, TotalTokS: schema.F64(13000),
		Printed: []schema.KV{{Key: "Total tok/s", Value: "13K"}}}}}
	if got := SigFigs(cell, TotalTokS); got != 2 {
		t.Errorf("SigFigs of a cell printed 13K = %d, want 2", got)
	}
}

// TestServe checks a serving run's curves: by concurrency when the tool
// set one (whatever its rate), by rate otherwise, ordered by load.
func TestServe(t *testing.T) {
	m := &schema.Matrix{Run: schema.Run{RunID: "s"}}
	add := func(ctx string, n int32, rate float64, tot float64) {
		x := schema.Measurement{Phase: schema.PhaseServe, ContextLabel: ctx, Status: schema.StatusValid, TotalTokS: schema.F64(tot), RequestRate: schema.F64(rate)}
		if n > 0 {
			x.Concurrency = schema.I32(n)
		}
		m.Measurements = append(m.Measurements, x)
	}
	inf := 1.0 / zero
	add("1K", 16, inf, 2000)
	add("1K", 8, inf, 1400)
	add("2K", 0, inf, 3000)
	add("2K", 0, 4, 1000)
	curves := Serve(IndexCells(m))
	if len(curves) != 2 {
		t.Fatalf("%d curves", len(curves))
	}
	a, b := curves[0], curves[1]
	if a.ByRate || a.Points[0].Load != 8 || a.Points[1].Load != 16 {
		t.Errorf("1K curve %+v", a)
	}
	if !b.ByRate || b.Points[0].Load != 4 || b.Points[1].TotalTokS != 3000 {
		t.Errorf("2K curve %+v", b)
	}
}

var zero = 0.0
