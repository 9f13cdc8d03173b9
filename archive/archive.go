package archive

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"runtime"
	"slices"
	"sync"
	"time"

	"speedmatrix/schema"
)

// ErrNotFound is returned (wrapped) by Load for a run id the archive does
// not hold.
var ErrNotFound = errors.New("run not in archive")

// Archive is a directory of Parquet tables. Its methods are safe for
// concurrent use, also by several processes: writers hold an exclusive
// lock on DIR/.lock, readers a shared one.
type Archive struct {
	dir string

	// LockTimeout bounds the wait for the archive's lock (0: wait as
	// long as it takes); a call that gives up returns an error wrapping
	// ErrLockTimeout that names the holders.
	LockTimeout time.Duration
	// LockWait, when set, is called once when a call has waited about a
	// second for the lock, with the holders recorded in DIR/.holders.
	LockWait func(holders []Holder)
	// SkipDamaged makes reads and writes go on without the batches
	// (stems) holding a damaged or foreign file, each reported once to
	// OnDamaged; without it such a file fails the call with a
	// *DamagedError naming it.
	SkipDamaged bool
	OnDamaged   func(Damage)

	mu sync.Mutex
	// ids caches the run ids of each runs file by path. Data files are
	// never rewritten in place, so an entry stays true while its file
	// exists.
	ids map[string][]string
	// warned holds the damaged files already reported to OnDamaged.
	warned map[string]bool
}

// Outcome says what Append did with one matrix.
type Outcome string

// The outcomes of Append.
const (
	// Added: the run is new and was written.
	Added Outcome = "added"
	// Duplicate: the archive (or an earlier matrix of the same call)
	// already holds a run with this run id; nothing was written for it.
	Duplicate Outcome = "duplicate"
)

// Item is Append's report on one matrix.
type Item struct {
	RunID   string
	Outcome Outcome
}

// Result is what Append did: one Item per matrix, in the order given, and
// the files it wrote (none when every matrix was a duplicate).
type Result struct {
	Items []Item
	Files []string
}

// Added returns how many matrices were added.
func (r Result) Added() int {
	n := 0
	for _, it := range r.Items {
		if it.Outcome == Added {
			n++
		}
	}
	return n
}

// Open opens the archive in dir, creating dir and its table directories
// when missing.
func Open(dir string) (*Archive, error) {
	for _, d := range append([]string{dir}, tableDirs(dir)...) {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return nil, fmt.Errorf("archive: open: %w", err)
		}
	}
	return &Archive{dir: dir, ids: map[string][]string{}, warned: map[string]bool{}}, nil
}

// Dir returns the archive's directory.
func (a *Archive) Dir() string { return a.dir }

// prepare returns m's run with its ids filled in: the run id (computed
// when empty), schema_version and ingested_at (now when zero). A row of m
// naming another run is an error; rows without a run id get the run's
// when they are copied into the batch.
func prepare(m *schema.Matrix, now time.Time) (schema.Run, error) {
	r := m.Run
	if r.RunID == "" {
		r.RunID = schema.ComputeRunID(m)
	}
	if r.SchemaVersion == 0 {
		r.SchemaVersion = schema.Version
	}
	if r.IngestedAt.IsZero() {
		r.IngestedAt = now
	}
	if r.Cells == nil {
		n := countCells(m.Measurements)
		r.Cells = &n
	}
	for i := range m.Measurements {
		if id := m.Measurements[i].RunID; id != "" && id != r.RunID {
			return r, fmt.Errorf("archive: run %s: measurement %d has run_id %s", r.RunID, i, id)
		}
	}
	for i := range m.Samples {
		if id := m.Samples[i].RunID; id != "" && id != r.RunID {
			return r, fmt.Errorf("archive: run %s: sample %d has run_id %s", r.RunID, i, id)
		}
	}
	return r, nil
}

// republish scans the store after a commit and publishes it as the
// current snapshot. The commit stands even when this fails (the runs are
// in the store, and the next write publishes them), so the error says so.
func (a *Archive) republish(ctx context.Context) error {
	l, err := a.scanned(ctx)
	if err == nil {
		err = a.publish(ctx, l)
	}
	if err != nil {
		return fmt.Errorf("archive: committed, but not yet visible to outside readers: %w", err)
	}
	return nil
}

// recovered scans the archive, finishes interrupted transactions and
// returns the clean layout. Callers hold the exclusive lock.
func (a *Archive) recovered() (*layout, error) {
	l, err := scan(a.dir)
	if err != nil {
		return nil, err
	}
	if len(l.journals) > 0 || len(l.temps) > 0 {
		if err := recoverLayout(a.dir, l); err != nil {
			return nil, err
		}
		if l, err = scan(a.dir); err != nil {
			return nil, err
		}
	}
	return l, a.screen(context.Background(), l)
}

// scanned is scan, leaving out the batches with a damaged file when
// SkipDamaged is set (see screen).
func (a *Archive) scanned(ctx context.Context) (*layout, error) {
	l, err := scan(a.dir)
	if err != nil {
		return nil, err
	}
	return l, a.screen(ctx, l)
}

// idLists returns the run ids of the runs file of each stem.
func (a *Archive) idLists(ctx context.Context, l *layout, stems []string) ([][]string, error) {
	out := make([][]string, len(stems))
	err := parallel(ctx, len(stems), func(k int) (err error) {
		out[k], err = a.runIDs(l.files[TableRuns][stems[k]])
		return err
	})
	return out, err
}

// stemsWith returns the stems whose runs file holds any of ids.
func (a *Archive) stemsWith(ctx context.Context, l *layout, stems, ids []string) ([]string, error) {
	lists, err := a.idLists(ctx, l, stems)
	if err != nil {
		return nil, err
	}
	want := make(map[string]bool, len(ids))
	for _, id := range ids {
		want[id] = true
	}
	var out []string
	for k, list := range lists {
		for _, id := range list {
			if want[id] {
				out = append(out, stems[k])
				break
			}
		}
	}
	return out, nil
}

// runIDs returns the run ids of a runs file, from the cache when it can.
func (a *Archive) runIDs(path string) ([]string, error) {
	a.mu.Lock()
	ids, ok := a.ids[path]
	a.mu.Unlock()
	if ok {
		return ids, nil
	}
	ids, err := readRunIDs(path)
	if err != nil {
		return nil, damaged(path, err)
	}
	a.mu.Lock()
	a.ids[path] = ids
	a.mu.Unlock()
	return ids, nil
}

// writeTemp creates path, lets fill write it, and fsyncs and closes it.
func writeTemp(path string, fill func(f *os.File) error) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return fmt.Errorf("archive: %w", err)
	}
	if err := fill(f); err != nil {
		f.Close()
		os.Remove(path)
		return err
	}
	if err := fsSync(f); err != nil {
		f.Close()
		os.Remove(path)
		return fmt.Errorf("archive: %w", err)
	}
	if err := f.Close(); err != nil {
		os.Remove(path)
		return fmt.Errorf("archive: %w", err)
	}
	return nil
}

// storedRun is a run with the stem of the file holding it.
type storedRun struct {
	run  schema.Run
	stem string
}

// readRuns reads the runs of the given committed stems (those whose
// run_id keep holds, when keep is not nil). A run id present in
// several stems (archives merged by copying files, each of which had
// ingested the same document) is kept once: the earliest ingested, then
// the smallest stem. The result is sorted by ingested_at, then run_id.
func (a *Archive) readRuns(ctx context.Context, l *layout, stems []string, keep *runSet) ([]storedRun, error) {
	files := make([][][]schema.Run, len(stems))
	err := parallel(ctx, len(stems), func(k int) (err error) {
		files[k], err = readRows[schema.Run](l.files[TableRuns][stems[k]], keep, nil)
		return err
	})
	if err != nil {
		return nil, err
	}
	best := map[string]storedRun{}
	for k, s := range stems {
		for _, chunk := range files[k] {
			for _, r := range chunk {
				prev, ok := best[r.RunID]
				if ok && !r.IngestedAt.Before(prev.run.IngestedAt) {
					continue // stems come sorted: ties keep the smaller
				}
				best[r.RunID] = storedRun{r, s}
			}
		}
	}
	out := make([]storedRun, 0, len(best))
	for _, r := range best {
		out = append(out, r)
	}
	slices.SortFunc(out, func(x, y storedRun) int {
		if c := x.run.IngestedAt.Compare(y.run.IngestedAt); c != 0 {
			return c
		}
		return cmp.Compare(x.run.RunID, y.run.RunID)
	})
	return out, nil
}

// Runs returns every run of the archive (without measurements), sorted by
// ingested_at, then run_id.
func (a *Archive) Runs(ctx context.Context) ([]schema.Run, error) {
	var srs []storedRun
	err := a.underReadLock(ctx, func(l *layout) (err error) {
		srs, err = a.readRuns(ctx, l, l.committed(), nil)
		return err
	})
	if err != nil {
		return nil, err
	}
	out := make([]schema.Run, len(srs))
	for i, r := range srs {
		out[i] = r.run
	}
	return out, nil
}

// underReadLock takes the shared lock, scans the store (leaving out
// damaged batches when SkipDamaged is set) and calls f with it.
func (a *Archive) underReadLock(ctx context.Context, f func(l *layout) error) error {
	unlock, err := a.lock(ctx, false)
	if err != nil {
		return err
	}
	defer unlock()
	l, err := a.scanned(ctx)
	if err != nil {
		return err
	}
	return f(l)
}

// Load returns the runs with the given ids as matrices with their
// measurements and samples, in the order asked; with no ids, every run in
// the order of Runs. An id the archive lacks is an error wrapping
// ErrNotFound.
func (a *Archive) Load(ctx context.Context, runIDs ...string) ([]*schema.Matrix, error) {
	return a.loadColumns(ctx, nil, runIDs)
}

// LoadColumns is Load reading only the named columns of the measurements
// and samples tables (and run_id); the other fields of their rows stay
// zero (nil for pointers and lists). Runs are read whole. It suits
// listings that need a few small columns of many runs: the wide printed
// and extra columns are most of the cost of Load. A name that is a column
// of neither table is an error.
func (a *Archive) LoadColumns(ctx context.Context, columns []string, runIDs ...string) ([]*schema.Matrix, error) {
	known := map[string]bool{}
	for _, t := range []string{TableMeasurements, TableSamples} {
		for _, c := range Columns(t) {
			known[c.Name] = true
		}
	}
	for _, c := range columns {
		if !known[c] {
			return nil, fmt.Errorf("archive: no measurements or samples column %q", c)
		}
	}
	if columns == nil {
		columns = []string{}
	}
	return a.loadColumns(ctx, columns, runIDs)
}

// loadColumns is Load and LoadColumns: cols nil reads every column.
func (a *Archive) loadColumns(ctx context.Context, cols, runIDs []string) ([]*schema.Matrix, error) {
	unlock, err := a.lock(ctx, false)
	if err != nil {
		return nil, err
	}
	defer unlock()
	l, err := a.scanned(ctx)
	if err != nil {
		return nil, err
	}
	stems := l.committed()
	var keep *runSet
	if len(runIDs) > 0 {
		// Decode only the runs asked for, and only in the runs files
		// holding them, found from their run_id columns.
		if stems, err = a.stemsWith(ctx, l, stems, runIDs); err != nil {
			return nil, err
		}
		keep = newRunSet(runIDs)
	}
	srs, err := a.readRuns(ctx, l, stems, keep)
	if err != nil {
		return nil, err
	}
	return a.load(ctx, l, srs, runIDs, cols)
}

// load attaches measurements and samples to the chosen runs, reading only
// the files of the stems that hold them, and only the columns cols (all
// when nil).
func (a *Archive) load(ctx context.Context, l *layout, srs []storedRun, runIDs, cols []string) ([]*schema.Matrix, error) {
	byID := make(map[string]int, len(srs))
	for i, r := range srs {
		byID[r.run.RunID] = i
	}
	var chosen []int
	if len(runIDs) == 0 {
		for i := range srs {
			chosen = append(chosen, i)
		}
	} else {
		for _, id := range runIDs {
			i, ok := byID[id]
			if !ok {
				return nil, fmt.Errorf("archive: %s: %w", id, ErrNotFound)
			}
			chosen = append(chosen, i)
		}
	}
	out := make([]*schema.Matrix, len(chosen))
	// want maps stem → run id → matrix, so rows of a duplicate run kept in
	// another stem are not attached twice.
	want := map[string]map[string]*schema.Matrix{}
	for k, i := range chosen {
		r := srs[i]
		m, ok := want[r.stem][r.run.RunID]
		if !ok {
			m = &schema.Matrix{Run: r.run, Measurements: []schema.Measurement{}}
			if want[r.stem] == nil {
				want[r.stem] = map[string]*schema.Matrix{}
			}
			want[r.stem][r.run.RunID] = m
		}
		out[k] = m
	}
	stems := make([]string, 0, len(want))
	for s := range want {
		stems = append(stems, s)
	}
	slices.Sort(stems)
	ms := make([][][]schema.Measurement, len(stems))
	ss := make([][][]schema.Sample, len(stems))
	// Without ids every run is wanted and the files are read whole (rows
	// of a run kept from another stem are dropped below).
	keeps := make([]*runSet, len(stems))
	if len(runIDs) > 0 {
		for k, s := range stems {
			keeps[k] = newRunSet(slices.Collect(maps.Keys(want[s])))
		}
	}
	err := parallel(ctx, 2*len(stems), func(k int) (err error) {
		s, keep := stems[k/2], keeps[k/2]
		if k%2 == 0 {
			if p, ok := l.files[TableMeasurements][s]; ok {
				ms[k/2], err = readRows[schema.Measurement](p, keep, cols)
			}
		} else if p, ok := l.files[TableSamples][s]; ok {
			ss[k/2], err = readRows[schema.Sample](p, keep, cols)
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	for k, s := range stems {
		byRun := want[s]
		for _, c := range ms[k] {
			attach(c, byRun, func(r *schema.Measurement) string { return r.RunID },
				func(m *schema.Matrix) *[]schema.Measurement { return &m.Measurements })
		}
		for _, c := range ss[k] {
			attach(c, byRun, func(r *schema.Sample) string { return r.RunID },
				func(m *schema.Matrix) *[]schema.Sample { return &m.Samples })
		}
	}
	return out, nil
}

// attach gives each matrix of byRun its rows of rows, in file order. A
// run whose rows are contiguous (files are written in run_id order) gets
// a subslice of rows, capped so an append cannot spill into the next run;
// the others get a copy.
//
// Note: a row is hundreds of bytes and a load of every run holds
// hundreds of thousands of them: copying them into per-run slices would
// double the time and the memory of the load.
func attach[R any](rows []R, byRun map[string]*schema.Matrix, id func(*R) string, field func(*schema.Matrix) *[]R) {
	type span struct{ start, end, n int }
	spans := map[*schema.Matrix]*span{}
	for i := range rows {
		m := byRun[id(&rows[i])]
		if m == nil {
			continue
		}
		sp := spans[m]
		if sp == nil {
			sp = &span{start: i, end: i}
			spans[m] = sp
		}
		sp.end, sp.n = i+1, sp.n+1
	}
	for m, sp := range spans {
		f := field(m)
		if sp.end-sp.start == sp.n && len(*f) == 0 {
			*f = rows[sp.start:sp.end:sp.end]
			continue
		}
		for i := sp.start; i < sp.end; i++ {
			if byRun[id(&rows[i])] == m {
				*f = append(*f, rows[i])
			}
		}
	}
}

// parallel calls f(0), …, f(n-1) on one goroutine per CPU and returns the
// first error (or ctx's). Reading is CPU-bound (decompression, decoding)
// and files are independent.
func parallel(ctx context.Context, n int, f func(i int) error) error {
	next := make(chan int)
	errs := make(chan error, 1)
	var wg sync.WaitGroup
	for w := 0; w < min(runtime.GOMAXPROCS(0), n); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				if err := f(i); err != nil {
					select {
					case errs <- err:
					default:
					}
				}
			}
		}()
	}
	var err error
feed:
	for i := 0; i < n; i++ {
		select {
		case next <- i:
		case err = <-errs:
			break feed
		case <-ctx.Done():
			err = ctx.Err()
			break feed
		}
	}
	close(next)
	wg.Wait()
	if err == nil {
		select {
		case err = <-errs:
		default:
		}
	}
	return err
}
