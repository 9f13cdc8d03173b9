package sim

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"gonum.org/v1/gonum/mat"

	"speedmatrix/schema"
)

// StepPoint is one decode cell seen as a step time: Running requests whose
// context averages Context tokens (prompt plus generated) took Step per
// decode step.
type StepPoint struct {
	Context int64
	Running int
	Step    time.Duration
}

// StepFit is a fitted step-time model (see Profile.StepBase).
type StepFit struct {
	Base, PerSeq, PerKToken time.Duration
	// RMSRelErr is the root-mean-square relative error of the fit over the
	// points it was fitted to.
	RMSRelErr float64
}

// FitStepModel fits step = Base + PerSeq×running + PerKToken×(running×
// context)/1000 to points by least squares on relative error (each point
// weighted by 1/step, so fast and slow cells count alike), with every
// coefficient kept ≥ 0: it fits each subset of the three terms and keeps
// the best non-negative one.
func FitStepModel(points []StepPoint) (StepFit, error) {
	if len(points) == 0 {
		return StepFit{}, errors.New("no decode cells to fit")
	}
	cols := func(p StepPoint) [3]float64 {
		c := float64(p.Running)
		return [3]float64{1, c, c * float64(p.Context) / 1000}
	}
	best := StepFit{RMSRelErr: math.Inf(1)}
	for subset := 1; subset < 8; subset++ {
		var use []int
		for j := range 3 {
			if subset&(1<<j) != 0 {
				use = append(use, j)
			}
		}
		if len(use) > len(points) {
			continue
		}
		a := mat.NewDense(len(points), len(use), nil)
		b := mat.NewVecDense(len(points), nil)
		for i, p := range points {
			s := p.Step.Seconds()
			row := cols(p)
			for k, j := range use {
				a.Set(i, k, row[j]/s)
			}
			b.SetVec(i, 1)
		}
		var x mat.VecDense
		if err := x.SolveVec(a, b); err != nil {
			continue
		}
		var coef [3]float64
		ok := true
		for k, j := range use {
			coef[j] = x.AtVec(k)
			ok = ok && coef[j] >= 0
		}
		if !ok {
			continue
		}
		var sse float64
		for _, p := range points {
			row := cols(p)
			pred := coef[0]*row[0] + coef[1]*row[1] + coef[2]*row[2]
			e := pred/p.Step.Seconds() - 1
			sse += e * e
		}
		rms := math.Sqrt(sse / float64(len(points)))
		if rms < best.RMSRelErr {
			best = StepFit{
				Base:      time.Duration(coef[0] * 1e9),
				PerSeq:    time.Duration(coef[1] * 1e9),
				PerKToken: time.Duration(coef[2] * 1e9),
				RMSRelErr: rms,
			}
		}
	}
	if math.IsInf(best.RMSRelErr, 1) {
		return StepFit{}, errors.New("step model: no non-negative least-squares fit")
	}
	return best, nil
}

// ProfileFromMatrix calibrates a profile that reproduces an archived run's
// shape:
//   - PrefillTokS: the valid prefill rows (prompt tok/s by context).
//   - Step model: each valid decode cell (context, C, total tok/s) becomes
//     a step time C/total at a per-request context of context + half the
//     run's max output tokens (closed-loop requests are on average half
//     done); FitStepModel fits them, and StepCorrection holds each cell's
//     measured/fitted ratio so the profile predicts every measured cell.
//   - KVTokens: Run.KVBudgetTokens when set; else midway between the
//     largest valid C×(context+max output) and the smallest over-capacity
//     one; else twice the largest valid one.
//   - MaxModelLen: the run's, else the largest context + max output + 64.
//   - MaxRunning, MaxBatchedTokens, BlockSize: the launch command's
//     --max-num-seqs, --max-num-batched-tokens and --block-size when given.
//   - CachedTokS: the seeds measure decode TTFT after a scout warmed the
//     prefix cache, yet it grows with context; the rate is the
//     least-squares fit through the origin of context over TTFT of the
//     valid C=1 decode cells (0, cached prefixes free, without them).
//   - LoopCells (LoopAfter 512) for cells the run marked looped.
func ProfileFromMatrix(m *schema.Matrix) (Profile, error) {
	if m == nil {
		return Profile{}, errors.New("sim: no matrix")
	}
	p := DefaultProfile()
	p.Name = "matrix " + m.Run.RunID
	if m.Run.Title != "" {
		p.Name = m.Run.Title
	}
	p.ModelName = firstNonEmpty(m.Run.ServedModel, m.Run.Model, "sim")
	maxOut := int64(4096)
	if m.Run.MaxOutputTokens != nil && *m.Run.MaxOutputTokens > 0 {
		maxOut = *m.Run.MaxOutputTokens
	}

	var prefill []RatePoint
	var steps []StepPoint
	var validNeed, overNeed []int64
	var warm []RatePoint // C=1 decode cells: context and TTFT in ms
	var maxCtx int64
	for i := range m.Measurements {
		x := &m.Measurements[i]
		ctx := contextTokens(x)
		if ctx <= 0 {
			continue
		}
		maxCtx = max(maxCtx, ctx)
		c := int64(1)
		if x.Concurrency != nil && *x.Concurrency > 0 {
			c = int64(*x.Concurrency)
		}
		switch {
		case x.Phase == schema.PhasePrefill && x.Status == schema.StatusValid && x.TotalTokS != nil && *x.TotalTokS > 0:
			prefill = append(prefill, RatePoint{Context: ctx, TokS: *x.TotalTokS})
		case x.Phase != schema.PhaseDecode:
		case x.Status == schema.StatusOverCapacity:
			overNeed = append(overNeed, c*(ctx+maxOut))
		case x.Status == schema.StatusLooped:
			p.LoopCells = append(p.LoopCells, LoopCell{ContextLabel: x.ContextLabel, Concurrency: int(c)})
			validNeed = append(validNeed, c*(ctx+maxOut))
		case x.Status == schema.StatusValid && x.TotalTokS != nil && *x.TotalTokS > 0:
			validNeed = append(validNeed, c*(ctx+maxOut))
			if c == 1 && x.TTFTMs != nil && *x.TTFTMs > 0 {
				warm = append(warm, RatePoint{Context: ctx, TokS: *x.TTFTMs})
			}
			steps = append(steps, StepPoint{
				Context: ctx + maxOut/2,
				Running: int(c),
				Step:    time.Duration(float64(c) / *x.TotalTokS * 1e9),
			})
		}
	}
	if len(steps) == 0 {
		return Profile{}, errors.New("sim: the matrix has no valid decode cell with total tok/s")
	}
	if len(prefill) > 0 {
		p.PrefillTokS = mergeRatePoints(prefill)
	}
	p.CachedTokS = fitCachedRate(warm)
	fit, err := FitStepModel(steps)
	if err != nil {
		return Profile{}, fmt.Errorf("sim: %w", err)
	}
	p.StepBase, p.StepPerSeq, p.StepPerKToken = fit.Base, fit.PerSeq, fit.PerKToken
	p.StepCorrection = correctionGrid(&p, steps)

	slices.Sort(validNeed)
	slices.Sort(overNeed)
	switch {
	case m.Run.KVBudgetTokens != nil && *m.Run.KVBudgetTokens > 0:
		p.KVTokens = *m.Run.KVBudgetTokens
	case len(overNeed) > 0:
		hi := overNeed[0]
		lo := int64(0)
		for _, n := range validNeed {
			if n < hi {
				lo = n
			}
		}
		p.KVTokens = lo + (hi-lo)/2
	case len(validNeed) > 0:
		p.KVTokens = 2 * validNeed[len(validNeed)-1]
	}
	if m.Run.MaxModelLen != nil && *m.Run.MaxModelLen > 0 {
		p.MaxModelLen = *m.Run.MaxModelLen
	} else {
		p.MaxModelLen = maxCtx + maxOut + 64
	}
	p.PrefixCacheTokens = p.KVTokens
	p.MaxRunning = 1024
	for _, f := range m.Run.LaunchFlags {
		v, err := strconv.ParseInt(f.Value, 10, 64)
		if err != nil || v <= 0 {
			continue
		}
		switch strings.TrimLeft(f.Key, "-") {
		case "max-num-seqs":
			p.MaxRunning = int(v)
		case "max-num-batched-tokens":
			p.MaxBatchedTokens = v
		case "block-size":
			p.BlockSize = v
		}
	}
	if len(p.LoopCells) > 0 {
		p.LoopAfter = 512
	}
	return p, nil
}

// correctionGrid returns measured/fitted step-time ratios on the grid of
// the points' contexts and concurrencies.
func correctionGrid(p *Profile, steps []StepPoint) *Grid {
	var ctxs, cs []float64
	for _, s := range steps {
		ctxs = append(ctxs, float64(s.Context))
		cs = append(cs, float64(s.Running))
	}
	slices.Sort(ctxs)
	slices.Sort(cs)
	g := &Grid{Contexts: slices.Compact(ctxs), Concurrency: slices.Compact(cs)}
	g.Factor = make([][]float64, len(g.Contexts))
	for i := range g.Factor {
		g.Factor[i] = make([]float64, len(g.Concurrency))
		for j := range g.Factor[i] {
			g.Factor[i][j] = math.NaN()
		}
	}
	for _, s := range steps {
		i, _ := slices.BinarySearch(g.Contexts, float64(s.Context))
		j, _ := slices.BinarySearch(g.Concurrency, float64(s.Running))
		model := p.StepTime(s.Running, s.Context*int64(s.Running)) // StepCorrection is still nil
		g.Factor[i][j] = float64(s.Step) / float64(model)
	}
	return g
}

// mergeRatePoints sorts points by context and averages duplicates.
func mergeRatePoints(pts []RatePoint) []RatePoint {
	slices.SortFunc(pts, func(a, b RatePoint) int { return int(a.Context - b.Context) })
	var out []RatePoint
	for i := 0; i < len(pts); {
		j, sum := i, 0.0
		for ; j < len(pts) && pts[j].Context == pts[i].Context; j++ {
			sum += pts[j].TokS
		}
		out = append(out, RatePoint{Context: pts[i].Context, TokS: sum / float64(j-i)})
		i = j
	}
	return out
}

// contextTokens returns a measurement's context in tokens, from its column
// or else from its label (floor(tokens/1024) and "K").
func contextTokens(x *schema.Measurement) int64 {
	if x.ContextTokens != nil && *x.ContextTokens > 0 {
		return *x.ContextTokens
	}
	l := strings.TrimSpace(x.ContextLabel)
	mult := int64(1)
	if s, ok := strings.CutSuffix(strings.ToUpper(l), "K"); ok {
		l, mult = s, 1024
	}
	v, err := strconv.ParseFloat(l, 64)
	if err != nil || v <= 0 {
		return 0
	}
	return int64(v * float64(mult))
}

func firstNonEmpty(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}

// fitCachedRate fits TTFT(ms) = context/rate through the origin to warm
// (Context, TokS holding the TTFT in ms) and returns the rate in tokens/s,
// or 0 without points.
func fitCachedRate(warm []RatePoint) float64 {
	var sxy, sxx float64
	for _, w := range warm {
		x, y := float64(w.Context), w.TokS/1000
		sxy += x * y
		sxx += x * x
	}
	if sxy <= 0 {
		return 0
	}
	return sxx / sxy
}
