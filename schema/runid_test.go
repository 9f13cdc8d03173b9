package schema

import (
	"math"
	"testing"
	"time"
)

func testMatrix() *Matrix {
	return &Matrix{
		Run: Run{Title: "M on G 80GB", Model: "M", GPU: "G", VRAMGB: F64(80), SourcePath: "a.txt", SourceFormat: FormatText},
		Measurements: []Measurement{
			{Phase: PhaseDecode, ContextLabel: "8K", ContextTokens: I64(8192), Concurrency: I32(1), Status: StatusValid,
				TotalTokS: F64(325.2), SourceLine: 12, Printed: []KV{{Key: "Total tok/s", Value: "325.2"}}},
			{Phase: PhaseServe, ContextLabel: "1K", Status: StatusValid, RequestRate: F64(math.Inf(1)),
				Extra: []Metric{{Name: "p99_9_ttft_ms", Value: 12.5}, {Name: "odd", Value: math.NaN()}}},
		},
	}
}

func TestComputeRunID(t *testing.T) {
	base := ComputeRunID(testMatrix())
	if len(base) != RunIDLen {
		t.Fatalf("id %q has %d digits, want %d", base, len(base), RunIDLen)
	}
	tests := []struct {
		name   string
		change func(m *Matrix)
		same   bool
	}{
		{"source and ingest facts", func(m *Matrix) {
			m.Run.SourcePath, m.Run.SourceFormat, m.Run.SourceSHA256 = "b.html", FormatHTML, "ff"
			m.Run.IngestedAt = time.Now()
			m.Run.RunID = "x"
		}, true},
		{"line numbers and printed text", func(m *Matrix) {
			m.Measurements[0].SourceLine = 99
			m.Measurements[0].Printed = []KV{{Key: "Total tok/s", Value: "325.20"}}
		}, true},
		{"per-request samples", func(m *Matrix) { m.Samples = []Sample{{Request: 1, OutputTokens: 5}} }, true},
		{"the subtitle, a summary", func(m *Matrix) { m.Run.Subtitle = "vllm · 0.30 · INT4 · 5 contexts" }, true},
		{"a figure", func(m *Matrix) { m.Measurements[0].TotalTokS = F64(325.3) }, false},
		{"a status", func(m *Matrix) { m.Measurements[0].Status = StatusLooped }, false},
		{"metadata", func(m *Matrix) { m.Run.Metadata = []Field{{Section: "Run", Key: "Note", Value: "x"}} }, false},
		{"an infinite rate becomes finite", func(m *Matrix) { m.Measurements[1].RequestRate = F64(4) }, false},
		{"an infinite rate becomes null", func(m *Matrix) { m.Measurements[1].RequestRate = nil }, false},
		{"an extra figure", func(m *Matrix) { m.Measurements[1].Extra[0].Value = 12.6 }, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := testMatrix()
			tt.change(m)
			if got := ComputeRunID(m); (got == base) != tt.same {
				t.Errorf("id %s, base %s: same = %v, want %v", got, base, got == base, tt.same)
			}
		})
	}
}

func TestComputeRunIDLeavesInputAlone(t *testing.T) {
	m := testMatrix()
	_ = ComputeRunID(m)
	if !math.IsInf(*m.Measurements[1].RequestRate, 1) || !math.IsNaN(m.Measurements[1].Extra[1].Value) {
		t.Fatal("ComputeRunID changed the matrix it hashed")
	}
	if m.Measurements[0].SourceLine != 12 || m.Run.SourcePath != "a.txt" {
		t.Fatal("ComputeRunID cleared fields of the caller's matrix")
	}
}

func BenchmarkComputeRunID(b *testing.B) {
	m := testMatrix()
	for len(m.Measurements) < 46 {
		m.Measurements = append(m.Measurements, m.Measurements[0])
	}
	for b.Loop() {
		ComputeRunID(m)
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "ids/s")
}

// TestRunIDHasherPieces checks that the id of a matrix hashed in pieces
// of every size equals ComputeRunID of the whole.
func TestRunIDHasherPieces(t *testing.T) {
	m := &Matrix{Run: Run{Title: "pieces", Model: "m"}}
	for i := 0; i < 2000; i++ {
		rate := float64(i)
		if i == 7 {
			rate = math.Inf(1) // a non-finite figure is listed at its row
		}
		m.Measurements = append(m.Measurements, Measurement{Phase: PhaseDecode, ContextLabel: "8K",
			Concurrency: I32(int32(i)), RequestRate: F64(rate), Status: StatusValid, SourceLine: int64(i),
			Extra: []Metric{{Name: "x", Value: float64(i) / 3}}})
	}
	want := ComputeRunID(m)
	for _, size := range []int{1, 7, 64, 200, 1000} {
		h := NewRunIDHasher(&m.Run)
		for i := 0; i < len(m.Measurements); i += size {
			h.Add(m.Measurements[i:min(i+size, len(m.Measurements))])
		}
		if got := h.Sum(); got != want {
			t.Errorf("pieces of %d: id %s, want %s", size, got, want)
		}
	}
}

func TestIsRunID(t *testing.T) {
	for s, want := range map[string]bool{
		"64fc894aa5d096e9": true, "b279091a2c81fcf2": true,
		"64fc894aa5d096e": false, "64fc894aa5d096e90": false, "64FC894AA5D096E9": false,
		"gpu=H200": false, "": false, "64fc894aa5d096eg": false,
	} {
		if got := IsRunID(s); got != want {
			t.Errorf("IsRunID(%q) = %v, want %v", s, got, want)
		}
	}
}
