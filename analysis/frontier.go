package analysis

import (
	"cmp"
	"slices"

	"speedmatrix/schema"
)

// FrontierPoint is one valid decode cell placed by its throughput and by
// the speed each of its requests sees.
type FrontierPoint struct {
	ContextLabel   string
	ContextTokens  int64
	Concurrency    int32
	TotalTokS      float64
	PerRequestTokS float64
	TTFTMs, TBTMs  float64 // NaN when the cell lacks them
	// TotalSigFigs is the precision TotalTokS was printed with (SigFigs).
	TotalSigFigs int
}

// Frontier is the throughput–interactivity trade-off of one run: every
// valid decode cell, and the Pareto-optimal ones (no other cell has both
// more total tok/s and more per-request tok/s).
type Frontier struct {
	RunID  string
	Points []FrontierPoint
	// Pareto is ordered from the most interactive (highest per-request
	// tok/s) to the highest throughput.
	Pareto []FrontierPoint
}

// BuildFrontier collects a run's decode cells that have both figures and
// marks its Pareto frontier.
func BuildFrontier(cs *Cells) Frontier {
	f := Frontier{RunID: cs.Run.Run.RunID}
	for i := range cs.List {
		c := &cs.List[i]
		if c.Key.Phase != schema.PhaseDecode {
			continue
		}
		x, okx := c.Value(TotalTokS)
		u, oku := c.Value(PerRequestTokS)
		if !okx || !oku {
			continue
		}
		f.Points = append(f.Points, FrontierPoint{c.Key.ContextLabel, c.ContextTokens, c.Key.Concurrency, x, u, valueOrNaN(c, TTFTMs), valueOrNaN(c, TBTMs), SigFigs(c, TotalTokS)})
	}
	f.Pareto = Pareto(f.Points)
	return f
}

// Pareto returns the points not dominated by another (one with at least
// as much of both figures and more of one), ordered by per-request tok/s
// descending. Ties keep the first point.
//
// Note: a sort and one sweep (O(n log n)); the sets are small, but a
// comparison across an archive gathers many.
func Pareto(pts []FrontierPoint) []FrontierPoint {
	s := slices.Clone(pts)
	slices.SortStableFunc(s, func(a, b FrontierPoint) int {
		return cmp.Or(cmp.Compare(b.PerRequestTokS, a.PerRequestTokS), cmp.Compare(b.TotalTokS, a.TotalTokS))
	})
	var out []FrontierPoint
	for _, p := range s {
		if len(out) > 0 {
			last := out[len(out)-1]
			if p.TotalTokS <= last.TotalTokS {
				continue // dominated: less (or equal) of both
			}
			if p.PerRequestTokS == last.PerRequestTokS {
				continue // sorted by total descending within a tie
			}
		}
		out = append(out, p)
	}
	return out
}

// Best is the answer for one context: the cell chosen, or Found false
// when no cell qualifies.
type Best struct {
	ContextLabel string
	Found        bool
	Cell         FrontierPoint
	// Beyond lists the cells of the run past the answer that it could
	// not measure (Comparison.Beyond): when there are any, the answer is
	// a lower bound. NewReport sets it, except for the answer over all
	// contexts.
	Beyond []Unmeasured
}

// BestAtUserRate answers "the most throughput while every request still
// sees at least minPerRequest tok/s", per context, in context order, with
// the answer over all contexts last (ContextLabel "all").
func BestAtUserRate(f Frontier, minPerRequest float64) []Best {
	var out []Best
	overall := Best{ContextLabel: "all"}
	for _, p := range f.Points {
		if len(out) == 0 || out[len(out)-1].ContextLabel != p.ContextLabel {
			out = append(out, Best{ContextLabel: p.ContextLabel})
		}
		if p.PerRequestTokS < minPerRequest {
			continue
		}
		b := &out[len(out)-1]
		if !b.Found || p.TotalTokS > b.Cell.TotalTokS {
			b.Found, b.Cell = true, p
		}
		if !overall.Found || p.TotalTokS > overall.Cell.TotalTokS {
			overall.Found, overall.Cell = true, p
		}
	}
	return append(out, overall)
}
