package analysis

import (
	"math"
	"math/rand/v2"
	"testing"

	"speedmatrix/schema"
)

// repeated builds a run whose decode 8K×8 cell was measured len(xs) times.
func repeated(id string, xs []float64) *schema.Matrix {
	m := &schema.Matrix{Run: schema.Run{RunID: id}}
	for i, x := range xs {
		m.Measurements = append(m.Measurements, schema.Measurement{RunID: id, Phase: schema.PhaseDecode, ContextLabel: "8K",
			Concurrency: schema.I32(8), Status: schema.StatusValid, Repeat: schema.I32(int32(i)), TotalTokS: schema.F64(x)})
	}
	return m
}

// sampled builds a run with one decode 8K×8 cell and n per-request
// samples whose TTFT is drawn around ttft.
func sampled(id string, ttft float64, n int, rng *rand.Rand) *schema.Matrix {
	m := &schema.Matrix{Run: schema.Run{RunID: id}}
	m.Measurements = []schema.Measurement{{RunID: id, Phase: schema.PhaseDecode, ContextLabel: "8K", Concurrency: schema.I32(8),
		Status: schema.StatusValid, TotalTokS: schema.F64(1000), TTFTMs: schema.F64(ttft)}}
	for i := range n {
		m.Samples = append(m.Samples, schema.Sample{RunID: id, Phase: schema.PhaseDecode, ContextLabel: "8K", Concurrency: 8,
			Request: int64(i), InWindow: true, TTFTMs: schema.F64(ttft * (0.9 + 0.2*rng.Float64()))})
	}
	// An errored request and one outside the window do not count.
	m.Samples = append(m.Samples, schema.Sample{Phase: schema.PhaseDecode, ContextLabel: "8K", Concurrency: 8, Error: "timeout", TTFTMs: schema.F64(1e6), InWindow: true},
		schema.Sample{Phase: schema.PhaseDecode, ContextLabel: "8K", Concurrency: 8, TTFTMs: schema.F64(1e6)})
	return m
}

func TestStatsRepeatsAndSamples(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	tests := []struct {
		name        string
		base, other *schema.Matrix
		metric      string
		source      string
		n           int
		verdict     string
		significant bool
	}{
		{"repeats differ", repeated("a", []float64{100, 101, 99, 100.5, 99.5}), repeated("b", []float64{110, 111, 109, 110.5, 109.5}), "total_tok_s", "repeats", 5, "better", true},
		{"repeats overlap", repeated("a", []float64{100, 104, 96, 102, 98}), repeated("b", []float64{101, 97, 103, 99, 100.5}), "total_tok_s", "repeats", 5, "same", false},
		{"samples differ", sampled("a", 100, 40, rng), sampled("b", 150, 40, rng), "ttft_ms", "samples", 40, "worse", true},
		{"samples alike", sampled("a", 100, 40, rng), sampled("b", 100.2, 40, rng), "ttft_ms", "samples", 40, "same", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := Compare(tt.base, []*schema.Matrix{tt.other}, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if !c.Spread {
				t.Fatal("comparison reports no spread")
			}
			rows := c.Rows()
			r := findRow(rows, schema.PhaseDecode, "8K", 8, tt.metric)
			if r == nil || r.P == nil {
				t.Fatalf("row %+v has no statistics", r)
			}
			if r.NBaseline != tt.n || r.NValue != tt.n {
				t.Errorf("n = %d+%d, want %d+%d", r.NBaseline, r.NValue, tt.n, tt.n)
			}
			if (*r.P < 0.05) != tt.significant || r.Better != tt.verdict {
				t.Errorf("p = %.4f, verdict %q; want significant=%v, %q", *r.P, r.Better, tt.significant, tt.verdict)
			}
			// A side left out (nil) is unbounded: too few samples for the level.
			blo, bhi, vlo, vhi := bound(r.BaselineLo, -1), bound(r.BaselineHi, 1), bound(r.ValueLo, -1), bound(r.ValueHi, 1)
			if !(blo <= bhi && vlo <= vhi) {
				t.Errorf("confidence intervals [%v,%v] [%v,%v]", blo, bhi, vlo, vhi)
			}
			if tt.source == "repeats" && !(blo <= *r.Baseline && *r.Baseline <= bhi) {
				t.Errorf("median %v outside its interval [%v,%v]", *r.Baseline, blo, bhi)
			}
			if s := c.Stats(0, deltaIndex(c, tt.metric)); s == nil || s.Source != tt.source {
				t.Errorf("statistics %+v, want from %s", s, tt.source)
			}
		})
	}
}

// deltaIndex is the index in c.Deltas[0] of metric's delta at decode
// 8K×8.
func deltaIndex(c *Comparison, metric string) int {
	for i, d := range c.Deltas[0] {
		k := c.Cells[d.Cell].Key
		if k.Phase == schema.PhaseDecode && k.ContextLabel == "8K" && k.Concurrency == 8 && c.Metrics[d.Metric].Name == metric {
			return i
		}
	}
	return -1
}

func TestNoStatsForSingleFigures(t *testing.T) {
	c := seedComparison(t)
	if c.Spread {
		t.Error("seeds reported as having spread")
	}
	for _, r := range c.Rows() {
		if r.P != nil {
			t.Fatalf("row with a p-value: %+v", r)
		}
	}
}

// bound is *p, or the infinity of sign where the row leaves the side out.
func bound(p *float64, sign int) float64 {
	if p == nil {
		return math.Inf(sign)
	}
	return *p
}
