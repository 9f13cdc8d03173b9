package runner

import (
	"math"
	"testing"
)

func TestQuantile(t *testing.T) {
	tests := []struct {
		xs   []float64
		q    float64
		want float64
	}{
		{[]float64{5}, 0.5, 5},
		{[]float64{1, 2, 3, 4}, 0.5, 2.5},
		{[]float64{1, 2, 3}, 0.5, 2},
		{[]float64{0, 10}, 0.9, 9},
		{[]float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, 0.99, 9.91},
		{[]float64{1, 2}, 1, 2},
		{nil, 0.5, math.NaN()},
	}
	for _, tt := range tests {
		got := quantile(tt.xs, tt.q)
		if !(math.Abs(got-tt.want) < 1e-9 || (math.IsNaN(got) && math.IsNaN(tt.want))) {
			t.Errorf("quantile(%v, %v) = %v, want %v", tt.xs, tt.q, got, tt.want)
		}
	}
}

func TestSummarize(t *testing.T) {
	d, ok := summarize([]float64{4, 1, 3, 2})
	if !ok || d.n != 4 || d.mean != 2.5 || d.p50 != 2.5 || math.Abs(d.p90-3.7) > 1e-9 {
		t.Fatalf("summarize = %+v, %v", d, ok)
	}
	if _, ok := summarize(nil); ok {
		t.Fatal("summarize(nil) ok")
	}
}
