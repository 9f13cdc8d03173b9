package analysis

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"speedmatrix/schema"
)

// syntheticArchive returns n runs shaped like the seeds: prefill at six
// contexts, decode at five contexts × eight concurrencies, a few looped
// cells and the over-capacity corner, metadata spread over GPUs, models,
// engine versions and quantizations. Run i has a unique engine version
// (0.<i/100>.<i%100>) so a metadata filter can pick exactly one run.
func syntheticArchive(n int) []*schema.Matrix {
	rng := rand.New(rand.NewPCG(42, 10000))
	gpus := []string{"H200 NVL", "H100 SXM", "RTX PRO 6000 Blackwell Server Edition", "B200", "MI300X"}
	models := []string{"Ling-3.0-tiny", "Ling-3.0-tiny-int4", "Qwen3-32B", "Llama-4-Scout"}
	quants := []string{"BF16", "FP8", "INT4", "NVFP4"}
	prefill := []string{"8K", "16K", "32K", "64K", "123K", "128K"}
	ctxs := []string{"8K", "16K", "32K", "64K", "123K"}
	ns := []int32{1, 2, 4, 8, 16, 32, 64, 128}
	out := make([]*schema.Matrix, n)
	for i := range out {
		id := fmt.Sprintf("%016x", rng.Uint64())
		m := &schema.Matrix{Run: schema.Run{
			RunID: id, Model: models[i%len(models)], GPU: gpus[(i/len(models))%len(gpus)], Engine: "vllm",
			EngineVersion: fmt.Sprintf("0.%d.%d", i/100, i%100), Quantization: quants[(i/7)%len(quants)],
			IngestedAt: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(i) * time.Hour),
		}}
		speed := 0.5 + rng.Float64()
		for ci, c := range prefill {
			m.Measurements = append(m.Measurements, schema.Measurement{RunID: id, Phase: schema.PhasePrefill, ContextLabel: c,
				Concurrency: schema.I32(1), Status: schema.StatusValid, TotalTokS: schema.F64(60000 * speed / (1 + 0.1*float64(ci))),
				TTFTMs: schema.F64(120 * float64(int(1)<<ci) / speed)})
		}
		for ci, c := range ctxs {
			for _, n := range ns {
				x := schema.Measurement{RunID: id, Phase: schema.PhaseDecode, ContextLabel: c, Concurrency: schema.I32(n), Status: schema.StatusValid}
				switch {
				case ci == len(ctxs)-1 && n == 128:
					x.Status = schema.StatusOverCapacity
				case rng.IntN(20) == 0:
					x.Status = schema.StatusLooped
				default:
					total := 330 * speed * float64(n) / (1 + 0.03*float64(n-1) + 1e-4*float64(n*(n-1))) / (1 + 0.05*float64(ci))
					x.TotalTokS = schema.F64(total)
					x.PerRequestTokS = schema.F64(total / float64(n))
					x.TTFTMs = schema.F64(40 * math.Sqrt(float64(n)) * float64(ci+1))
					x.TBTMs = schema.F64(1000 / (total / float64(n)))
				}
				m.Measurements = append(m.Measurements, x)
			}
		}
		out[i] = m
	}
	return out
}

// TestCompareManyRuns compares a baseline with enough runs that the
// deltas are computed in parallel, and checks each run's deltas against
// a comparison of that run alone (run it with -race).
func TestCompareManyRuns(t *testing.T) {
	ms := syntheticArchive(600)
	c, err := Compare(ms[0], ms[1:], Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Deltas) != 599 {
		t.Fatalf("%d delta sets", len(c.Deltas))
	}
	for _, oi := range []int{0, 1, 2, 298, 597, 598} {
		one, err := Compare(ms[0], ms[oi+1:oi+2], Options{})
		if err != nil {
			t.Fatal(err)
		}
		got, want := c.Deltas[oi], one.Deltas[0]
		if len(got) != len(want) {
			t.Fatalf("run %d: %d deltas, alone %d", oi, len(got), len(want))
		}
		for i := range got {
			if got[i] != want[i] && !(math.IsNaN(got[i].Value) && math.IsNaN(want[i].Value)) {
				t.Fatalf("run %d delta %d: %+v, alone %+v", oi, i, got[i], want[i])
			}
		}
	}
}
