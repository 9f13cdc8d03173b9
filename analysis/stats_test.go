package analysis

import (
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
		source      SpreadSource
		n           int
		verdict     Verdict
		significant bool
	}{
		{"repeats differ", repeated("a", []float64{100, 101, 99, 100.5, 99.5}), repeated("b", []float64{110, 111, 109, 110.5, 109.5}), "total_tok_s", FromRepeats, 5, VerdictBetter, true},
		{"repeats overlap", repeated("a", []float64{100, 104, 96, 102, 98}), repeated("b", []float64{101, 97, 103, 99, 100.5}), "total_tok_s", FromRepeats, 5, VerdictSame, false},
		{"samples differ", sampled("a", 100, 40, rng), sampled("b", 150, 40, rng), "ttft_ms", FromSamples, 40, VerdictWorse, true},
		{"samples alike", sampled("a", 100, 40, rng), sampled("b", 100.2, 40, rng), "ttft_ms", FromSamples, 40, VerdictSame, false},
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
			d, s := findDelta(c, schema.PhaseDecode, "8K", 8, tt.metric)
			if d == nil || s == nil {
				t.Fatalf("delta %+v has no statistics", d)
			}
			if s.Test.N1 != tt.n || s.Test.N2 != tt.n {
				t.Errorf("n = %d+%d, want %d+%d", s.Test.N1, s.Test.N2, tt.n, tt.n)
			}
			if s.Significant() != tt.significant || d.Verdict != tt.verdict {
				t.Errorf("p = %.4f, verdict %v; want significant=%v, %v", s.Test.P, d.Verdict, tt.significant, tt.verdict)
			}
			// An interval from too few samples for the level is unbounded
			// on a side (±Inf), never inverted.
			blo, bhi, vlo, vhi := s.Baseline.Lo, s.Baseline.Hi, s.Value.Lo, s.Value.Hi
			if !(blo <= bhi && vlo <= vhi) {
				t.Errorf("confidence intervals [%v,%v] [%v,%v]", blo, bhi, vlo, vhi)
			}
			if tt.source == FromRepeats && !(blo <= d.Baseline && d.Baseline <= bhi) {
				t.Errorf("median %v outside its interval [%v,%v]", d.Baseline, blo, bhi)
			}
			if s.Source != tt.source {
				t.Errorf("statistics %+v, want from %v", s, tt.source)
			}
		})
	}
}

func TestNoStatsForSingleFigures(t *testing.T) {
	c := seedComparison(t)
	if c.Spread {
		t.Error("seeds reported as having spread")
	}
	for i, d := range c.Deltas[0] {
		if s := c.Stats(0, i); s != nil {
			t.Fatalf("delta with statistics: %+v %+v", d, s)
		}
	}
}
