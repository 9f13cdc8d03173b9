package sim

import (
	"math"
	"testing"
	"time"
)

func TestProfileRates(t *testing.T) {
	p := DefaultProfile().withDefaults()
	prefill := []struct {
		ctx  int64
		want float64
	}{
		{1, 200_000},       // clamped below the table
		{1024, 200_000},    // a point
		{16896, 150_000},   // halfway between the points
		{32768, 100_000},   // a point
		{1 << 20, 100_000}, // clamped above
	}
	for _, tc := range prefill {
		if got := p.PrefillRate(tc.ctx); got != tc.want {
			t.Errorf("PrefillRate(%d) = %v, want %v", tc.ctx, got, tc.want)
		}
	}
	steps := []struct {
		running int
		ctx     int64
		want    time.Duration
	}{
		{0, 0, 0},
		{1, 0, 202 * time.Microsecond},
		{64, 64_000, 200*time.Microsecond + 128*time.Microsecond + 1280*time.Nanosecond},
	}
	for _, tc := range steps {
		if got := p.StepTime(tc.running, tc.ctx); got != tc.want {
			t.Errorf("StepTime(%d, %d) = %v, want %v", tc.running, tc.ctx, got, tc.want)
		}
	}
	// 10 requests of 1,000 tokens: 200 + 10×2 µs + 20 ns × 10 = 220.2 µs
	// per step of 3 tokens each.
	p.ChunkTokens = 3
	if got, want := p.PredictTotalTokS(1000, 10), 30/220.2e-6; math.Abs(got/want-1) > 1e-9 {
		t.Errorf("PredictTotalTokS = %v, want %v", got, want)
	}
}
