package report

import (
	"io"
	"testing"
	"time"

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
		if err := r.Write(io.Discard, FormatText, ""); err != nil {
			b.Fatal(err)
		}
		if err := r.Write(io.Discard, FormatJSON, ""); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "reports/s")
}

// BenchmarkWritePage writes a page of the seeds (two runs, three
// tables, every chart of their comparison) and reports its size and
// pages per second.
func BenchmarkWritePage(b *testing.B) {
	r := seedPage(b)
	var size int64
	start := time.Now()
	n := 0
	for b.Loop() {
		cw := &countWriter{}
		if err := WritePage(cw, r); err != nil {
			b.Fatal(err)
		}
		size = cw.n
		n++
	}
	b.SetBytes(size)
	b.ReportMetric(float64(n)/time.Since(start).Seconds(), "pages/s")
}

type countWriter struct{ n int64 }

func (c *countWriter) Write(p []byte) (int, error) { c.n += int64(len(p)); return len(p), nil }
