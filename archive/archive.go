package archive

import (
	"cmp"
	"context"
	"errors"
	"fmt"
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

// underWriteLock takes the exclusive lock, finishes any interrupted
// transaction (recovered) and calls f with the store as it then is.
func (a *Archive) underWriteLock(ctx context.Context, f func(l *layout) error) error {
	unlock, err := a.lock(ctx, true)
	if err != nil {
		return err
	}
	defer unlock()
	l, err := a.recovered()
	if err != nil {
		return err
	}
	return f(l)
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
