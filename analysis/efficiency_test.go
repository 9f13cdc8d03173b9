package analysis

import (
	"errors"
	"math"
	"testing"

	"speedmatrix/prices"
	"speedmatrix/schema"
)

// costRun is a run of decode cells at 8K: total tok/s per concurrency,
// with energy_j per cell when joules is non-nil (output_tokens over 30 s;
// output_tok_per_j left for the analysis to derive when derive is set).
func costRun(id, gpu string, gpus int32, totals map[int32]float64, joules map[int32]float64, derive bool) *schema.Matrix {
	m := &schema.Matrix{Run: schema.Run{RunID: id, GPU: gpu, Model: "m"}}
	if gpus > 0 {
		m.Run.GPUCount = schema.I32(gpus)
	}
	for _, n := range []int32{1, 8, 64} {
		x := schema.Measurement{RunID: id, Phase: schema.PhaseDecode, ContextLabel: "8K", Concurrency: schema.I32(n), Status: schema.StatusValid}
		if t, ok := totals[n]; ok {
			x.TotalTokS, x.PerRequestTokS = schema.F64(t), schema.F64(t/float64(n))
			x.MeasuredS, x.OutputTokens = schema.F64(30), schema.I64(int64(t*30))
		} else {
			x.Status = schema.StatusLooped
		}
		if j, ok := joules[n]; ok && x.Status == schema.StatusValid {
			x.EnergyJ, x.AvgPowerW = schema.F64(j), schema.F64(j/30)
			if !derive {
				x.OutputTokPerJ = schema.F64(float64(*x.OutputTokens) / j)
			}
		}
		m.Measurements = append(m.Measurements, x)
	}
	return m
}

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(math.Abs(a), math.Abs(b)) }

func TestPriceRuns(t *testing.T) {
	tab := &prices.Table{Entries: []prices.Entry{{GPU: "H200", USDPerHour: 2.4, Source: "p:3"}, {GPU: "RTX PRO 6000", USDPerHour: 1.2, Source: "p:4"}}}
	h200 := &schema.Run{RunID: "a", GPU: "H200 NVL", GPUCount: schema.I32(2)}
	rtx := &schema.Run{RunID: "b", GPU: "RTX PRO 6000 Blackwell Server Edition"}
	mi := &schema.Run{RunID: "c", GPU: "MI300X"}
	for _, tt := range []struct {
		name    string
		runs    []*schema.Run
		tab     *prices.Table
		gpus    []int32
		want    []Pricing
		wantErr string
	}{
		{name: "recorded and given counts", runs: []*schema.Run{h200, rtx}, tab: tab, gpus: []int32{0, 1},
			want: []Pricing{{Price: tab.Entries[0], Priced: true, GPUs: 2}, {Price: tab.Entries[1], Priced: true, GPUs: 1, GPUsGiven: true}}},
		{name: "count not recorded", runs: []*schema.Run{h200, rtx}, tab: tab,
			want: []Pricing{{Price: tab.Entries[0], Priced: true, GPUs: 2}, {Price: tab.Entries[1], Priced: true}}},
		{name: "same count given", runs: []*schema.Run{h200}, tab: tab, gpus: []int32{2},
			want: []Pricing{{Price: tab.Entries[0], Priced: true, GPUs: 2}}},
		{name: "no price", runs: []*schema.Run{mi}, tab: tab, want: []Pricing{{NoPrice: &prices.NoPriceError{GPU: "MI300X"}}}},
		{name: "no table", runs: []*schema.Run{h200}, want: []Pricing{{GPUs: 2}}},
		{name: "contradicted count", runs: []*schema.Run{h200}, tab: tab, gpus: []int32{4}, wantErr: "run a records 2 GPU(s); -gpus says 4"},
		{name: "ambiguous", runs: []*schema.Run{{GPU: "RTX 6000 Ada 6000"}}, tab: &prices.Table{Entries: []prices.Entry{{GPU: "RTX 6000", USDPerHour: 1, Source: "p:1"}, {GPU: "Ada 6000", USDPerHour: 2, Source: "p:2"}}},
			wantErr: `GPU "RTX 6000 Ada 6000" matches both "RTX 6000" (p:1) and "Ada 6000" (p:2)`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := PriceRuns(tt.runs, tt.tab, tt.gpus)
			if tt.wantErr != "" {
				if err == nil || len(err.Error()) < len(tt.wantErr) || err.Error()[:len(tt.wantErr)] != tt.wantErr {
					t.Fatalf("err %v, want %q…", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(tt.want) {
				t.Fatalf("got %+v", got)
			}
			for i := range got {
				// The reason a run has no price is compared by value.
				var np *prices.NoPriceError
				if (got[i].NoPrice == nil) != (tt.want[i].NoPrice == nil) ||
					got[i].NoPrice != nil && (!errors.As(got[i].NoPrice, &np) || *np != *tt.want[i].NoPrice.(*prices.NoPriceError)) {
					t.Errorf("run %d: no price %v, want %v", i, got[i].NoPrice, tt.want[i].NoPrice)
				}
				got[i].NoPrice, tt.want[i].NoPrice = nil, nil
				if got[i] != tt.want[i] {
					t.Errorf("run %d: %+v, want %+v", i, got[i], tt.want[i])
				}
			}
		})
	}
}

// TestCosts checks every per-cell figure against its formula
// (docs/schema.md): $/1M tokens = price × GPUs ÷ (tok/s × 3600) × 10⁶,
// tok/J from output_tok_per_j or output_tokens ÷ energy_j, per GPU =
// tok/s ÷ GPUs; and that nothing is invented where an input is missing.
func TestCosts(t *testing.T) {
	base := costRun("base", "H200", 2, map[int32]float64{1: 300, 8: 1600, 64: 6000}, map[int32]float64{1: 9000, 8: 12000, 64: 18000}, false)
	other := costRun("other", "RTX PRO 6000", 0, map[int32]float64{1: 250, 64: 3000}, map[int32]float64{1: 4500, 64: 6000}, true)
	c, err := Compare(base, []*schema.Matrix{other}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	pr := []Pricing{{Price: prices.Entry{USDPerHour: 2.4}, Priced: true, GPUs: 2}, {Price: prices.Entry{USDPerHour: 1.2}, Priced: true, GPUs: 1, GPUsGiven: true}}
	for _, tt := range []struct {
		name                   string
		pr                     []Pricing
		run                    int
		n                      int32
		usdPerMTok, tokJ, perG float64
	}{
		{name: "base N=1", pr: pr, run: 0, n: 1, usdPerMTok: 4.8 / (300 * 3600) * 1e6, tokJ: 9000.0 / 9000, perG: 150},
		{name: "base N=64", pr: pr, run: 0, n: 64, usdPerMTok: 4.8 / (6000 * 3600) * 1e6, tokJ: 180000.0 / 18000, perG: 3000},
		{name: "other N=64 (tok/J derived)", pr: pr, run: 1, n: 64, usdPerMTok: 1.2 / (3000 * 3600) * 1e6, tokJ: 90000.0 / 6000, perG: 3000},
		{name: "no pricing: run's own count", pr: nil, run: 0, n: 8, usdPerMTok: math.NaN(), tokJ: 48000.0 / 12000, perG: 800},
		{name: "no pricing, no count", pr: nil, run: 1, n: 1, usdPerMTok: math.NaN(), tokJ: 7500.0 / 4500, perG: math.NaN()},
		{name: "price without a count", pr: []Pricing{pr[0], {Price: prices.Entry{USDPerHour: 1.2}, Priced: true}}, run: 1, n: 1, usdPerMTok: math.NaN(), tokJ: 7500.0 / 4500, perG: math.NaN()},
	} {
		t.Run(tt.name, func(t *testing.T) {
			rcs := Costs(c, tt.pr)
			cc, ok := rcs[tt.run].Cell(Key{Phase: schema.PhaseDecode, ContextLabel: "8K", Concurrency: tt.n})
			if !ok {
				t.Fatal("no cell")
			}
			for _, f := range []struct {
				what      string
				got, want float64
			}{{"$/1M tokens", cc.USDPerMTok, tt.usdPerMTok}, {"tok/J", cc.TokPerJ, tt.tokJ}, {"tok/s per GPU", cc.PerGPUTokS, tt.perG}} {
				if math.IsNaN(f.want) != math.IsNaN(f.got) || !math.IsNaN(f.want) && !near(f.got, f.want) {
					t.Errorf("%s = %v, want %v", f.what, f.got, f.want)
				}
			}
			if !math.IsNaN(cc.USDPerMTok) && !near(cc.TokPerUSD*cc.USDPerMTok, 1e6) {
				t.Errorf("tokens per dollar %v is not 10⁶ ÷ %v", cc.TokPerUSD, cc.USDPerMTok)
			}
			if !rcs[tt.run].Energy {
				t.Error("Energy false with energy recorded")
			}
		})
	}
	// The looped cell has no figure at all.
	if _, ok := Costs(c, pr)[1].Cell(Key{Phase: schema.PhaseDecode, ContextLabel: "8K", Concurrency: 8}); ok {
		t.Error("a looped cell has cost figures")
	}
}

// TestCostRatios checks the summary ratios: per dollar is the throughput
// geometric mean times the baseline's cost per hour over the run's; per
// joule the geometric mean of the cells' tok/J ratios; NaN without inputs.
func TestCostRatios(t *testing.T) {
	base := costRun("base", "H200", 1, map[int32]float64{1: 300, 8: 1600, 64: 6000}, map[int32]float64{1: 9000, 8: 12000, 64: 18000}, false)
	other := costRun("other", "RTX", 1, map[int32]float64{1: 250, 8: 1200, 64: 3000}, map[int32]float64{1: 4500, 64: 6000}, false)
	noEnergy := costRun("other", "RTX", 1, map[int32]float64{1: 250, 8: 1200, 64: 3000}, nil, false)
	thr := math.Cbrt(250.0 / 300 * 1200 / 1600 * 3000 / 6000)
	perJ := math.Sqrt((7500.0 / 4500) / 1 * (90000.0 / 6000) / 10)
	for _, tt := range []struct {
		name                 string
		other                *schema.Matrix
		pr                   []Pricing
		perDollar, perJoule  float64
		jouleCells, thrCells int
	}{
		{name: "priced, energy", other: other, pr: []Pricing{{Priced: true, Price: prices.Entry{USDPerHour: 2.4}, GPUs: 1}, {Priced: true, Price: prices.Entry{USDPerHour: 1.2}, GPUs: 1}},
			perDollar: thr * 2, perJoule: perJ, jouleCells: 2, thrCells: 3},
		{name: "two GPUs against one", other: other, pr: []Pricing{{Priced: true, Price: prices.Entry{USDPerHour: 2.4}, GPUs: 1}, {Priced: true, Price: prices.Entry{USDPerHour: 1.2}, GPUs: 2}},
			perDollar: thr, perJoule: perJ, jouleCells: 2, thrCells: 3},
		{name: "baseline unpriced", other: noEnergy, pr: []Pricing{{GPUs: 1}, {Priced: true, Price: prices.Entry{USDPerHour: 1.2}, GPUs: 1}},
			perDollar: math.NaN(), perJoule: math.NaN(), thrCells: 3},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c, err := Compare(base, []*schema.Matrix{tt.other}, Options{})
			if err != nil {
				t.Fatal(err)
			}
			crs := CostRatios(c, c.Summarize(), Costs(c, tt.pr))
			if len(crs) != 1 {
				t.Fatalf("%d ratios", len(crs))
			}
			cr := crs[0]
			if !near(cr.Throughput, thr) || cr.Cells != tt.thrCells {
				t.Errorf("throughput %v over %d, want %v over %d", cr.Throughput, cr.Cells, thr, tt.thrCells)
			}
			for _, f := range []struct {
				what      string
				got, want float64
			}{{"per dollar", cr.PerDollar, tt.perDollar}, {"per joule", cr.PerJoule, tt.perJoule}} {
				if math.IsNaN(f.want) != math.IsNaN(f.got) || !math.IsNaN(f.want) && !near(f.got, f.want) {
					t.Errorf("%s = %v, want %v", f.what, f.got, f.want)
				}
			}
			if cr.JouleCells != tt.jouleCells {
				t.Errorf("%d joule cells, want %d", cr.JouleCells, tt.jouleCells)
			}
		})
	}
}

// TestMostPerJoule checks the answer per joule at a speed per request:
// the cell with the most tok/J among those fast enough, which need not be
// the one with the most throughput.
func TestMostPerJoule(t *testing.T) {
	// tok/J: N=1 300×30/9000 = 1, N=8 1600×30/3000 = 16, N=64 6000×30/18000 = 10.
	m := costRun("r", "H200", 1, map[int32]float64{1: 300, 8: 1600, 64: 6000}, map[int32]float64{1: 9000, 8: 3000, 64: 18000}, false)
	noJ := costRun("r", "H200", 1, map[int32]float64{1: 300, 8: 1600, 64: 6000}, nil, false)
	for _, tt := range []struct {
		name  string
		m     *schema.Matrix
		min   float64
		found bool
		n     int32
	}{
		{name: "any speed", m: m, found: true, n: 8},                       // 16 tok/J beats the 6,000 tok/s cell's 10
		{name: "150 tok/s per request", m: m, min: 150, found: true, n: 8}, // 1600/8 = 200 qualifies
		{name: "250 tok/s per request", m: m, min: 250, found: true, n: 1},
		{name: "400 tok/s per request", m: m, min: 400},
		{name: "no energy", m: noJ},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c, err := Compare(tt.m, []*schema.Matrix{tt.m}, Options{})
			if err != nil {
				t.Fatal(err)
			}
			got := MostPerJoule(&Costs(c, nil)[0], tt.min)
			if len(got) != 1 || got[0].ContextLabel != "8K" {
				t.Fatalf("got %+v", got)
			}
			if got[0].Found != tt.found || tt.found && got[0].Cell.Key.Concurrency != tt.n {
				t.Errorf("found %v at N=%d, want %v at N=%d", got[0].Found, got[0].Cell.Key.Concurrency, tt.found, tt.n)
			}
		})
	}
}
