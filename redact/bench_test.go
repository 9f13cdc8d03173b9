package redact

import (
	"testing"

	"speedmatrix/schema"
)

// BenchmarkWalkMatrix scrubs a run of 50 cells and 20,000 per-request
// samples, as Runner.finish does at every checkpoint: it reports the
// samples scrubbed per second.
func BenchmarkWalkMatrix(b *testing.B) {
	m := &schema.Matrix{Run: schema.Run{Model: "m", ServerURL: "http://127.0.0.1:8000", LaunchCommand: "vllm serve m --api-key <redacted>"}}
	for i := 0; i < 50; i++ {
		m.Measurements = append(m.Measurements, schema.Measurement{Phase: schema.PhaseDecode, ContextLabel: "8K", Status: schema.StatusValid})
	}
	for i := 0; i < 20000; i++ {
		s := schema.Sample{RunID: "0123456789abcdef", Phase: schema.PhaseDecode, ContextLabel: "8K"}
		if i%100 == 0 {
			s.Error = "HTTP 500: key sm-local-key-0042abcd refused"
		}
		m.Samples = append(m.Samples, s)
	}
	sc := NewScrubber("sm-local-key-0042abcd")
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		sc.Walk(m)
	}
	b.ReportMetric(float64(len(m.Samples))*float64(b.N)/b.Elapsed().Seconds(), "samples/s")
}
