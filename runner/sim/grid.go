package sim

import (
	"math"
	"sort"
)

// Grid is a table of factors on a (context, concurrency) grid, used to
// correct a fitted step-time model where a real server departs from it.
// Between grid points it interpolates bilinearly in log2 of both axes;
// outside it clamps to the edge. Missing cells (NaN) count as 1.
type Grid struct {
	// Contexts and Concurrency are the axes, ascending.
	Contexts    []float64
	Concurrency []float64
	// Factor[i][j] is the factor at Contexts[i], Concurrency[j].
	Factor [][]float64
}

// At returns the interpolated factor at context ctx and concurrency c.
func (g *Grid) At(ctx, c float64) float64 {
	if g == nil || len(g.Contexts) == 0 || len(g.Concurrency) == 0 {
		return 1
	}
	i0, i1, fi := axisPos(g.Contexts, ctx)
	j0, j1, fj := axisPos(g.Concurrency, c)
	v := func(i, j int) float64 {
		f := g.Factor[i][j]
		if math.IsNaN(f) || f <= 0 {
			return 1
		}
		return f
	}
	a := v(i0, j0)*(1-fj) + v(i0, j1)*fj
	b := v(i1, j0)*(1-fj) + v(i1, j1)*fj
	return a*(1-fi) + b*fi
}

// axisPos finds x on an ascending axis: the two neighbouring indexes and
// the fraction between them in log2 space, clamped to the ends.
func axisPos(axis []float64, x float64) (int, int, float64) {
	n := len(axis)
	if x <= axis[0] {
		return 0, 0, 0
	}
	if x >= axis[n-1] {
		return n - 1, n - 1, 0
	}
	i := sort.SearchFloat64s(axis, x)
	if axis[i] == x {
		return i, i, 0
	}
	lo, hi := math.Log2(axis[i-1]), math.Log2(axis[i])
	return i - 1, i, (math.Log2(x) - lo) / (hi - lo)
}
