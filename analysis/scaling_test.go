package analysis

import (
	"math"
	"testing"

	"speedmatrix/schema"
)

func TestScaleSeed(t *testing.T) {
	sc := Scale(IndexCells(loadSeed(t, seedINT4)))
	if len(sc) != 5 {
		t.Fatalf("%d curves, want 5 contexts", len(sc))
	}
	tests := []struct {
		ctx              string
		n                int32
		x, speedup, eff  float64
		points, excluded int
	}{
		{"8K", 128, 6091.1, 6091.1 / 325.2, 6091.1 / 325.2 / 128, 6, 2},
		{"8K", 8, 1627.8, 1627.8 / 325.2, 1627.8 / 325.2 / 8, 6, 2},
		{"16K", 2, 533.1, math.NaN(), math.NaN(), 5, 3}, // N=1 looped: no speedup
		{"123K", 64, 1967.7, 1967.7 / 265.1, 1967.7 / 265.1 / 64, 7, 1},
	}
	for _, tt := range tests {
		var s *Scaling
		for i := range sc {
			if sc[i].ContextLabel == tt.ctx {
				s = &sc[i]
			}
		}
		if s == nil {
			t.Fatalf("no curve for %s", tt.ctx)
		}
		if len(s.Points) != tt.points || len(s.Excluded) != tt.excluded {
			t.Errorf("%s: %d points, %d excluded; want %d, %d", tt.ctx, len(s.Points), len(s.Excluded), tt.points, tt.excluded)
		}
		for _, p := range s.Points {
			if p.N != tt.n {
				continue
			}
			if !closeOrNaN(p.X, tt.x) || !closeOrNaN(p.Speedup, tt.speedup) || !closeOrNaN(p.Efficiency, tt.eff) {
				t.Errorf("%s×%d: X %v speedup %v eff %v; want %v %v %v", tt.ctx, tt.n, p.X, p.Speedup, p.Efficiency, tt.x, tt.speedup, tt.eff)
			}
		}
		if s.Fit == nil || s.Fit.Lambda <= 0 || s.Fit.R2 <= 0 {
			t.Errorf("%s: fit %+v %v", tt.ctx, s.Fit, s.FitErr)
		}
	}
	if sc[0].Excluded[0] != (Excluded{16, StateLooped}) {
		t.Errorf("8K excluded %v", sc[0].Excluded)
	}
}

func closeOrNaN(got, want float64) bool {
	if math.IsNaN(want) || math.IsNaN(got) {
		return math.IsNaN(want) == math.IsNaN(got)
	}
	return math.Abs(got-want) <= 1e-9*math.Max(1, math.Abs(want))
}

func TestContextScalingSeed(t *testing.T) {
	cs := ContextScaling(IndexCells(loadSeed(t, seedBF16)))
	// prefill tok/s, prefill TTFT, then decode at 8 concurrencies.
	if len(cs) != 10 {
		t.Fatalf("%d series, want 10", len(cs))
	}
	if cs[0].Phase != schema.PhasePrefill || cs[0].Metric.Name != "total_tok_s" || len(cs[0].Points) != 6 || cs[0].Points[0].Value != 65300 || cs[0].Points[5].ContextLabel != "128K" {
		t.Errorf("prefill series %+v", cs[0])
	}
	if cs[1].Metric.Name != "ttft_ms" || cs[1].Points[4].Value != 2096 {
		t.Errorf("prefill TTFT series %+v", cs[1])
	}
	last := cs[9]
	if last.Concurrency != 128 || len(last.Points) != 5 || last.Points[0].Value != 13000 || last.Points[4].State != StateOverCapacity || !math.IsNaN(last.Points[4].Value) {
		t.Errorf("decode N=128 series %+v", last)
	}
}

func TestFrontierAndTargets(t *testing.T) {
	f := BuildFrontier(IndexCells(loadSeed(t, seedBF16)))
	if len(f.Points) != 39 {
		t.Errorf("%d points, want 39 valid decode cells", len(f.Points))
	}
	for i := 1; i < len(f.Pareto); i++ {
		a, b := f.Pareto[i-1], f.Pareto[i]
		if !(a.PerRequestTokS > b.PerRequestTokS && a.TotalTokS < b.TotalTokS) {
			t.Errorf("frontier not monotone at %d: %+v then %+v", i, a, b)
		}
	}
	for _, p := range f.Points {
		dominated, on := false, false
		for _, q := range f.Pareto {
			on = on || p == q
			dominated = dominated || (q.TotalTokS >= p.TotalTokS && q.PerRequestTokS >= p.PerRequestTokS && p != q)
		}
		if on == dominated {
			t.Errorf("%s×%d: on frontier %v, dominated %v", p.ContextLabel, p.Concurrency, on, dominated)
		}
	}
	best := BestAtUserRate(f, 100)
	wantBest := map[string]float64{"8K": 13000, "16K": 7598.9, "32K": 6551.3, "64K": 3658.7, "123K": 1985.9, "all": 13000}
	for _, b := range best {
		if !b.Found || b.Cell.TotalTokS != wantBest[b.ContextLabel] {
			t.Errorf("best at ≥100 tok/s/user, %s: %+v, want %v", b.ContextLabel, b, wantBest[b.ContextLabel])
		}
	}
	if nb := BestAtUserRate(f, 1000); nb[0].Found || nb[len(nb)-1].Found {
		t.Errorf("found a cell at ≥1000 tok/s per user: %+v", nb)
	}
	slo := MeetSLO(f, SLO{MaxTTFTMs: 500, MaxTBTMs: 10})
	wantN := map[string]int32{"8K": 64, "16K": 32, "32K": 8, "64K": 16, "123K": 16}
	for _, b := range slo {
		if !b.Found || b.Cell.Concurrency != wantN[b.ContextLabel] {
			t.Errorf("SLO %s: %+v, want N=%d", b.ContextLabel, b, wantN[b.ContextLabel])
		}
	}
	if s := MeetSLO(f, SLO{MaxTTFTMs: 10}); s[0].Found {
		t.Errorf("TTFT ≤ 10 ms met: %+v", s[0])
	}
}

func TestPareto(t *testing.T) {
	pts := []FrontierPoint{
		{Concurrency: 1, PerRequestTokS: 300, TotalTokS: 300},
		{Concurrency: 2, PerRequestTokS: 250, TotalTokS: 500},
		{Concurrency: 3, PerRequestTokS: 240, TotalTokS: 450}, // dominated by 2
		{Concurrency: 4, PerRequestTokS: 200, TotalTokS: 800},
		{Concurrency: 5, PerRequestTokS: 200, TotalTokS: 700}, // tie on per-request, less total
		{Concurrency: 6, PerRequestTokS: 100, TotalTokS: 800}, // equal total, less per-request
		{Concurrency: 7, PerRequestTokS: 50, TotalTokS: 1200},
	}
	got := Pareto(pts)
	var ns []int32
	for _, p := range got {
		ns = append(ns, p.Concurrency)
	}
	want := []int32{1, 2, 4, 7}
	if len(ns) != len(want) {
		t.Fatalf("frontier %v, want %v", ns, want)
	}
	for i := range want {
		if ns[i] != want[i] {
			t.Fatalf("frontier %v, want %v", ns, want)
		}
	}
}
