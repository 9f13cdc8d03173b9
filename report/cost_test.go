package report

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"speedmatrix/analysis"
	"speedmatrix/plots"
	"speedmatrix/prices"
	"speedmatrix/schema"
)

// withEnergy sets on every valid decode cell of m an energy over its
// window from a power model (idle + perReq W per request), as a power
// source would record it, and gpus as the run's GPU count (0: none).
func withEnergy(m *schema.Matrix, idle, perReq float64, gpus int32) *schema.Matrix {
	if gpus > 0 {
		m.Run.GPUCount = schema.I32(gpus)
	}
	m.Run.PowerSource = "nvidia-smi"
	for i := range m.Measurements {
		x := &m.Measurements[i]
		if x.Phase != schema.PhaseDecode || x.Status != schema.StatusValid || x.MeasuredS == nil || x.OutputTokens == nil {
			continue
		}
		w := idle + perReq*float64(*x.Concurrency)
		e := w * *x.MeasuredS
		x.EnergyJ, x.AvgPowerW, x.OutputTokPerJ = schema.F64(e), schema.F64(w), schema.F64(float64(*x.OutputTokens)/e)
	}
	return m
}

func seedPrices(t *testing.T) *prices.Table {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "testdata", "prices.toml"))
	if err != nil {
		t.Fatal(err)
	}
	tab, err := prices.Parse(data, "prices.toml")
	if err != nil {
		t.Fatal(err)
	}
	return tab
}

// costReport compares the seeds, their GPU counts cleared, with energy
// set (the H200 recording one GPU, the RTX PRO 6000 given one) at the
// example prices.
func costReport(t *testing.T, energy bool, gpus []int32) *Report {
	t.Helper()
	base, other := load(t, seedBF16), load(t, seedINT4)
	// The seeds record one GPU each (their launch commands' tensor
	// parallel size); these cases set the counts themselves.
	base.Run.GPUCount, other.Run.GPUCount = nil, nil
	if energy {
		withEnergy(base, 180, 4, 1)
		withEnergy(other, 120, 2.5, 0)
	}
	ms := []*schema.Matrix{base, other}
	tab := seedPrices(t)
	pr, err := analysis.PriceRuns([]*schema.Run{&base.Run, &other.Run}, tab, gpus)
	if err != nil {
		t.Fatal(err)
	}
	c, err := analysis.Compare(ms[0], ms[1:], analysis.Options{Labels: Labels(ms), SameWithin: 0.03})
	if err != nil {
		t.Fatal(err)
	}
	return New(c, Options{MinUserTokS: 100, SLO: analysis.SLO{MaxTTFTMs: 1000}, Prices: tab, Pricing: pr})
}

// TestCostGolden writes the seeds' report per dollar and per joule as
// text, Markdown and JSON (its cost object), energy set on both runs.
func TestCostGolden(t *testing.T) {
	r := costReport(t, true, []int32{0, 1})
	for _, f := range []struct {
		format Format
		file   string
	}{{FormatText, "cost_seeds.txt"}, {FormatMarkdown, "cost_seeds.md"}} {
		var b bytes.Buffer
		if err := r.Write(&b, f.format, ""); err != nil {
			t.Fatal(err)
		}
		golden(t, f.file, b.Bytes())
	}
	js, err := json.MarshalIndent(r.JSON().Cost, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "cost_seeds.json", append(js, '\n'))
}

// TestCostOutcome checks the sentence per dollar and per joule and the
// one line per run that lacks an input, for the inputs a user may give.
func TestCostOutcome(t *testing.T) {
	for _, tt := range []struct {
		name    string
		energy  bool
		gpus    []int32
		want    []string
		notWant []string
	}{
		{name: "priced with energy", energy: true, gpus: []int32{0, 1},
			want: []string{"Per dollar and per joule, RTX PRO 6000 INT4 against H200 NVL BF16: 0.756× the throughput, 1.51× the tokens per dollar at 1.2 $/h against 2.4 $/h (1 GPU each; prices as of 2026-12-01, prices.toml);",
				"the tokens per joule (over 32 cells with energy in both)"},
			// The cost section lacks nothing (the also-differ line may
			// still say a field is not recorded in one run).
			notWant: []string{"energy: not recorded", "GPU count not recorded", "not compared"}},
		{name: "no GPU counts", energy: false,
			want: []string{"0.756× the throughput; tokens per dollar not compared (GPU count recorded by neither run); tokens per joule not compared (energy not recorded in either run).",
				"H200 NVL BF16: GPU count not recorded (no $ figures and no tok/s per GPU); energy: not recorded.",
				"RTX PRO 6000 INT4: GPU count not recorded (no $ figures and no tok/s per GPU); energy: not recorded."}},
		{name: "one count", energy: false, gpus: []int32{0, 2},
			want: []string{"tokens per dollar not compared (GPU count not recorded for H200 NVL BF16)", "RTX PRO 6000 INT4: energy: not recorded."}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := costReport(t, tt.energy, tt.gpus)
			var b bytes.Buffer
			if err := r.Write(&b, FormatText, ""); err != nil {
				t.Fatal(err)
			}
			for _, w := range tt.want {
				if !strings.Contains(b.String(), w) {
					t.Errorf("missing %q in\n%s", w, b.String()[:min(b.Len(), 3000)])
				}
			}
			for _, w := range tt.notWant {
				if strings.Contains(b.String(), w) {
					t.Errorf("has %q", w)
				}
			}
		})
	}
}

// TestCostInactive checks that a report without prices, GPU counts or
// energy has no trace of the answers per dollar (the seeds' goldens hold
// the rest of it unchanged).
func TestCostInactive(t *testing.T) {
	r := build(t, pairs[0])
	var b bytes.Buffer
	if err := r.Write(&b, FormatText, ""); err != nil {
		t.Fatal(err)
	}
	charts, _ := r.Charts()
	for _, ch := range charts {
		if strings.HasPrefix(ch.Name, "per_") {
			t.Errorf("chart %s drawn", ch.Name)
		}
	}
	if strings.Contains(b.String(), "per dollar") || r.JSON().Cost != nil {
		t.Error("a report without prices or energy answers per dollar")
	}
}

// TestCostCharts draws the charts per dollar and per joule and checks
// that each point is a cell's figure.
func TestCostCharts(t *testing.T) {
	r := costReport(t, true, []int32{0, 1})
	charts, notes := r.Charts()
	if len(notes) > 0 {
		t.Fatal(notes)
	}
	found := map[string]plots.LineChart{}
	for _, ch := range charts {
		if lc, ok := ch.Chart.(plots.LineChart); ok && strings.HasPrefix(ch.Name, "per_") {
			found[ch.Name] = lc
		}
	}
	if len(found) != 2 {
		t.Fatalf("charts %v", found)
	}
	// The H200's 8K×128 cell: 13,000 tok/s at 2.4 $/h is 19.5M tokens per
	// dollar; (180 + 4×128) W over 30 s against its output tokens.
	cc, ok := r.Costs[0].Cell(analysis.Key{Phase: schema.PhaseDecode, ContextLabel: "8K", Concurrency: 128})
	if !ok {
		t.Fatal("no 8K×128 cell")
	}
	for name, want := range map[string]float64{"per_dollar": 13000 * 3600 / 2.4 / 1e6, "per_joule": cc.TokPerJ} {
		hit := false
		for _, s := range found[name].Series {
			for _, p := range s.Points {
				if s.Run == "H200 NVL BF16" && s.Group == "8K" && p.X == cc.PerRequestTokS && math.Abs(p.Y-want) < 1e-9*want {
					hit = true
				}
			}
		}
		if !hit {
			t.Errorf("%s: no point (%v, %v) for H200 8K×128", name, cc.PerRequestTokS, want)
		}
	}
}
