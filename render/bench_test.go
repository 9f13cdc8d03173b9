package render

import (
	"bytes"
	"io"
	"testing"

	"speedmatrix/schema"
)

// bigRun is a measuring run's matrix of 32 contexts × 12 concurrencies
// with percentile columns: the largest documents render is asked for.
func bigRun() *schema.Matrix {
	m := synthRun()
	m.Measurements = m.Measurements[:0]
	for ctx := int64(1); ctx <= 32; ctx++ {
		for c := int32(1); c <= 2048; c *= 2 {
			x := schema.Measurement{Phase: schema.PhaseDecode, ContextLabel: FormatCount(ctx*4) + "K",
				ContextTokens: schema.I64(ctx * 4 * 1024), Concurrency: schema.I32(c), Status: schema.StatusValid}
			v := float64(c) * 301.37 / float64(ctx)
			x.TotalTokS, x.PerRequestTokS, x.TTFTMs, x.TBTMs = &v, schema.F64(v/float64(c)), schema.F64(41.7*float64(ctx)), schema.F64(3.17)
			x.TTFTP90Ms, x.TTFTP99Ms, x.TBTP90Ms, x.TBTP99Ms = schema.F64(50.1), schema.F64(60.2), schema.F64(4.4), schema.F64(5.5)
			x.CompletedRequests, x.OutputTokens, x.MeasuredS = schema.I64(int64(c)), schema.I64(int64(v*30)), schema.F64(30)
			m.Measurements = append(m.Measurements, x)
		}
	}
	return m
}

func BenchmarkRender(b *testing.B) {
	_, seed := parseSeed(b, seedPaths[0])
	inputs := []struct {
		name string
		m    *schema.Matrix
	}{{"seed", seed}, {"big", bigRun()}}
	for _, in := range inputs {
		for _, f := range forms {
			b.Run(in.name+"/"+f.ext, func(b *testing.B) {
				var out bytes.Buffer
				if err := f.write(&out, in.m); err != nil {
					b.Fatal(err)
				}
				b.SetBytes(int64(out.Len()))
				b.ReportAllocs()
				w := map[string]func(io.Writer, *schema.Matrix) error{"txt": Text, "md": Markdown, "html": HTML}[f.ext]
				for b.Loop() {
					if err := w(io.Discard, in.m); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
