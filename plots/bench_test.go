package plots

import (
	"io"
	"testing"
	"time"
)

// BenchmarkRenderAll draws every seed chart (decode total and per-request
// lines, ratio heatmap, frontier, trend, prefill speed and TTFT) per
// iteration, from spec to bytes, and reports charts per second.
func BenchmarkRenderAll(b *testing.B) {
	charts := seedCharts()
	for _, format := range []struct {
		name string
		save func(*Figure, io.Writer, int, int) error
	}{
		{"svg", SaveSVG},
		{"svg-no-font", SaveSVGNoFont},
		{"png", SavePNG},
	} {
		b.Run(format.name, func(b *testing.B) {
			start := time.Now()
			n := 0
			for b.Loop() {
				for _, c := range charts {
					fig, err := c.Chart.Figure()
					if err != nil {
						b.Fatal(err)
					}
					if err := format.save(fig, io.Discard, DefaultWidthPx, DefaultHeightPx); err != nil {
						b.Fatal(err)
					}
					n++
				}
			}
			b.ReportMetric(float64(n)/time.Since(start).Seconds(), "charts/s")
		})
	}
}
