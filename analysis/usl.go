package analysis

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/optimize"
)

// Point is one throughput figure X at concurrency N.
type Point struct{ N, X float64 }

// USLFit is a fit of Gunther's Universal Scalability Law
//
//	X(N) = λN / (1 + σ(N−1) + κN(N−1))
//
// to throughput against concurrency: λ is the throughput of one request,
// σ the contention (serial) fraction, κ the coherency (crosstalk) cost.
type USLFit struct {
	Lambda, Sigma, Kappa float64
	// R2 is the coefficient of determination of the fit on X.
	R2 float64
	// Points counts the figures fitted.
	Points int
	// PeakN is the concurrency of peak throughput √((1−σ)/κ), +Inf when
	// κ is zero (throughput never falls), NaN when σ ≥ 1. PeakX is X
	// there (the asymptote λ/σ when PeakN is infinite).
	PeakN, PeakX float64
	// Poor is set when the fit should not be trusted: fewer than
	// MinUSLPoints points, or R² below PoorR2.
	Poor bool
}

// Predict returns the fitted throughput at concurrency n.
func (f USLFit) Predict(n float64) float64 {
	return f.Lambda * n / (1 + f.Sigma*(n-1) + f.Kappa*n*(n-1))
}

// MinUSLPoints is the fewest points a fit is trusted with: three
// parameters need at least one more point than they have.
const MinUSLPoints = 4

// PoorR2 is the coefficient of determination below which a fit is not
// trusted.
const PoorR2 = 0.9

// FitUSL fits the Universal Scalability Law to points by least squares on
// log X (relative residuals), so that N=1 at a few hundred tok/s counts as
// much as N=128 at thousands; R² is reported on X itself. It needs at
// least three points with N > 0 and X > 0.
//
// Note: the parameters are optimized as logarithms, which keeps σ and κ
// non-negative without a constrained method (Nelder–Mead, derivative-free,
// from a few starting simplexes; the best is polished by a restart).
// Throughput that grows faster than linearly (σ < 0) is fitted as σ ≈ 0.
func FitUSL(points []Point) (USLFit, error) {
	var pts []Point
	for _, p := range points {
		if p.N > 0 && p.X > 0 && !math.IsInf(p.X, 0) && !math.IsNaN(p.X) {
			pts = append(pts, p)
		}
	}
	if len(pts) < 3 {
		return USLFit{}, fmt.Errorf("usl: %d usable points, need at least 3", len(pts))
	}
	lo := pts[0]
	for _, p := range pts {
		if p.N < lo.N {
			lo = p
		}
	}
	const minLog, maxLog = -40.0, 10.0
	params := func(x []float64) (l, s, k float64) {
		c := func(v float64) float64 { return math.Exp(math.Max(minLog, math.Min(maxLog, v))) }
		return c(x[0]), c(x[1]), c(x[2])
	}
	sse := func(x []float64) float64 {
		l, s, k := params(x)
		f := USLFit{Lambda: l, Sigma: s, Kappa: k}
		var sum float64
		for _, p := range pts {
			r := math.Log(f.Predict(p.N) / p.X)
			sum += r * r
		}
		return sum
	}
	prob := optimize.Problem{Func: sse}
	settings := &optimize.Settings{
		FuncEvaluations: 20000,
		Converger:       &optimize.FunctionConverge{Absolute: 1e-15, Relative: 1e-15, Iterations: 200},
	}
	var best []float64
	bestF := math.Inf(1)
	try := func(x0 []float64) {
		res, err := optimize.Minimize(prob, x0, settings, &optimize.NelderMead{})
		if err != nil && res == nil {
			return
		}
		if res.F < bestF {
			bestF, best = res.F, res.X
		}
	}
	l0 := math.Log(lo.X / lo.N)
	for _, s0 := range []float64{1e-3, 0.05, 0.3} {
		for _, k0 := range []float64{1e-6, 1e-4, 1e-2} {
			try([]float64{l0, math.Log(s0), math.Log(k0)})
		}
	}
	if best == nil {
		return USLFit{}, errors.New("usl: optimizer failed")
	}
	for range 3 {
		try(append([]float64(nil), best...))
	}
	l, s, k := params(best)
	// Parameters pinned at the lower bound are zero in all but name.
	if s < 1e-12 {
		s = 0
	}
	if k < 1e-15 {
		k = 0
	}
	f := USLFit{Lambda: l, Sigma: s, Kappa: k, Points: len(pts)}
	var mean, ssRes, ssTot float64
	for _, p := range pts {
		mean += p.X
	}
	mean /= float64(len(pts))
	for _, p := range pts {
		r := p.X - f.Predict(p.N)
		ssRes += r * r
		ssTot += (p.X - mean) * (p.X - mean)
	}
	f.R2 = 1
	if ssTot > 0 {
		f.R2 = 1 - ssRes/ssTot
	}
	switch {
	case f.Sigma >= 1:
		f.PeakN, f.PeakX = math.NaN(), math.NaN()
	case f.Kappa == 0:
		f.PeakN = math.Inf(1)
		f.PeakX = math.Inf(1)
		if f.Sigma > 0 {
			f.PeakX = f.Lambda / f.Sigma
		}
	default:
		f.PeakN = math.Sqrt((1 - f.Sigma) / f.Kappa)
		f.PeakX = f.Predict(f.PeakN)
	}
	f.Poor = f.Points < MinUSLPoints || f.R2 < PoorR2
	return f, nil
}
