package sim

import (
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestReplayMatrixShape runs the profile calibrated from the H200 seed
// (sped up) at a few cells and checks that the server, by its own truth,
// delivers the seed's total tok/s × Speedup.
func TestReplayMatrixShape(t *testing.T) {
	m := parseSeed(t, "001_03cf9c936d246394.txt")
	p, err := ProfileFromMatrix(m)
	if err != nil {
		t.Fatal(err)
	}
	p.Speedup = 2
	cases := []struct {
		ctx    int64
		c      int
		tokens int
		seed   float64 // the seed's total tok/s
	}{
		{8192, 1, 400, 334.7},
		{8192, 16, 300, 3016.8},
		{8192, 64, 250, 8146.9},
		{65536, 16, 250, 2403.5},
	}
	for _, tc := range cases {
		t.Run(contextLabel(tc.ctx)+"xC"+strconv.Itoa(tc.c), func(t *testing.T) {
			s, base, err := Start(p)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			addr := strings.TrimPrefix(base, "http://")
			prompt := proseOfTokens("replay", int(tc.ctx)-64)
			// The scout warms the prefix cache, as the runner's does.
			if _, done, err := rawStreamPrompt(addr, prompt, 1, make([]byte, 4096)); err != nil || !done {
				t.Fatalf("scout: %v", err)
			}
			s.Reset()
			lost0 := s.Stats().Lost
			var wg sync.WaitGroup
			for range tc.c {
				wg.Go(func() {
					if _, done, err := rawStreamPrompt(addr, prompt, tc.tokens, make([]byte, 32<<10)); err != nil || !done {
						t.Errorf("stream: done %v, %v", done, err)
					}
				})
			}
			wg.Wait()
			// The window: from the last first token to the first last chunk,
			// when all C requests are decoding.
			recs := s.Requests()
			var from, to time.Time
			for i, r := range recs {
				if i == 0 || r.FirstToken.After(from) {
					from = r.FirstToken
				}
				last := r.Chunks[len(r.Chunks)-1].At
				if i == 0 || last.Before(to) {
					to = last
				}
			}
			got := medianRate(recs, from, to) / p.Speedup
			e := got/tc.seed - 1
			// An engine starved of CPU for more than maxLag restarts its
			// schedule and loses that time (Stats().Lost, its own count):
			// the rate over wall time may fall short by that share of the
			// window, and by no more. On a quiet machine nothing is lost.
			lost := s.Stats().Lost - lost0
			short := lost.Seconds() / to.Sub(from).Seconds()
			t.Logf("%s C=%d: %.1f tok/s at 1× (seed %.1f, %+.1f%%) over %v, engine %+v (lost %v in the test, %.1f%% of the window)", contextLabel(tc.ctx), tc.c, got, tc.seed, 100*e, to.Sub(from), s.Stats(), lost, 100*short)
			if e > 0.10 || e < -0.10-short {
				t.Errorf("delivered %.1f tok/s, seed %.1f: off by %+.1f%% (the engine lost %.1f%% of the window to CPU starvation)", got, tc.seed, 100*e, 100*short)
			}
		})
	}
}

// medianRate returns the total tokens/s of recs' chunks between from and
// to: the median, over stretches a tenth of the chunks long, of tokens over
// time. On a machine shared by many processes the server is sometimes
// descheduled and catches up in a burst; the median ignores those
// stretches, the way TestPacing does.
func medianRate(recs []RequestRecord, from, to time.Time) float64 {
	var chunks []ChunkRecord
	for _, r := range recs {
		for _, ch := range r.Chunks {
			if ch.At.After(from) && !ch.At.After(to) {
				chunks = append(chunks, ch)
			}
		}
	}
	slices.SortFunc(chunks, func(a, b ChunkRecord) int { return a.At.Compare(b.At) })
	cum := make([]int, len(chunks)+1)
	for i, ch := range chunks {
		cum[i+1] = cum[i] + ch.Tokens
	}
	lag := max(len(chunks)/10, 1)
	var rates []float64
	for i := 0; i+lag < len(chunks); i++ {
		if d := chunks[i+lag].At.Sub(chunks[i].At).Seconds(); d > 0 {
			rates = append(rates, float64(cum[i+lag+1]-cum[i+1])/d)
		}
	}
	if len(rates) == 0 {
		return 0
	}
	slices.Sort(rates)
	return rates[len(rates)/2]
}
