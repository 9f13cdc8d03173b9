package sim

import (
	"math"
	"testing"
)

func TestGridAt(t *testing.T) {
	g := &Grid{
		Contexts:    []float64{1024, 4096},
		Concurrency: []float64{1, 4},
		Factor:      [][]float64{{1, 2}, {3, math.NaN()}},
	}
	cases := []struct {
		name   string
		ctx, c float64
		want   float64
	}{
		{"corner", 1024, 1, 1},
		{"corner_c", 1024, 4, 2},
		{"corner_ctx", 4096, 1, 3},
		{"missing_is_1", 4096, 4, 1},
		{"log_mid_c", 1024, 2, 1.5},   // 2 is halfway between 1 and 4 in log2
		{"log_mid_ctx", 2048, 1, 2},   // 2048 halfway between 1024 and 4096
		{"clamp_low", 10, 0.5, 1},     // clamped to the first corner
		{"clamp_high", 1e9, 1e9, 1},   // clamped to the missing corner
		{"clamp_ctx_only", 1e9, 1, 3}, // clamped on one axis
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := g.At(tc.ctx, tc.c); math.Abs(got-tc.want) > 1e-12 {
				t.Errorf("At(%v, %v) = %v, want %v", tc.ctx, tc.c, got, tc.want)
			}
		})
	}
	var nilGrid *Grid
	if nilGrid.At(1, 1) != 1 {
		t.Error("nil grid is not neutral")
	}
}
