package sim

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"speedmatrix/schema"
)

// parseSeed loads a seed matrix. The fixtures testdata/NAME.matrix.json
// are package parse's output for testdata/seeds/NAME.txt (Metadata and
// Printed dropped), stored as JSON so this package's tests do not break
// while parse is being changed.
func parseSeed(t testing.TB, name string) *schema.Matrix {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", strings.TrimSuffix(name, ".txt")+".matrix.json"))
	if err != nil {
		t.Fatal(err)
	}
	var m schema.Matrix
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return &m
}

// cellError compares the profile's predicted total tok/s with every valid
// decode cell of m and returns the relative errors.
func cellErrors(t *testing.T, p *Profile, m *schema.Matrix, maxOut int64) []float64 {
	var errs []float64
	for _, x := range m.Measurements {
		if x.Phase != schema.PhaseDecode || x.Status != schema.StatusValid {
			continue
		}
		ctx := contextTokens(&x)
		pred := p.PredictTotalTokS(ctx+maxOut/2, int(*x.Concurrency))
		e := pred / *x.TotalTokS - 1
		t.Logf("%5s C=%3d measured %8.1f predicted %8.1f (%+.1f%%)", x.ContextLabel, *x.Concurrency, *x.TotalTokS, pred, 100*e)
		errs = append(errs, math.Abs(e))
	}
	slices.Sort(errs)
	return errs
}

func TestProfileFromMatrixH200(t *testing.T) {
	m := parseSeed(t, "001_03cf9c936d246394.txt")
	p, err := ProfileFromMatrix(m)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("fit: base %v, per seq %v, per 1K context tokens %v; KV %d tokens; max_model_len %d; cached tokens at %.0f tok/s", p.StepBase, p.StepPerSeq, p.StepPerKToken, p.KVTokens, p.MaxModelLen, p.CachedTokS)
	if p.MaxModelLen != 131072 || p.ModelName != "ling" || len(p.PrefillTokS) != 6 {
		t.Errorf("max_model_len %d, model %q, %d prefill points", p.MaxModelLen, p.ModelName, len(p.PrefillTokS))
	}
	// 64K×128 is the largest valid cell, 123K×128 the only over-capacity one.
	lo, hi := int64(128*(65536+4096)), int64(128*(125952+4096))
	if p.KVTokens <= lo || p.KVTokens >= hi {
		t.Errorf("KV %d tokens, want in (%d, %d)", p.KVTokens, lo, hi)
	}
	// Warm TTFT at C=1: 44, 90, 137, 183, 268 ms at 8K–123K.
	ctxs, ttfts := []float64{8192, 16384, 32768, 65536, 125952}, []float64{.044, .090, .137, .183, .268}
	var sxx, sxy float64
	for i := range ctxs {
		sxx += ctxs[i] * ctxs[i]
		sxy += ctxs[i] * ttfts[i]
	}
	if want := sxx / sxy; math.Abs(p.CachedTokS/want-1) > 1e-9 {
		t.Errorf("CachedTokS %v, want %v", p.CachedTokS, want)
	}
	if got := p.PrefillRate(16384); got != 60900 {
		t.Errorf("prefill at 16K = %v", got)
	}
	if got := p.PrefillRate(3 * 16384); math.Abs(got-(68700+69500)/2) > 1 {
		t.Errorf("prefill at 48K = %v, want interpolated %v", got, (68700+69500)/2.0)
	}

	t.Run("linear_model", func(t *testing.T) {
		lin := p
		lin.StepCorrection = nil
		errs := cellErrors(t, &lin, m, 4096)
		med, p90 := errs[len(errs)/2], errs[len(errs)*9/10]
		t.Logf("linear model: median |error| %.1f%%, p90 %.1f%%, max %.1f%% over %d cells", 100*med, 100*p90, 100*errs[len(errs)-1], len(errs))
		if med > 0.15 {
			t.Errorf("median |error| %.1f%% > 15%%", 100*med)
		}
	})
	t.Run("corrected", func(t *testing.T) {
		errs := cellErrors(t, &p, m, 4096)
		if worst := errs[len(errs)-1]; worst > 0.01 {
			t.Errorf("worst |error| %.2f%% > 1%%", 100*worst)
		}
	})
}

func TestProfileFromMatrixLooped(t *testing.T) {
	m := parseSeed(t, "000_acc4a01d882a0446.txt")
	p, err := ProfileFromMatrix(m)
	if err != nil {
		t.Fatal(err)
	}
	var looped int
	for _, x := range m.Measurements {
		if x.Status == schema.StatusLooped {
			looped++
		}
	}
	if looped == 0 || len(p.LoopCells) != looped || p.LoopAfter == 0 {
		t.Errorf("%d looped cells, profile has %d (LoopAfter %d)", looped, len(p.LoopCells), p.LoopAfter)
	}
	errs := cellErrors(t, &p, m, 4096)
	if worst := errs[len(errs)-1]; worst > 0.01 {
		t.Errorf("worst |error| %.2f%% > 1%%", 100*worst)
	}
}

func TestFitStepModel(t *testing.T) {
	// Points generated from a known model are fitted back exactly.
	want := StepFit{Base: 3 * time.Millisecond, PerSeq: 40 * time.Microsecond, PerKToken: 5 * time.Nanosecond}
	var pts []StepPoint
	for _, ctx := range []int64{8192, 32768, 131072} {
		for _, c := range []int{1, 4, 16, 64} {
			d := want.Base + want.PerSeq*time.Duration(c) + time.Duration(float64(want.PerKToken)*float64(int64(c)*ctx)/1000)
			pts = append(pts, StepPoint{Context: ctx, Running: c, Step: d})
		}
	}
	got, err := FitStepModel(pts)
	if err != nil {
		t.Fatal(err)
	}
	near := func(a, b time.Duration) bool { return math.Abs(float64(a-b)) <= 0.001*float64(b)+1 }
	if !near(got.Base, want.Base) || !near(got.PerSeq, want.PerSeq) || !near(got.PerKToken, want.PerKToken) || got.RMSRelErr > 1e-6 {
		t.Errorf("fit %+v, want %+v", got, want)
	}
	if _, err := FitStepModel(nil); err == nil {
		t.Error("no error for no points")
	}
}
