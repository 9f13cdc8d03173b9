package analysis

import (
	"cmp"
	"slices"
	"strconv"
	"strings"

	"speedmatrix/schema"
)

// Key identifies a cell across runs: its phase, context label and
// concurrency (0 when the row has none).
type Key struct {
	Phase        schema.Phase
	ContextLabel string
	Concurrency  int32
}

// Cell is every row one run holds for one Key: a single row for published
// matrices, one per repeat for measuring runs that repeat cells.
type Cell struct {
	Key Key
	// ContextTokens orders contexts: the rows' context_tokens, or the
	// label read as a count ("8K" = 8192) when the rows lack it.
	ContextTokens int64
	// Status is valid when any row is valid, else the first row's status.
	Status schema.Status
	Rows   []*schema.Measurement
}

// Value returns the cell's figure for mt: the median over its valid rows
// (the only row for published matrices), false when no valid row has it.
func (c *Cell) Value(mt Metric) (float64, bool) {
	if c == nil || c.Status != schema.StatusValid {
		return 0, false
	}
	if len(c.Rows) == 1 {
		return mt.Value(c.Rows[0])
	}
	vs := c.Values(mt)
	if len(vs) == 0 {
		return 0, false
	}
	return median(vs), true
}

// Values returns mt over the cell's valid rows, in row order.
func (c *Cell) Values(mt Metric) []float64 {
	var out []float64
	for _, m := range c.Rows {
		if m.Status != schema.StatusValid {
			continue
		}
		if v, ok := mt.Value(m); ok {
			out = append(out, v)
		}
	}
	return out
}

// Cells is one run's measurements grouped by Key, in canonical order.
type Cells struct {
	Run   *schema.Matrix
	List  []Cell
	index map[Key]int
	// samples holds per-request samples by cell, when the run kept them.
	samples map[Key][]*schema.Sample
}

// IndexCells groups a matrix's measurements by cell.
func IndexCells(m *schema.Matrix) *Cells {
	cs := &Cells{Run: m, index: make(map[Key]int, len(m.Measurements))}
	for i := range m.Measurements {
		x := &m.Measurements[i]
		k := Key{Phase: x.Phase, ContextLabel: x.ContextLabel}
		if x.Concurrency != nil {
			k.Concurrency = *x.Concurrency
		}
		j, ok := cs.index[k]
		if !ok {
			j = len(cs.List)
			cs.index[k] = j
			ct := ContextTokens(x.ContextLabel)
			if x.ContextTokens != nil {
				ct = *x.ContextTokens
			}
			cs.List = append(cs.List, Cell{Key: k, ContextTokens: ct, Status: x.Status})
		}
		c := &cs.List[j]
		c.Rows = append(c.Rows, x)
		if x.Status == schema.StatusValid {
			c.Status = schema.StatusValid
		}
	}
	if !slices.IsSortedFunc(cs.List, compareCells) {
		slices.SortStableFunc(cs.List, compareCells)
		for i, c := range cs.List {
			cs.index[c.Key] = i
		}
	}
	if len(m.Samples) > 0 {
		cs.samples = map[Key][]*schema.Sample{}
		for i := range m.Samples {
			s := &m.Samples[i]
			k := Key{Phase: s.Phase, ContextLabel: s.ContextLabel, Concurrency: s.Concurrency}
			cs.samples[k] = append(cs.samples[k], s)
		}
	}
	return cs
}

// Get returns the cell for k, or nil when the run has none.
func (cs *Cells) Get(k Key) *Cell {
	if i, ok := cs.index[k]; ok {
		return &cs.List[i]
	}
	return nil
}

// Phase returns the run's cells of one phase, in canonical order.
func (cs *Cells) Phase(p schema.Phase) []*Cell {
	var out []*Cell
	for i := range cs.List {
		if cs.List[i].Key.Phase == p {
			out = append(out, &cs.List[i])
		}
	}
	return out
}

// Align returns the union of the cells' keys over runs in canonical
// order (phase, context length, concurrency), with each key's context
// length.
func Align(runs ...*Cells) []Cell {
	seen := map[Key]bool{}
	var out []Cell
	for _, r := range runs {
		for _, c := range r.List {
			if !seen[c.Key] {
				seen[c.Key] = true
				out = append(out, Cell{Key: c.Key, ContextTokens: c.ContextTokens})
			}
		}
	}
	slices.SortStableFunc(out, compareCells)
	return out
}

var phaseRank = map[schema.Phase]int{schema.PhasePrefill: 0, schema.PhaseDecode: 1, schema.PhaseServe: 2}

func comparePhases(a, b schema.Phase) int {
	ra, oka := phaseRank[a]
	rb, okb := phaseRank[b]
	if !oka {
		ra = len(phaseRank)
	}
	if !okb {
		rb = len(phaseRank)
	}
	return cmp.Or(cmp.Compare(ra, rb), cmp.Compare(a, b))
}

func compareCells(a, b Cell) int {
	return cmp.Or(
		comparePhases(a.Key.Phase, b.Key.Phase),
		cmp.Compare(a.ContextTokens, b.ContextTokens),
		cmp.Compare(a.Key.ContextLabel, b.Key.ContextLabel),
		cmp.Compare(a.Key.Concurrency, b.Key.Concurrency),
	)
}

// ContextTokens reads a context label as a token count: "8K" is 8192,
// "1M" 1048576, "4096" 4096. It returns 0 for a label it cannot read.
//
// Note: the seeds label contexts in binary K (123K = 125,952 prompt
// tokens is what the bench sends); the value only orders contexts and
// places them on a chart's axis, where the convention does not matter.
func ContextTokens(label string) int64 {
	s := strings.TrimSpace(strings.ToUpper(label))
	s = strings.TrimSuffix(strings.TrimSuffix(s, " CONTEXT"), " TOKENS")
	mul := 1.0
	switch {
	case strings.HasSuffix(s, "K"):
		mul, s = 1024, s[:len(s)-1]
	case strings.HasSuffix(s, "M"):
		mul, s = 1024*1024, s[:len(s)-1]
	}
	v, err := strconv.ParseFloat(strings.ReplaceAll(s, ",", ""), 64)
	if err != nil || v < 0 {
		return 0
	}
	return int64(v*mul + 0.5)
}

func median(vs []float64) float64 {
	s := slices.Clone(vs)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}
