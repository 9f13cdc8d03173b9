package analysis

import (
	"math"
	"testing"

	"speedmatrix/schema"
)

// servingRun is a run -rates run as runner writes it: one serve row per
// request rate (no concurrency), and per-request samples whose repeat
// numbers the rate in run order and whose concurrency is 0. ttft gives
// request j's TTFT at rate index i.
func servingRun(id string, rates []float64, ttft func(i, j int) float64) *schema.Matrix {
	m := &schema.Matrix{Run: schema.Run{RunID: id}}
	for i, r := range rates {
		m.Measurements = append(m.Measurements, schema.Measurement{RunID: id, Phase: schema.PhaseServe, ContextLabel: "1K", ContextTokens: schema.I64(1024),
			RequestRate: schema.F64(r), Status: schema.StatusValid, TotalTokS: schema.F64(100 * r), TTFTMs: schema.F64(ttft(i, 10))})
		for j := range 20 {
			m.Samples = append(m.Samples, schema.Sample{RunID: id, Phase: schema.PhaseServe, ContextLabel: "1K", Repeat: int32(i), Request: int64(j),
				TTFTMs: schema.F64(ttft(i, j)), InWindow: true})
		}
	}
	return m
}

// TestServeSamples checks that a serving run's per-request samples reach
// the cell of their rate, so its TTFT deltas get intervals and a test
// (issue 24: every sample fell under a key no serve cell has).
func TestServeSamples(t *testing.T) {
	rates := []float64{1, 2}
	b := servingRun("base", rates, func(i, j int) float64 { return 100*float64(i+1) + float64(j) })
	o := servingRun("other", rates, func(i, j int) float64 { return 150*float64(i+1) + float64(j) })
	c, err := Compare(b, []*schema.Matrix{o}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	found := 0
	for i, d := range c.Deltas[0] {
		k := c.Cells[d.Cell].Key
		if c.Metrics[d.Metric].Name != TTFTMs.Name {
			continue
		}
		st := c.Stats(0, i)
		if st == nil || st.Source != FromSamples {
			t.Errorf("%g/s: TTFT delta without statistics from samples: %+v", k.RequestRate, st)
			continue
		}
		found++
		// The baseline's samples at rate index r are 100(r+1) + 0…19:
		// their median is 100(r+1) + 9.5.
		want := 100*k.RequestRate + 9.5
		if math.Abs(st.Baseline.Center-want) > 1e-9 {
			t.Errorf("rate %g: baseline TTFT median %g, want %g (the samples of another rate?)", k.RequestRate, st.Baseline.Center, want)
		}
		if st.Baseline.Lo >= st.Baseline.Center || st.Baseline.Hi <= st.Baseline.Center {
			t.Errorf("rate %g: interval %g–%g around %g", k.RequestRate, st.Baseline.Lo, st.Baseline.Hi, st.Baseline.Center)
		}
	}
	if found != 2 {
		t.Errorf("%d TTFT deltas with statistics, want 2", found)
	}
}

// TestGoodputCompared checks that goodput measured against an SLO is
// compared without -metrics goodput_req_s (issue 24), and only then.
func TestGoodputCompared(t *testing.T) {
	rates := []float64{1, 2}
	f := func(i, j int) float64 { return 100 }
	for _, with := range []bool{false, true} {
		b, o := servingRun("base", rates, f), servingRun("other", rates, f)
		if with {
			o.Measurements[1].GoodputReqS = schema.F64(1.5)
		}
		c, err := Compare(b, []*schema.Matrix{o}, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if got := c.metricIndex(GoodputReqS.Name) >= 0; got != with {
			t.Errorf("goodput in a run: %v; compared: %v", with, got)
		}
	}
}
