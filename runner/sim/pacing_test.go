package sim

import (
	"context"
	"math"
	"slices"
	"testing"
	"time"
)

// TestPacing checks that at batch 1 the recorded gaps between chunks match
// the profile's step time: deadlines keep the mean exact however late each
// wake-up is. It logs the measured gap distribution.
func TestPacing(t *testing.T) {
	cases := []struct {
		name string
		step time.Duration
	}{
		{"200us", 200 * time.Microsecond},
		{"1ms", time.Millisecond},
		{"5ms", 5 * time.Millisecond},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := DefaultProfile()
			p.StepBase, p.StepPerSeq, p.StepPerKToken = tc.step, 0, 0
			n := int(min(400*time.Millisecond/tc.step, 2000))
			s, c := startSim(t, p)
			r, err := c.post(context.Background(), "/v1/completions", map[string]any{
				"prompt": "pace me", "max_tokens": n, "ignore_eos": true, "stream": true,
			})
			if err != nil || r.Status != 200 || !r.sawDone() {
				t.Fatalf("%v %+v", err, r)
			}
			rec := s.Requests()[0]
			if rec.OutputTokens != int64(n) {
				t.Fatalf("%d tokens, want %d", rec.OutputTokens, n)
			}
			ch := rec.Chunks
			mean := slope(ch)
			var gaps []float64
			for i := 1; i < len(ch); i++ {
				gaps = append(gaps, float64(ch[i].At.Sub(ch[i-1].At))/float64(ch[i].Tokens))
			}
			slices.Sort(gaps)
			q := func(f float64) time.Duration { return time.Duration(gaps[int(f*float64(len(gaps)-1))]) }
			want := tc.step.Seconds()
			t.Logf("step %v: time per token (median) %.1f µs (%+.2f%%), %d chunks for %d tokens, gap p10 %v p50 %v p90 %v p99 %v max %v",
				tc.step, mean*1e6, 100*(mean/want-1), len(ch), n, q(.1), q(.5), q(.9), q(.99), q(1))
			st := s.Stats()
			t.Logf("engine: %d steps, wake-up overshoot mean %v max %v, %d schedule resets", st.Steps, st.MeanOvershoot, st.MaxOvershoot, st.Resets)
			if math.Abs(mean/want-1) > 0.03 {
				t.Errorf("mean gap per token %.1f µs, want %.1f µs ±3%%", mean*1e6, want*1e6)
			}
		})
	}
}

// slope returns seconds per token: the median over chunk pairs a tenth of
// the stream apart of time over tokens between them. A machine shared by
// many processes deschedules the writer or the engine now and then; the
// median ignores those stretches where a least-squares fit would not.
func slope(ch []ChunkRecord) float64 {
	cum := make([]int, len(ch))
	n := 0
	for i, c := range ch {
		n += c.Tokens
		cum[i] = n
	}
	lag := max(len(ch)/10, 1)
	var rates []float64
	for i := 0; i+lag < len(ch); i++ {
		rates = append(rates, ch[i+lag].At.Sub(ch[i].At).Seconds()/float64(cum[i+lag]-cum[i]))
	}
	slices.Sort(rates)
	return rates[len(rates)/2]
}
