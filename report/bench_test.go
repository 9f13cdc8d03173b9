package report

import (
	"io"
	"testing"

	"speedmatrix/analysis"
	"speedmatrix/schema"
)

// BenchmarkSeedsReport composes the seeds' report (alignment, summary,
// tables, matrices) and writes it as text and as JSON; drawing charts is
// measured by package plots.
func BenchmarkSeedsReport(b *testing.B) {
	p := pairs[0]
	base, other := load(b, p.base), load(b, p.other)
	b.ReportAllocs()
	for b.Loop() {
		c, err := analysis.Compare(base, []*schema.Matrix{other}, analysis.Options{SameWithin: 0.03})
		if err != nil {
			b.Fatal(err)
		}
		r := New(c, p.opt)
		if err := r.Write(io.Discard, analysis.FormatText, ""); err != nil {
			b.Fatal(err)
		}
		if err := r.Write(io.Discard, analysis.FormatJSON, ""); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "reports/s")
}
