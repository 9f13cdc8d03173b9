package runner

import (
	"math"
	"sort"
)

// quantile returns the q-quantile (0 ≤ q ≤ 1) of sorted values, linearly
// interpolated between order statistics (Hyndman and Fan type 7, as numpy
// and vLLM's benchmark compute it), so the median of an even count is the
// mean of the middle two.
func quantile(sorted []float64, q float64) float64 {
	n := len(sorted)
	if n == 0 {
		return math.NaN()
	}
	if n == 1 {
		return sorted[0]
	}
	h := q * float64(n-1)
	lo := int(math.Floor(h))
	if lo >= n-1 {
		return sorted[n-1]
	}
	return sorted[lo] + (h-float64(lo))*(sorted[lo+1]-sorted[lo])
}

// dist summarizes a sample: mean, median, p90, p99.
type dist struct {
	n                   int
	mean, p50, p90, p99 float64
}

// summarize sorts xs in place and returns its summary; ok is false when
// xs is empty.
func summarize(xs []float64) (d dist, ok bool) {
	if len(xs) == 0 {
		return dist{}, false
	}
	sort.Float64s(xs)
	sum := 0.0
	for _, x := range xs {
		sum += x
	}
	return dist{
		n:    len(xs),
		mean: sum / float64(len(xs)),
		p50:  quantile(xs, 0.5),
		p90:  quantile(xs, 0.9),
		p99:  quantile(xs, 0.99),
	}, true
}

// median returns the median of xs (sorting it), NaN when empty.
func median(xs []float64) float64 {
	sort.Float64s(xs)
	return quantile(xs, 0.5)
}
