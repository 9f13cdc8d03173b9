package analysis

import (
	"cmp"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"

	"speedmatrix/schema"
)

// Key identifies a cell across runs: its phase, context label and
// concurrency (0 when the row has none); serve rows of other tools'
// benchmarks also by their offered request rate (0 when none; +Inf for
// "all at once").
type Key struct {
	Phase        schema.Phase
	ContextLabel string
	Concurrency  int32
	RequestRate  float64
}

// KeyOf returns the cell a measurement belongs to.
//
// Note: request_rate identifies a cell only in serve rows, where it is
// the rate the benchmark offered; in decode rows it is a measured figure.
// An infinite rate under a concurrency cap (vLLM and SGLang
// `--request-rate inf --max-concurrency 16`) is a closed loop of 16
// streams, the load of guidellm's concurrent profile and of `run`'s
// closed-loop probes: its key is the concurrency alone, so that such
// runs line up. An infinite rate without a cap stays a burst (+Inf).
func KeyOf(x *schema.Measurement) Key {
	k := Key{Phase: x.Phase, ContextLabel: x.ContextLabel}
	if x.Concurrency != nil {
		k.Concurrency = *x.Concurrency
	}
	if x.Phase == schema.PhaseServe && x.RequestRate != nil && !math.IsNaN(*x.RequestRate) {
		k.RequestRate = *x.RequestRate
		if math.IsInf(k.RequestRate, 1) && k.Concurrency > 0 {
			k.RequestRate = 0
		}
	}
	return k
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
	Run  *schema.Matrix
	List []Cell
	// keys is the table of keys this run was indexed against (shared by
	// the runs of one Compare); byID maps a key id to its List index + 1.
	keys *KeyTable
	byID []int32
	// samples holds per-request samples by cell, when the run kept them.
	samples map[Key][]*schema.Sample
}

// KeyTable numbers cell keys. Runs indexed against one table share the
// numbering, so aligning them needs no hashing per run and cell. Index
// may be called from several goroutines at once.
type KeyTable struct {
	mu    sync.RWMutex
	ids   map[Key]int32
	cells []Cell // first cell seen per id (Key and ContextTokens; no rows)
}

// NewKeyTable returns an empty table.
func NewKeyTable() *KeyTable { return &KeyTable{ids: map[Key]int32{}} }

func (kt *KeyTable) id(k Key, contextTokens int64) int32 {
	kt.mu.RLock()
	id, ok := kt.ids[k]
	kt.mu.RUnlock()
	if ok {
		return id
	}
	kt.mu.Lock()
	defer kt.mu.Unlock()
	if id, ok := kt.ids[k]; ok {
		return id
	}
	id = int32(len(kt.cells))
	kt.ids[k] = id
	kt.cells = append(kt.cells, Cell{Key: k, ContextTokens: contextTokens})
	return id
}

// contextTokens returns the context length of key id when its rows do
// not give one: the label read as a count, parsed once per key.
func (kt *KeyTable) contextTokens(id int32, label string) int64 {
	kt.mu.RLock()
	ct := kt.cells[id].ContextTokens
	kt.mu.RUnlock()
	if ct >= 0 {
		return ct
	}
	ct = ContextTokens(label)
	kt.mu.Lock()
	if kt.cells[id].ContextTokens < 0 {
		kt.cells[id].ContextTokens = ct
	}
	kt.mu.Unlock()
	return ct
}

// IndexCells groups a matrix's measurements by cell.
func IndexCells(m *schema.Matrix) *Cells { return NewKeyTable().Index(m) }

// Index groups a matrix's measurements by cell, numbering keys in kt.
//
// Note: a comparison against an archive indexes thousands of runs, so a
// run costs no map of its own (key ids come from the shared table) and
// the rows of all its cells share one backing array.
func (kt *KeyTable) Index(m *schema.Matrix) *Cells {
	kt.mu.RLock()
	known := len(kt.cells)
	kt.mu.RUnlock()
	cs := &Cells{Run: m, keys: kt, List: make([]Cell, 0, len(m.Measurements)), byID: make([]int32, known)}
	which := make([]int32, len(m.Measurements))
	counts := make([]int32, 0, len(m.Measurements))
	for i := range m.Measurements {
		x := &m.Measurements[i]
		k := KeyOf(x)
		ct := int64(-1)
		if x.ContextTokens != nil {
			ct = *x.ContextTokens
		}
		id := kt.id(k, ct)
		if int(id) >= len(cs.byID) {
			cs.byID = append(cs.byID, make([]int32, int(id)+1-len(cs.byID))...)
		}
		j := cs.byID[id] - 1
		if j < 0 {
			j = int32(len(cs.List))
			cs.byID[id] = j + 1
			if ct < 0 {
				ct = kt.contextTokens(id, x.ContextLabel)
			}
			cs.List = append(cs.List, Cell{Key: k, ContextTokens: ct, Status: x.Status})
			counts = append(counts, 0)
		}
		which[i] = j
		counts[j]++
		if x.Status == schema.StatusValid {
			cs.List[j].Status = schema.StatusValid
		}
	}
	rows := make([]*schema.Measurement, len(m.Measurements))
	off := int32(0)
	for j := range cs.List {
		cs.List[j].Rows = rows[off : off : off+counts[j]]
		off += counts[j]
	}
	for i := range m.Measurements {
		c := &cs.List[which[i]]
		c.Rows = append(c.Rows, &m.Measurements[i])
	}
	if !slices.IsSortedFunc(cs.List, compareCells) {
		slices.SortStableFunc(cs.List, compareCells)
		for i, c := range cs.List {
			cs.byID[kt.id(c.Key, c.ContextTokens)] = int32(i) + 1
		}
	}
	if len(m.Samples) > 0 {
		cs.samples = map[Key][]*schema.Sample{}
		serve := serveLoads(m)
		for i := range m.Samples {
			s := &m.Samples[i]
			k := Key{Phase: s.Phase, ContextLabel: s.ContextLabel, Concurrency: s.Concurrency}
			if s.Phase == schema.PhaseServe {
				if sk, ok := serve[serveLoad{s.ContextLabel, s.Repeat}]; ok {
					k = sk
				}
			}
			cs.samples[k] = append(cs.samples[k], s)
		}
	}
	return cs
}

// serveLoad is a serving row's place in its run: its context and its
// index among that context's serve rows in run order.
type serveLoad struct {
	ctx  string
	load int32
}

// serveLoads maps each serve row's place to its cell key. A serving run's
// samples name their row by that place (repeat numbers the rate, 0, 1, …
// in run order; concurrency is 0 for every rate row), not by the key
// KeyOf gives the row, which holds the request rate.
//
// Note: without it every sample of an open-loop run fell under one key
// that no cell has, and serving runs got no interval (issue 24).
func serveLoads(m *schema.Matrix) map[serveLoad]Key {
	out := map[serveLoad]Key{}
	n := map[string]int32{}
	for i := range m.Measurements {
		x := &m.Measurements[i]
		if x.Phase != schema.PhaseServe {
			continue
		}
		out[serveLoad{x.ContextLabel, n[x.ContextLabel]}] = KeyOf(x)
		n[x.ContextLabel]++
	}
	return out
}

// Get returns the cell for k, or nil when the run has none.
func (cs *Cells) Get(k Key) *Cell {
	cs.keys.mu.RLock()
	id, ok := cs.keys.ids[k]
	cs.keys.mu.RUnlock()
	if !ok {
		return nil
	}
	return cs.byKeyID(id)
}

func (cs *Cells) byKeyID(id int32) *Cell {
	if int(id) >= len(cs.byID) || cs.byID[id] == 0 {
		return nil
	}
	return &cs.List[cs.byID[id]-1]
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
	var out []Cell
	if shared(runs) {
		kt := runs[0].keys
		kt.mu.RLock()
		defer kt.mu.RUnlock()
		seen := make([]bool, len(kt.cells))
		for _, r := range runs {
			for id, j := range r.byID {
				if j > 0 && !seen[id] {
					seen[id] = true
					out = append(out, Cell{Key: kt.cells[id].Key, ContextTokens: r.List[j-1].ContextTokens})
				}
			}
		}
	} else {
		seen := map[Key]bool{}
		for _, r := range runs {
			for _, c := range r.List {
				if !seen[c.Key] {
					seen[c.Key] = true
					out = append(out, Cell{Key: c.Key, ContextTokens: c.ContextTokens})
				}
			}
		}
	}
	slices.SortStableFunc(out, compareCells)
	return out
}

// shared reports whether runs were all indexed against one KeyTable.
func shared(runs []*Cells) bool {
	for _, r := range runs {
		if r.keys != runs[0].keys {
			return false
		}
	}
	return len(runs) > 0
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
		cmp.Compare(a.Key.RequestRate, b.Key.RequestRate),
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
