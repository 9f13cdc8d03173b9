package analysis

import (
	"fmt"
	"math"
	"runtime"
	"slices"
	"sync"

	"speedmatrix/schema"
)

// State is what one run holds for one metric of one cell.
type State uint8

// The states a delta's sides can be in.
const (
	// StateValue is a valid cell that carries the metric.
	StateValue State = iota
	// StateNoValue is a valid cell without the metric.
	StateNoValue
	// StateMissing is a cell the run does not have.
	StateMissing
	// StateLooped is a cell the benchmark discarded because the model looped.
	StateLooped
	// StateOverCapacity is a cell not run because it would exceed the KV cache.
	StateOverCapacity
	// StateSkipped is a cell the user chose not to run.
	StateSkipped
	// StateError is a cell whose requests failed.
	StateError
	// StateOther is a cell with a status this package does not know.
	StateOther
)

func stateOf(c *Cell, mt Metric) (State, float64) {
	if c == nil {
		return StateMissing, 0
	}
	switch c.Status {
	case schema.StatusValid:
		if v, ok := c.Value(mt); ok {
			return StateValue, v
		}
		return StateNoValue, 0
	case schema.StatusLooped:
		return StateLooped, 0
	case schema.StatusOverCapacity:
		return StateOverCapacity, 0
	case schema.StatusSkipped:
		return StateSkipped, 0
	case schema.StatusError:
		return StateError, 0
	}
	return StateOther, 0
}

// Verdict says how a value reads against its baseline.
type Verdict uint8

// The verdicts of a delta.
const (
	// VerdictNone is a delta without a ratio.
	VerdictNone Verdict = iota
	// VerdictBetter is faster (higher rate or lower latency).
	VerdictBetter
	// VerdictWorse is slower.
	VerdictWorse
	// VerdictSame is a change within Options.SameWithin, or one a
	// significance test cannot tell from noise.
	VerdictSame
)

// Delta is one metric of one aligned cell, baseline against one other
// run. It is kept small and free of pointers (indices, not strings; its
// statistics live beside it, see Comparison.Stats) because a comparison
// against a whole archive holds millions of them; package report flattens
// them into rows and words their states.
type Delta struct {
	// Cell indexes Comparison.Cells; Metric indexes Comparison.Metrics.
	Cell                  int32
	Metric                uint8
	BaseState, ValueState State
	Verdict               Verdict
	Baseline, Value       float64
}

// Ratio returns Value/Baseline, false when either side has no value or
// the baseline is zero.
func (d *Delta) Ratio() (float64, bool) {
	if d.BaseState != StateValue || d.ValueState != StateValue || d.Baseline == 0 {
		return 0, false
	}
	return d.Value / d.Baseline, true
}

// Options tunes Compare. The zero value compares the default metrics.
type Options struct {
	// Metrics names further measurements columns to compare in every
	// phase, beyond DefaultMetrics (such as "ttft_p99_ms").
	Metrics []string
	// Labels names the runs (baseline first) for whoever words the
	// results; the run ids when empty.
	Labels []string
	// SameWithin is the relative change below which a delta's verdict is
	// VerdictSame (default 0.0005, i.e. below 0.05%).
	SameWithin float64
	// Confidence is the confidence level of intervals (default 0.95);
	// Alpha the significance level of tests (default 0.05).
	Confidence, Alpha float64
}

// Comparison is a baseline run compared with one or more other runs.
type Comparison struct {
	Baseline *Cells
	Others   []*Cells
	// Labels names the runs, baseline first.
	Labels []string
	// Cells are the aligned keys (the union over the baseline and the
	// others) in canonical order; their Rows are empty.
	Cells   []Cell
	Metrics []Metric
	// Deltas holds, per other run, its deltas in Cells order and then
	// Metrics order.
	Deltas [][]Delta
	// Spread is true when any delta carries statistics; false means every
	// cell holds one figure and no ratio is a test of significance.
	Spread bool

	// stats holds, per other run, the statistics of its deltas by index.
	stats []map[int32]*CellStats
	// groups numbers each aligned cell's phase (group 2i) and phase and
	// context (group 2i+1) for Summarize.
	phaseGroup, ctxGroup []int32
	groupKeys            []groupKey

	opt Options
}

// GoodputReqS is the requests per second that met the run's SLO
// (measurements column goodput_req_s).
var GoodputReqS = func() Metric {
	mt, err := MetricByName("goodput_req_s")
	if err != nil {
		panic(err)
	}
	return mt
}()

// hasGoodput reports whether any row of cs carries goodput_req_s.
func hasGoodput(cs *Cells) bool {
	for i := range cs.Run.Measurements {
		if cs.Run.Measurements[i].GoodputReqS != nil {
			return true
		}
	}
	return false
}

// Compare aligns the cells of baseline and others and computes a Delta
// for each metric of each cell that at least one of the pair holds.
func Compare(baseline *schema.Matrix, others []*schema.Matrix, opt Options) (*Comparison, error) {
	if baseline == nil || len(others) == 0 {
		return nil, fmt.Errorf("compare: need a baseline and at least one other run")
	}
	kt := NewKeyTable()
	b := kt.Index(baseline)
	os := make([]*Cells, len(others))
	parallel(len(others), func(i int) bool {
		os[i] = kt.Index(others[i])
		return false
	})
	return CompareCells(b, os, opt)
}

// CompareCells is Compare over runs already grouped by IndexCells.
func CompareCells(b *Cells, others []*Cells, opt Options) (*Comparison, error) {
	if opt.SameWithin == 0 {
		opt.SameWithin = 0.0005
	}
	if opt.Confidence == 0 {
		opt.Confidence = 0.95
	}
	if opt.Alpha == 0 {
		opt.Alpha = 0.05
	}
	c := &Comparison{Baseline: b, Others: others, opt: opt}
	c.Labels = make([]string, 1+len(others))
	for i := range c.Labels {
		if i < len(opt.Labels) && opt.Labels[i] != "" {
			c.Labels[i] = opt.Labels[i]
		} else if i == 0 {
			c.Labels[i] = b.Run.Run.RunID
		} else {
			c.Labels[i] = others[i-1].Run.Run.RunID
		}
	}
	c.Metrics = []Metric{TotalTokS, PerRequestTokS, TTFTMs, TBTMs}
	for _, name := range opt.Metrics {
		mt, err := MetricByName(name)
		if err != nil {
			return nil, err
		}
		if c.metricIndex(mt.Name) < 0 {
			c.Metrics = append(c.Metrics, mt)
		}
	}
	// Goodput is compared whenever a run measured it against an SLO
	// (run -slo, aiperf's goodput): it answered only -metrics
	// goodput_req_s before (issue 24).
	if c.metricIndex(GoodputReqS.Name) < 0 && (hasGoodput(b) || slices.ContainsFunc(others, hasGoodput)) {
		c.Metrics = append(c.Metrics, GoodputReqS)
	}
	if len(c.Metrics) > 255 {
		return nil, fmt.Errorf("compare: too many metrics (%d)", len(c.Metrics))
	}
	c.Cells = Align(append([]*Cells{b}, others...)...)
	perPhase := map[schema.Phase][]uint8{}
	for _, cell := range c.Cells {
		p := cell.Key.Phase
		if _, ok := perPhase[p]; ok {
			continue
		}
		var idx []uint8
		for _, mt := range DefaultMetrics(p) {
			idx = append(idx, uint8(c.metricIndex(mt.Name)))
		}
		for i := 4; i < len(c.Metrics); i++ {
			idx = append(idx, uint8(i))
		}
		perPhase[p] = idx
	}
	baseCells := make([]*Cell, len(c.Cells))
	keyIDs := make([]int32, len(c.Cells)) // in the baseline's key table
	for i := range c.Cells {
		keyIDs[i] = b.keys.id(c.Cells[i].Key, c.Cells[i].ContextTokens)
		baseCells[i] = b.byKeyID(keyIDs[i])
	}
	c.groupCells()
	c.Deltas = make([][]Delta, len(others))
	c.stats = make([]map[int32]*CellStats, len(others))
	maxMetrics := 0
	for _, idx := range perPhase {
		maxMetrics = max(maxMetrics, len(idx))
	}
	perRun := len(c.Cells) * maxMetrics
	// The baseline side of every delta, computed once, not once per run.
	type side struct {
		state State
		value float64
	}
	baseSide := make([]side, len(c.Cells)*len(c.Metrics))
	for ci := range c.Cells {
		for _, mi := range perPhase[c.Cells[ci].Key.Phase] {
			st, v := stateOf(baseCells[ci], c.Metrics[mi])
			baseSide[ci*len(c.Metrics)+int(mi)] = side{st, v}
		}
	}
	one := func(oi int) (spread bool) {
		o := others[oi]
		ds := make([]Delta, 0, perRun)
		for ci := range c.Cells {
			k := c.Cells[ci].Key
			bc := baseCells[ci]
			var oc *Cell
			if o.keys == b.keys {
				oc = o.byKeyID(keyIDs[ci])
			} else {
				oc = o.Get(k)
			}
			if bc == nil && oc == nil {
				continue
			}
			for _, mi := range perPhase[k.Phase] {
				mt := c.Metrics[mi]
				bs := baseSide[ci*len(c.Metrics)+int(mi)]
				d := Delta{Cell: int32(ci), Metric: mi, BaseState: bs.state, Baseline: bs.value}
				d.ValueState, d.Value = stateOf(oc, mt)
				var st *CellStats
				if d.BaseState == StateValue && d.ValueState == StateValue {
					st = cellStats(b, bc, o, oc, mt, opt)
					if st != nil {
						spread = true
						if c.stats[oi] == nil {
							c.stats[oi] = map[int32]*CellStats{}
						}
						c.stats[oi][int32(len(ds))] = st
					}
				}
				d.Verdict = verdict(&d, st, mt, opt)
				ds = append(ds, d)
			}
		}
		c.Deltas[oi] = ds
		return spread
	}
	c.Spread = parallel(len(others), one)
	return c, nil
}

// parallel calls f(0) … f(n−1) spread over the processors and reports
// whether any call returned true. Fewer than 256 calls run one after
// another.
//
// Note: the runs of a comparison are independent and only read what is
// shared (the baseline, the key table, which locks itself), so a
// comparison against an archive uses every core; a handful stays serial.
func parallel(n int, f func(i int) bool) bool {
	workers := min(runtime.GOMAXPROCS(0), n/256+1)
	hit := make([]bool, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for i := w; i < n; i += workers {
				if f(i) {
					hit[w] = true
				}
			}
		})
	}
	wg.Wait()
	return slices.Contains(hit, true)
}

func (c *Comparison) metricIndex(name string) int {
	for i, mt := range c.Metrics {
		if mt.Name == name {
			return i
		}
	}
	return -1
}

// Stats returns the statistics of delta i of other run oi, nil when its
// cell has one figure on either side.
func (c *Comparison) Stats(oi, i int) *CellStats {
	if c.stats == nil || c.stats[oi] == nil {
		return nil
	}
	return c.stats[oi][int32(i)]
}

func verdict(d *Delta, st *CellStats, mt Metric, opt Options) Verdict {
	r, ok := d.Ratio()
	if !ok {
		return VerdictNone
	}
	if st != nil && !st.Significant() {
		return VerdictSame
	}
	if math.Abs(r-1) < opt.SameWithin {
		return VerdictSame
	}
	if (r > 1) == mt.HigherIsBetter {
		return VerdictBetter
	}
	return VerdictWorse
}

// SameWithin returns the relative change within which a delta without
// statistics is VerdictSame (Options.SameWithin as used).
func (c *Comparison) SameWithin() float64 { return c.opt.SameWithin }

// Options returns the options the comparison used, defaults filled in:
// the confidence level and significance level its statistics rest on.
func (c *Comparison) Options() Options { return c.opt }
