package analysis

import (
	"golang.org/x/perf/benchmath"

	"speedmatrix/schema"
)

// CellStats is the spread of one metric of one cell on both sides of a
// delta and a test of whether they differ, computed the way benchstat
// does: medians with distribution-free confidence intervals and a
// Mann–Whitney U test (benchmath.AssumeNothing).
type CellStats struct {
	// Source says where the spread comes from: FromRepeats or
	// FromSamples.
	Source          SpreadSource
	Baseline, Value benchmath.Summary
	Test            benchmath.Comparison
}

// SpreadSource is where the figures of a cell's spread come from.
type SpreadSource uint8

// The sources of a spread.
const (
	// FromRepeats is a cell measured several times (one figure each).
	FromRepeats SpreadSource = iota + 1
	// FromSamples is a cell measured once with per-request records.
	FromSamples
)

// Significant reports whether the test rejects "same distribution" at
// its alpha.
func (s *CellStats) Significant() bool { return s.Test.P < s.Test.Alpha }

// spread returns the values of mt over the repeats of c, or over its
// per-request samples when it was measured once, and where they came
// from. It returns nil when there are fewer than two.
func spread(cs *Cells, c *Cell, mt Metric) ([]float64, SpreadSource) {
	if vs := c.Values(mt); len(vs) >= 2 {
		return vs, FromRepeats
	}
	get := sampleMetric(mt.Name)
	if get == nil || cs.samples == nil {
		return nil, 0
	}
	var vs []float64
	for _, s := range cs.samples[c.Key] {
		if s.Error != "" || !s.InWindow {
			continue
		}
		if p := get(s); p != nil {
			vs = append(vs, *p)
		}
	}
	if len(vs) < 2 {
		return nil, 0
	}
	return vs, FromSamples
}

// sampleMetric maps a measurements column to the per-request figure of
// schema.Sample it summarizes, nil when samples have none (throughput is
// a property of the whole cell).
func sampleMetric(name string) func(*schema.Sample) *float64 {
	switch name {
	case TTFTMs.Name:
		return func(s *schema.Sample) *float64 { return s.TTFTMs }
	case TBTMs.Name:
		return func(s *schema.Sample) *float64 { return s.TBTMs }
	case PerRequestTokS.Name:
		return func(s *schema.Sample) *float64 { return s.DecodeTokS }
	}
	return nil
}

// cellStats returns the statistics of one delta, nil unless both sides
// have a spread of the same kind.
func cellStats(b *Cells, bc *Cell, o *Cells, oc *Cell, mt Metric, opt Options) *CellStats {
	if len(bc.Rows) < 2 && len(oc.Rows) < 2 && b.samples == nil && o.samples == nil {
		return nil // the common case: one figure per cell on both sides
	}
	bv, bsrc := spread(b, bc, mt)
	ov, osrc := spread(o, oc, mt)
	if bv == nil || ov == nil || bsrc != osrc {
		return nil
	}
	th := benchmath.DefaultThresholds
	th.CompareAlpha = opt.Alpha
	s1, s2 := benchmath.NewSample(bv, &th), benchmath.NewSample(ov, &th)
	a := benchmath.AssumeNothing
	return &CellStats{
		Source:   bsrc,
		Baseline: a.Summary(s1, opt.Confidence),
		Value:    a.Summary(s2, opt.Confidence),
		Test:     a.Compare(s1, s2),
	}
}
