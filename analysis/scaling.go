package analysis

import (
	"math"
	"slices"

	"speedmatrix/schema"
)

// ScalePoint is one concurrency level of a scaling curve. Figures a cell
// lacks are NaN.
type ScalePoint struct {
	N int32
	// X is total tok/s; Speedup X(N)/X(1); Efficiency X(N)/(N·X(1)).
	X, Speedup, Efficiency float64
	PerRequestTokS         float64
	TTFTMs, TBTMs          float64
	// XSigFigs is the precision X was printed with (SigFigs).
	XSigFigs int
}

// Scaling is the throughput curve of one run at one context: every valid
// cell by concurrency, the cells left out and the USL fit.
type Scaling struct {
	RunID         string
	Phase         schema.Phase
	ContextLabel  string
	ContextTokens int64
	Points        []ScalePoint
	// Excluded lists the concurrencies without a figure and why.
	Excluded []Excluded
	// Fit is nil when fewer than three points could be fitted; FitErr
	// then says why (FitUSL's error).
	Fit    *USLFit
	FitErr error
}

// Curve reports whether s has two loads or more (measured or not): a
// context measured at one load has no curve, and its figure is in the
// run's decode or serving table already.
func (s Scaling) Curve() bool { return len(s.Points)+len(s.Excluded) >= 2 }

// Excluded is a cell left out of a curve.
type Excluded struct {
	N     int32
	State State
}

// Scale returns the scaling curves of a run's decode cells (and serve
// cells run at a concurrency rather than a request rate), one per
// context, in context order. Speedup
// and efficiency are NaN at a context whose N=1 cell has no figure.
func Scale(cs *Cells) []Scaling {
	var out []Scaling
	var cur *Scaling
	for i := range cs.List {
		c := &cs.List[i]
		if c.Key.Phase == schema.PhasePrefill || c.Key.Concurrency <= 0 || c.Key.RequestRate != 0 {
			continue
		}
		if cur == nil || cur.ContextLabel != c.Key.ContextLabel || cur.Phase != c.Key.Phase {
			out = append(out, Scaling{RunID: cs.Run.Run.RunID, Phase: c.Key.Phase, ContextLabel: c.Key.ContextLabel, ContextTokens: c.ContextTokens})
			cur = &out[len(out)-1]
		}
		st, x := stateOf(c, TotalTokS)
		if st != StateValue {
			cur.Excluded = append(cur.Excluded, Excluded{c.Key.Concurrency, st})
			continue
		}
		p := ScalePoint{N: c.Key.Concurrency, X: x, Speedup: math.NaN(), Efficiency: math.NaN(), XSigFigs: SigFigs(c, TotalTokS)}
		p.PerRequestTokS = valueOrNaN(c, PerRequestTokS)
		p.TTFTMs = valueOrNaN(c, TTFTMs)
		p.TBTMs = valueOrNaN(c, TBTMs)
		cur.Points = append(cur.Points, p)
	}
	for i := range out {
		s := &out[i]
		i1 := slices.IndexFunc(s.Points, func(p ScalePoint) bool { return p.N == 1 })
		pts := make([]Point, len(s.Points))
		for j := range s.Points {
			p := &s.Points[j]
			if i1 >= 0 {
				p.Speedup = p.X / s.Points[i1].X
				p.Efficiency = p.Speedup / float64(p.N)
			}
			pts[j] = Point{float64(p.N), p.X}
		}
		f, err := FitUSL(pts)
		if err != nil {
			s.FitErr = err
			continue
		}
		s.Fit = &f
	}
	return out
}

func valueOrNaN(c *Cell, mt Metric) float64 {
	if v, ok := c.Value(mt); ok {
		return v
	}
	return math.NaN()
}

// ContextPoint is one context of a context-scaling series.
type ContextPoint struct {
	ContextLabel  string
	ContextTokens int64
	// Value is NaN when State is not StateValue.
	Value float64
	State State
}

// ContextSeries is one metric against context length at one concurrency.
type ContextSeries struct {
	RunID       string
	Phase       schema.Phase
	Metric      Metric
	Concurrency int32
	Points      []ContextPoint
}

// ContextScaling returns how a run slows with context: prefill tok/s and
// prefill TTFT against context, then decode total tok/s against context
// at each concurrency (in increasing concurrency).
func ContextScaling(cs *Cells) []ContextSeries {
	type sk struct {
		phase  schema.Phase
		metric string
		n      int32
	}
	var order []sk
	series := map[sk]*ContextSeries{}
	add := func(k sk, mt Metric, c *Cell) {
		s := series[k]
		if s == nil {
			s = &ContextSeries{RunID: cs.Run.Run.RunID, Phase: k.phase, Metric: mt, Concurrency: k.n}
			series[k] = s
			order = append(order, k)
		}
		st, v := stateOf(c, mt)
		if st != StateValue {
			v = math.NaN()
		}
		s.Points = append(s.Points, ContextPoint{c.Key.ContextLabel, c.ContextTokens, v, st})
	}
	for i := range cs.List {
		c := &cs.List[i]
		if c.Key.Phase == schema.PhasePrefill {
			add(sk{c.Key.Phase, TotalTokS.Name, 0}, TotalTokS, c)
			add(sk{c.Key.Phase, TTFTMs.Name, 0}, TTFTMs, c)
		}
	}
	var decode []sk
	for i := range cs.List {
		c := &cs.List[i]
		if c.Key.Phase == schema.PhaseDecode {
			k := sk{c.Key.Phase, TotalTokS.Name, c.Key.Concurrency}
			if series[k] == nil {
				decode = append(decode, k)
			}
			add(k, TotalTokS, c)
		}
	}
	order = slices.DeleteFunc(order, func(k sk) bool { return k.phase == schema.PhaseDecode })
	slices.SortFunc(decode, func(a, b sk) int { return int(a.n) - int(b.n) })
	order = append(order, decode...)
	out := make([]ContextSeries, len(order))
	for i, k := range order {
		out[i] = *series[k]
	}
	return out
}
