package analysis

import (
	"errors"
	"fmt"
	"math"

	"speedmatrix/prices"
	"speedmatrix/schema"
)

// Pricing is what one run of a comparison costs per hour: the price of
// one of its GPUs and how many it ran on. Neither is guessed: the price
// is an entry of the user's price table that matches the run's GPU
// (prices.Table.Lookup), the count the run's gpu_count or, where the run
// does not record one, the count the user gave (compare -gpus).
type Pricing struct {
	// Price is the entry that prices the run's GPU; Priced is false when
	// none does (NoPrice is then the table's *prices.NoPriceError) or no
	// prices were given.
	Price   prices.Entry
	Priced  bool
	NoPrice error
	// GPUs is the number of GPUs the server ran on, 0 when not known;
	// GPUsGiven is true when the user gave it rather than the run.
	GPUs      int32
	GPUsGiven bool
}

// USDPerHour is what the run's server costs per hour (price × GPUs),
// NaN without a price or a GPU count.
func (p Pricing) USDPerHour() float64 {
	if !p.Priced || p.GPUs <= 0 {
		return math.NaN()
	}
	return p.Price.USDPerHour * float64(p.GPUs)
}

// PriceRuns prices each run (baseline first) from table t (nil: no
// prices) with gpus[i] the GPU count the user gave for run i (0: none).
// A count the user gives for a run that records a different one is an
// error, as is a GPU two price keys match equally (prices.AmbiguousError).
func PriceRuns(runs []*schema.Run, t *prices.Table, gpus []int32) ([]Pricing, error) {
	out := make([]Pricing, len(runs))
	for i, r := range runs {
		p := &out[i]
		if r.GPUCount != nil && *r.GPUCount > 0 {
			p.GPUs = *r.GPUCount
		}
		if i < len(gpus) && gpus[i] > 0 {
			if p.GPUs > 0 && p.GPUs != gpus[i] {
				return nil, fmt.Errorf("run %s records %d GPU(s); -gpus says %d", r.RunID, p.GPUs, gpus[i])
			}
			if p.GPUs == 0 {
				p.GPUs, p.GPUsGiven = gpus[i], true
			}
		}
		if t == nil {
			continue
		}
		e, err := t.Lookup(r.GPU)
		var np *prices.NoPriceError
		switch {
		case errors.As(err, &np):
			p.NoPrice = err
		case err != nil:
			return nil, err
		default:
			p.Price, p.Priced = e, true
		}
	}
	return out, nil
}

// CellCost is one valid decode or serve cell of a run per dollar and per
// joule. Figures a run lacks are NaN.
type CellCost struct {
	Key           Key
	ContextTokens int64
	// TotalTokS is output tokens per second across the requests;
	// PerRequestTokS the speed each request sees.
	TotalTokS, PerRequestTokS float64
	// PerGPUTokS is TotalTokS ÷ GPUs.
	PerGPUTokS float64
	// USDPerMTok is US dollars per million output tokens:
	// price × GPUs ÷ (TotalTokS × 3600) × 10⁶, the same as price × GPUs ×
	// measured_s ÷ 3600 ÷ output_tokens × 10⁶ (total_tok_s is
	// output_tokens ÷ measured_s, docs/schema.md). TokPerUSD is its
	// inverse × 10⁶: output tokens per dollar.
	USDPerMTok, TokPerUSD float64
	// TokPerJ is output tokens per joule (output_tok_per_j, else
	// output_tokens ÷ energy_j); AvgPowerW the cell's mean power.
	TokPerJ, AvgPowerW float64
}

// RunCost is a run's figures per dollar and per joule.
type RunCost struct {
	Pricing
	// Energy is true when some cell of the run records its energy.
	Energy bool
	// Cells are the run's valid decode and serve cells with a total
	// tok/s, in cell order.
	Cells []CellCost
}

// Cell returns the figures of the cell at k, false when the run has none.
func (rc *RunCost) Cell(k Key) (CellCost, bool) {
	for _, c := range rc.Cells {
		if c.Key == k {
			return c, true
		}
	}
	return CellCost{}, false
}

// outputTokPerJ and its inputs, as Metrics (any numeric column).
var (
	outputTokPerJ = mustMetric("output_tok_per_j")
	outputTokens  = mustMetric("output_tokens")
	energyJ       = mustMetric("energy_j")
	avgPowerW     = mustMetric("avg_power_w")
)

func mustMetric(name string) Metric {
	m, err := MetricByName(name)
	if err != nil {
		panic(err)
	}
	return m
}

// Costs computes each run's figures per dollar and per joule, pricing
// run i (baseline first) with pr[i] (a missing entry: no price, no count
// beyond the run's own).
func Costs(c *Comparison, pr []Pricing) []RunCost {
	var out []RunCost
	for i, cs := range append([]*Cells{c.Baseline}, c.Others...) {
		rc := RunCost{}
		if i < len(pr) {
			rc.Pricing = pr[i]
		} else if g := cs.Run.Run.GPUCount; g != nil && *g > 0 {
			rc.GPUs = *g
		}
		perHour := rc.USDPerHour()
		for j := range cs.List {
			cell := &cs.List[j]
			if cell.Key.Phase != schema.PhaseDecode && cell.Key.Phase != schema.PhaseServe {
				continue
			}
			x, ok := cell.Value(TotalTokS)
			if !ok || !(x > 0) {
				continue
			}
			cc := CellCost{Key: cell.Key, ContextTokens: cell.ContextTokens, TotalTokS: x, PerRequestTokS: valueOrNaN(cell, PerRequestTokS),
				PerGPUTokS: math.NaN(), USDPerMTok: math.NaN(), TokPerUSD: math.NaN(), TokPerJ: tokPerJ(cell), AvgPowerW: valueOrNaN(cell, avgPowerW)}
			if rc.GPUs > 0 {
				cc.PerGPUTokS = x / float64(rc.GPUs)
			}
			if !math.IsNaN(perHour) {
				cc.USDPerMTok = perHour / (x * 3600) * 1e6
				cc.TokPerUSD = x * 3600 / perHour
			}
			if !math.IsNaN(cc.TokPerJ) {
				rc.Energy = true
			}
			rc.Cells = append(rc.Cells, cc)
		}
		out = append(out, rc)
	}
	return out
}

// tokPerJ is a cell's output tokens per joule: output_tok_per_j, else
// output_tokens ÷ energy_j; NaN without energy.
func tokPerJ(cell *Cell) float64 {
	if v, ok := cell.Value(outputTokPerJ); ok && v > 0 {
		return v
	}
	n, okn := cell.Value(outputTokens)
	e, oke := cell.Value(energyJ)
	if okn && oke && e > 0 && n > 0 {
		return n / e
	}
	return math.NaN()
}

// CostRatio is one other run against the baseline per second, per
// dollar and per joule, over one phase.
type CostRatio struct {
	// Other indexes Comparison.Others.
	Other int
	Phase schema.Phase
	// Throughput is the geometric mean of the total tok/s ratios (the
	// summary's); Cells how many it averages.
	Throughput float64
	Cells      int
	// PerDollar is Throughput × the baseline's cost per hour ÷ the run's:
	// the geometric mean of the tokens-per-dollar ratios of the same
	// cells (each run's cost per hour is one figure). NaN when either run
	// lacks a price or a GPU count.
	PerDollar float64
	// PerJoule is the geometric mean of the tokens-per-joule ratios over
	// the cells both runs record energy for (JouleCells), NaN when none.
	PerJoule   float64
	JouleCells int
}

// CostRatios compares each other run with the baseline per dollar and
// per joule in each phase with output tokens (decode, serve) that gms
// (Comparison.Summarize) has a throughput ratio for.
func CostRatios(c *Comparison, gms []GeoMean, rcs []RunCost) []CostRatio {
	var out []CostRatio
	for _, g := range gms {
		if g.ContextLabel != "" || g.Metric.Name != TotalTokS.Name || g.N == 0 || (g.Phase != schema.PhaseDecode && g.Phase != schema.PhaseServe) {
			continue
		}
		cr := CostRatio{Other: g.Other, Phase: g.Phase, Throughput: g.Ratio, Cells: g.N, PerDollar: math.NaN(), PerJoule: math.NaN()}
		base, other := rcs[0], rcs[g.Other+1]
		if b, o := base.USDPerHour(), other.USDPerHour(); !math.IsNaN(b) && !math.IsNaN(o) {
			cr.PerDollar = g.Ratio * b / o
		}
		sum := 0.0
		for _, bc := range base.Cells {
			if bc.Key.Phase != g.Phase || math.IsNaN(bc.TokPerJ) {
				continue
			}
			if oc, ok := other.Cell(bc.Key); ok && !math.IsNaN(oc.TokPerJ) {
				sum += math.Log(oc.TokPerJ / bc.TokPerJ)
				cr.JouleCells++
			}
		}
		if cr.JouleCells > 0 {
			cr.PerJoule = math.Exp(sum / float64(cr.JouleCells))
		}
		out = append(out, cr)
	}
	return out
}

// JouleBest is a run's answer per joule at one decode context: the cell
// with the most output tokens per joule among those whose requests each
// see at least the asked speed. Found is false when no cell with energy
// qualifies.
type JouleBest struct {
	ContextLabel string
	Found        bool
	Cell         CellCost
}

// MostPerJoule answers "the most output tokens per joule with at least
// minPerRequest tok/s per request" (0: at any speed) per decode context
// of rc, in cell order. Unlike the answer per dollar, it need not be the
// cell with the most throughput: power rises with load.
func MostPerJoule(rc *RunCost, minPerRequest float64) []JouleBest {
	var out []JouleBest
	for _, cc := range rc.Cells {
		if cc.Key.Phase != schema.PhaseDecode {
			continue
		}
		if len(out) == 0 || out[len(out)-1].ContextLabel != cc.Key.ContextLabel {
			out = append(out, JouleBest{ContextLabel: cc.Key.ContextLabel})
		}
		if math.IsNaN(cc.TokPerJ) || minPerRequest > 0 && !(cc.PerRequestTokS >= minPerRequest) {
			continue
		}
		b := &out[len(out)-1]
		if !b.Found || cc.TokPerJ > b.Cell.TokPerJ {
			b.Found, b.Cell = true, cc
		}
	}
	return out
}
