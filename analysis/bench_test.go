//go:build unix

package analysis

import (
	"fmt"
	"math"
	"math/rand/v2"
	"syscall"
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

// BenchmarkCompare10000 is compare against an archive of 10,000 runs:
// pick the baseline by run-id prefix and a second run by metadata
// filters among all 10,000, then align and compute the deltas and
// geometric means of the baseline against every other run of the
// archive. It reports runs compared per second; the target is the whole
// operation under a second.
func BenchmarkCompare10000(b *testing.B) {
	const n = 10000
	ms := syntheticArchive(n)
	runs := make([]schema.Run, n)
	for i, m := range ms {
		runs[i] = m.Run
	}
	byID := make(map[string]*schema.Matrix, n)
	for _, m := range ms {
		byID[m.Run.RunID] = m
	}
	baseSel := ms[1234].Run.RunID[:12]
	o := ms[5321].Run
	otherSel := "gpu=~" + o.GPU[:4] + ",model=" + o.Model + ",engine_version=" + o.EngineVersion
	b.ReportAllocs()
	cpu0 := cpuTime()
	for b.Loop() {
		base, err := Select(runs, baseSel)
		if err != nil {
			b.Fatal(err)
		}
		other, err := Select(runs, otherSel)
		if err != nil {
			b.Fatal(err)
		}
		others := make([]*schema.Matrix, 0, n-1)
		others = append(others, byID[other.RunID])
		for _, m := range ms {
			if m.Run.RunID != base.RunID && m.Run.RunID != other.RunID {
				others = append(others, m)
			}
		}
		c, err := Compare(byID[base.RunID], others, Options{})
		if err != nil {
			b.Fatal(err)
		}
		sum := c.Summarize()
		if len(c.Deltas) != n-1 || len(sum) == 0 {
			b.Fatalf("%d deltas, %d summaries", len(c.Deltas), len(sum))
		}
	}
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "runs/s")
	// CPU time of the process (all threads, GC included) per operation:
	// on a shared machine wall time also counts other processes' turns.
	b.ReportMetric((cpuTime()-cpu0).Seconds()*1000/float64(b.N), "cpu-ms/op")
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkCompareSeeds is the everyday case: two seed-shaped runs.
func BenchmarkCompareSeeds(b *testing.B) {
	base, other := loadSeed(b, seedBF16), loadSeed(b, seedINT4)
	b.ReportAllocs()
	for b.Loop() {
		c, err := Compare(base, []*schema.Matrix{other}, Options{})
		if err != nil {
			b.Fatal(err)
		}
		c.Summarize()
	}
	b.ReportMetric(float64(len(base.Measurements)+len(other.Measurements))*float64(b.N)/b.Elapsed().Seconds(), "cells/s")
}
