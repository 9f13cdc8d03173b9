//go:build unix

package analysis

import (
	"testing"

	"speedmatrix/internal/testtool"
	"speedmatrix/schema"
)

// BenchmarkCompare10000 is compare against an archive of 10,000 runs:
// pick the baseline by run-id prefix and a second run by metadata
// filters among all 10,000, then align and compute the deltas and
// geometric means of the baseline against every other run of the
// archive. It reports runs compared per second; the target is the whole
// operation under a second.
func BenchmarkCompare10000(b *testing.B) {
	const n = 10000
	ms := syntheticArchive(n)
	runs := make([]schema.Run, n)
	for i, m := range ms {
		runs[i] = m.Run
	}
	byID := make(map[string]*schema.Matrix, n)
	for _, m := range ms {
		byID[m.Run.RunID] = m
	}
	baseSel := ms[1234].Run.RunID[:12]
	o := ms[5321].Run
	otherSel := "gpu=~" + o.GPU[:4] + ",model=" + o.Model + ",engine_version=" + o.EngineVersion
	b.ReportAllocs()
	cpu0 := testtool.CPU()
	for b.Loop() {
		base, err := Select(runs, baseSel)
		if err != nil {
			b.Fatal(err)
		}
		other, err := Select(runs, otherSel)
		if err != nil {
			b.Fatal(err)
		}
		others := make([]*schema.Matrix, 0, n-1)
		others = append(others, byID[other.RunID])
		for _, m := range ms {
			if m.Run.RunID != base.RunID && m.Run.RunID != other.RunID {
				others = append(others, m)
			}
		}
		c, err := Compare(byID[base.RunID], others, Options{})
		if err != nil {
			b.Fatal(err)
		}
		sum := c.Summarize()
		if len(c.Deltas) != n-1 || len(sum) == 0 {
			b.Fatalf("%d deltas, %d summaries", len(c.Deltas), len(sum))
		}
	}
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "runs/s")
	// CPU time of the process (all threads, GC included) per operation:
	// on a shared machine wall time also counts other processes' turns.
	b.ReportMetric((testtool.CPU()-cpu0).Seconds()*1000/float64(b.N), "cpu-ms/op")
}

// BenchmarkCompareSeeds is the everyday case: two seed-shaped runs.
func BenchmarkCompareSeeds(b *testing.B) {
	base, other := loadSeed(b, seedBF16), loadSeed(b, seedINT4)
	b.ReportAllocs()
	for b.Loop() {
		c, err := Compare(base, []*schema.Matrix{other}, Options{})
		if err != nil {
			b.Fatal(err)
		}
		c.Summarize()
	}
	b.ReportMetric(float64(len(base.Measurements)+len(other.Measurements))*float64(b.N)/b.Elapsed().Seconds(), "cells/s")
}
