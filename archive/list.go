package archive

import (
	"cmp"
	"context"
	"hash/maphash"
	"math"
	"os"
	"reflect"
	"slices"
	"sync"
	"time"

	"speedmatrix/schema"
)

// Listing is a run as listings show it: the few runs columns `compare
// -list` and the dashboard's first page print, read straight from the
// runs files into this narrow row (about a fifth of a schema.Run)
// without the other columns. MeasuredAt gives its date.
type Listing struct {
	RunID      string     `json:"run_id"`
	IngestedAt time.Time  `json:"ingested_at"`
	StartedAt  *time.Time `json:"started_at"`
	// Cells is the number of cells of the run: from the runs table, or
	// counted from the measurements for runs written before that column
	// existed. ListRuns never returns it nil.
	Cells         *int32 `json:"cells"`
	Model         string `json:"model"`
	GPU           string `json:"gpu"`
	Engine        string `json:"engine"`
	EngineVersion string `json:"engine_version"`
	Quantization  string `json:"quantization"`
	// SourceSHA256 is the hash of the source the run was read from.
	SourceSHA256 string `json:"source_sha256"`
	Title        string `json:"title"`
	BenchTool    string `json:"bench_tool"`
	GPUCount     *int32 `json:"gpu_count,omitempty"`
	// BenchVersion and Subtitle are for the dashboard's Runs view (its
	// Tool column, its free-text filter); -list prints neither.
	BenchVersion string `json:"bench_version"`
	Subtitle     string `json:"subtitle"`
}

// listTable is the runs table seen through Listing: the same column
// names and types (TestListingColumns), fewer of them.
var listTable = sync.OnceValue(func() *table {
	t, err := newTable(TableRuns, reflect.TypeFor[Listing]())
	if err != nil {
		panic(err) // fixed at compile time; every test catches it
	}
	return t
})

// listColumns are the runs columns Listing holds.
var listColumns = func() []string {
	var out []string
	for _, c := range listTable().cols {
		out = append(out, c.name)
	}
	return out
}()

// ListRuns returns every run of the archive as a Listing, sorted as Runs
// (by ingested_at, then run_id). Only the columns of Listing are read, and
// only from the runs files, except for runs written before the runs table
// kept their cell count, whose cells are counted from four measurement
// columns.
//
// Note: listing 100,000 runs is a benchmark (BenchmarkList100000 in
// cmd/compare). Reading whole schema.Run rows (launch flags, metadata)
// and copying them through the dedupe, the sort and the caller's rows
// took most of its CPU time and memory; a Listing row is a sixth of a
// Run, and the dedupe keeps an index, not a copy.
func (a *Archive) ListRuns(ctx context.Context) ([]Listing, error) {
	var out []Listing
	err := a.underReadLock(ctx, func(l *layout) (err error) {
		var from []string
		if out, from, err = a.listRuns(ctx, l); err != nil {
			return err
		}
		return a.fillCells(ctx, l, out, from)
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// listRuns reads the Listings of layout l, under a lock the caller holds,
// with the stem each came from; cell counts the runs table lacks are left
// to fillCells.
func (a *Archive) listRuns(ctx context.Context, l *layout) (_ []Listing, from []string, _ error) {
	stems := l.committed()
	files, err := readRunsFiles[Listing](ctx, l, stems, listTable(), listColumns)
	if err != nil {
		return nil, nil, err
	}
	out, from := dedupeListings(stems, files)
	return out, from, nil
}

// readRunsFiles reads columns cols of the runs files of stems, through
// table t of rows T, in parallel: the rows of stems[k] are its [k].
func readRunsFiles[T any](ctx context.Context, l *layout, stems []string, t *table, cols []string) ([][][]T, error) {
	files := make([][][]T, len(stems))
	err := parallel(ctx, len(stems), func(k int) error {
		path := l.files[TableRuns][stems[k]]
		f, err := os.Open(path)
		if err != nil {
			return err
		}
		defer f.Close()
		var s sink[T]
		if err := t.read(f, path, nil, cols, &s); err != nil {
			return damaged(path, err)
		}
		files[k] = s.chunks
		return nil
	})
	return files, err
}

// dedupeListings keeps one row per run id of the rows read from each
// stem (files[k] from stems[k], stems ascending), as readRuns
// does: the earliest ingested, then the smallest stem. It returns them
// sorted by ingested_at, then run_id, with the stem of each.
func dedupeListings(stems []string, files [][][]Listing) ([]Listing, []string) {
	n := 0
	for _, chunks := range files {
		for _, c := range chunks {
			n += len(c)
		}
	}
	// The rows stay where the read put them: the dedupe and the sort
	// move pointers, and the result is the one copy.
	type ref struct {
		r    *Listing
		stem string
	}
	refs := make([]ref, 0, n)
	at := make(map[string]int, n)
	for k, chunks := range files {
		for _, c := range chunks {
			for j := range c {
				r := &c[j]
				i, ok := at[r.RunID]
				switch {
				case !ok:
					at[r.RunID] = len(refs)
					refs = append(refs, ref{r, stems[k]})
				case r.IngestedAt.Before(refs[i].r.IngestedAt):
					refs[i] = ref{r, stems[k]}
				}
			}
		}
	}
	slices.SortFunc(refs, func(x, y ref) int {
		if c := x.r.IngestedAt.Compare(y.r.IngestedAt); c != 0 {
			return c
		}
		return cmp.Compare(x.r.RunID, y.r.RunID)
	})
	out := make([]Listing, len(refs))
	from := make([]string, len(refs))
	for i, x := range refs {
		out[i], from[i] = *x.r, x.stem
	}
	return out, from
}

// fillCells sets Cells of the listed runs written before the runs table
// kept it (from[i] is the stem of ls[i]), counting them from four
// measurement columns.
func (a *Archive) fillCells(ctx context.Context, l *layout, ls []Listing, from []string) error {
	var missing []storedRun
	for i, r := range ls {
		if r.Cells == nil {
			missing = append(missing, storedRun{schema.Run{RunID: r.RunID, IngestedAt: r.IngestedAt}, from[i]})
		}
	}
	if len(missing) == 0 {
		return nil
	}
	ids := make([]string, len(missing))
	for i, r := range missing {
		ids[i] = r.run.RunID
	}
	ms, err := a.load(ctx, l, missing, ids, cellColumns)
	if err != nil {
		return err
	}
	counts := make(map[string]int32, len(ms))
	for _, m := range ms {
		counts[m.Run.RunID] = countCells(m.Measurements)
	}
	for i := range ls {
		if ls[i].Cells == nil {
			n := counts[ls[i].RunID]
			ls[i].Cells = &n
		}
	}
	return nil
}

// cellKey is the cell a measurement belongs to: the key compare aligns
// runs by (analysis.KeyOf, which cmd/compare's tests check this against).
// request_rate identifies a cell only in serve rows.
type cellKey struct {
	phase   schema.Phase
	label   string
	conc    int32
	rate    float64
	hasRate bool
}

// countCells returns the number of distinct cells of rows.
//
// Note: archive cannot import analysis (it would pull the charts'
// dependencies into every archive user), so the key is restated here in
// the four columns that make it; TestListColumns in cmd/compare fails
// when the two disagree.
//
// Note: a document's rows (46 in a seed document) are counted by
// comparing each cell with the distinct ones before it, in an array on
// the stack: a map per document was 15 µs of allocation and hashing, 2%
// of the CPU time of an ingest; the comparisons are about a thousand.
func countCells(rows []schema.Measurement) int32 {
	if len(rows) <= smallCells {
		var buf [smallCells]cellKey
		keys := buf[:0]
	next:
		for i := range rows {
			k := cellOf(&rows[i])
			for j := range keys {
				if keys[j].same(&k) {
					continue next
				}
			}
			keys = append(keys, k)
		}
		return int32(len(keys))
	}
	seen := make(map[cellKey]struct{}, len(rows))
	for i := range rows {
		seen[cellOf(&rows[i])] = struct{}{}
	}
	return int32(len(seen))
}

// same reports whether k and o are the same cell: k == o, the numbers
// compared first.
//
// Note: == on the struct compares the strings first (phase, then label),
// and most rows of a document share their phase and many their label;
// their concurrencies mostly differ. Comparing those first made
// countCells of a seed document 2.2-2.8 µs instead of 3.4-4.8
// (BenchmarkCountCells, three interleaved runs, a loaded machine).
func (k *cellKey) same(o *cellKey) bool {
	return k.conc == o.conc && k.hasRate == o.hasRate && k.rate == o.rate && k.label == o.label && k.phase == o.phase
}

// smallCells is the most rows countCells compares pairwise.
const smallCells = 96

// cellOf returns the cell of row x.
func cellOf(x *schema.Measurement) cellKey {
	k := cellKey{phase: x.Phase, label: x.ContextLabel}
	if x.Concurrency != nil {
		k.conc = *x.Concurrency
	}
	if x.Phase == schema.PhaseServe && x.RequestRate != nil && !math.IsNaN(*x.RequestRate) {
		k.rate, k.hasRate = *x.RequestRate, true
	}
	return k
}

// CellCounter counts the distinct cells of rows added in pieces (the
// runs table's cells), by a 128-bit hash of each cell.
//
// Note: a map of the cells themselves was 70 MB for a run of 540,000
// rows, of their hashes 15; two distinct cells of one 128-bit hash are
// not to be expected (one in 10^27 for a million cells).
type CellCounter struct {
	seeds [2]maphash.Seed
	seen  map[[2]uint64]struct{}
}

// NewCellCounter returns a counter of no cells.
func NewCellCounter() *CellCounter {
	return &CellCounter{seeds: [2]maphash.Seed{maphash.MakeSeed(), maphash.MakeSeed()}, seen: map[[2]uint64]struct{}{}}
}

// Add adds the cells of rows.
func (c *CellCounter) Add(rows []schema.Measurement) {
	for i := range rows {
		k := cellOf(&rows[i])
		c.seen[[2]uint64{maphash.Comparable(c.seeds[0], k), maphash.Comparable(c.seeds[1], k)}] = struct{}{}
	}
}

// Count returns the number of distinct cells added.
func (c *CellCounter) Count() int32 { return int32(len(c.seen)) }

// cellColumns are the measurement columns countCells reads.
var cellColumns = []string{"phase", "context_label", "concurrency", "request_rate"}

// RunsBySource returns the run ids of the archive the writer writes to
// by the SHA-256 of the source each was read from (runs without one are
// left out), as of the writer's lock: a source read again whose run id is
// not among its own was read differently by an earlier version of the
// parser.
//
// A run is listed under every source it was read from: archives merged
// across hosts may hold one run read from two sources (a document's text
// and its HTML), each of which a newer parser could read differently.
// The run ids of a source are in ListRuns' order (by the run's earliest
// ingested_at, then run_id), each once.
//
// Note: it reads the three columns it needs, not ListRuns' eleven, and
// keeps one map: one ingest of a document into an archive of 100,000 runs
// spent 0.5 of its 0.7 CPU-s and 80 of its 150 MB peak RSS here, listing
// every run in full; now 688 → 338 CPU-ms and 146 → 127 MB for the whole
// command (4 interleaved rounds, `ingest -archive A doc.txt`, a duplicate).
func (w *Writer) RunsBySource() (map[string][]string, error) {
	files, err := readRunsFiles[sourceListing](w.ctx, w.l, w.l.committed(), sourceTable(), sourceColumns)
	if err != nil {
		return nil, err
	}
	// A source's runs, each once; then, for the few sources of more than
	// one run, their order by earliest ingest (a run copied into two
	// files is listed once, as ListRuns lists it).
	n := 0
	for _, chunks := range files {
		for _, c := range chunks {
			n += len(c)
		}
	}
	out := make(map[string][]string, n)
	multi := 0
	for _, chunks := range files {
		for _, c := range chunks {
			for _, r := range c {
				if ids := out[r.SourceSHA256]; r.SourceSHA256 != "" && !slices.Contains(ids, r.RunID) {
					out[r.SourceSHA256] = append(ids, r.RunID)
					if len(ids) == 1 {
						multi++
					}
				}
			}
		}
	}
	if multi == 0 {
		return out, nil
	}
	// The earliest ingest of each run of those sources, from any of its
	// rows (whatever source that row names).
	first := map[string]time.Time{}
	for _, ids := range out {
		if len(ids) > 1 {
			for _, id := range ids {
				first[id] = time.Time{}
			}
		}
	}
	for _, chunks := range files {
		for _, c := range chunks {
			for _, r := range c {
				if t, ok := first[r.RunID]; ok && (t.IsZero() || r.IngestedAt.Before(t)) {
					first[r.RunID] = r.IngestedAt
				}
			}
		}
	}
	for _, ids := range out {
		if len(ids) > 1 {
			slices.SortFunc(ids, func(x, y string) int { return cmp.Or(first[x].Compare(first[y]), cmp.Compare(x, y)) })
		}
	}
	return out, nil
}

// sourceListing is the runs table seen through the columns RunsBySource
// reads (TestListingColumns checks them against the runs table).
type sourceListing struct {
	RunID        string    `json:"run_id"`
	IngestedAt   time.Time `json:"ingested_at"`
	SourceSHA256 string    `json:"source_sha256"`
}

// sourceTable is the table of sourceListing rows.
var sourceTable = sync.OnceValue(func() *table {
	t, err := newTable(TableRuns, reflect.TypeFor[sourceListing]())
	if err != nil {
		panic(err) // fixed at compile time; every test catches it
	}
	return t
})

// sourceColumns are the columns sourceListing holds.
var sourceColumns = []string{"run_id", "ingested_at", "source_sha256"}
