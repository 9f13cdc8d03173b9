package archive

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"time"

	"speedmatrix/archive/internal/pqwrite"
	"speedmatrix/schema"
)

// batchRows is how many rows (measurements and samples) a Writer holds
// before it writes them out as row groups of its files.
//
// Note: the rows of a batch are sorted by run_id before they are cut
// into row groups, so the groups of one batch bound narrow id ranges;
// across batches the ranges overlap, and Load by id then reads one group
// per batch (Compact sorts the whole archive again). 16,384 rows (about
// 356 seed documents) keep a batch's Go rows and Parquet pages to a few
// tens of MB; 65,536 took one ingest of 1,000 and 10,000 documents to
// 221 and 469 MB peak RSS (README, "Archive at scale").
var batchRows = 1 << 14

// Writer adds runs to the archive in one transaction whose memory does
// not grow with the number of runs: rows are written to the files of the
// transaction (one per table) in batches of about batchRows rows, and
// Close commits them all at once. It holds the archive's write lock from
// NewWriter to Close or Abort.
type Writer struct {
	// Written, when not nil, is called once a batch's rows are written to
	// the transaction's files, for each matrix Add kept in that batch (in
	// run_id order), before the Add or Close that wrote them returns. The
	// writer then holds nothing of m's measurements and samples (their
	// values are encoded; a column's dictionary keeps the strings, which
	// point to their own bytes, not into the rows), so the caller may
	// reuse their memory; m.Run is not read again either. It is not
	// called for a matrix Add found a duplicate (the writer did not keep
	// it), for the matrix of AddRows, nor after a write that failed.
	Written func(m *schema.Matrix)

	a      *Archive
	ctx    context.Context
	unlock func()
	l      *layout
	now    time.Time
	have   map[string]bool
	files  *tempFiles
	items  []Item
	added  []string
	batch  []pendingRun
	nrows  int
	done   bool
}

// pendingRun is a run added but not yet written.
type pendingRun struct {
	run schema.Run
	m   *schema.Matrix
}

// NewWriter takes the write lock (waiting as lock says), finishes any
// interrupted transaction and reads the archive's run ids for dedupe.
func (a *Archive) NewWriter(ctx context.Context) (*Writer, error) {
	unlock, err := a.lock(ctx, true)
	if err != nil {
		return nil, err
	}
	w := &Writer{a: a, ctx: ctx, unlock: unlock, now: time.Now().UTC().Truncate(time.Microsecond), have: map[string]bool{}}
	if w.l, err = a.recovered(); err == nil {
		var lists [][]string
		if lists, err = a.idLists(ctx, w.l, w.l.committed()); err == nil {
			n := 0
			for _, ids := range lists {
				n += len(ids)
			}
			w.have = make(map[string]bool, n) // sized once, not grown by doubling
			for _, ids := range lists {
				for _, id := range ids {
					w.have[id] = true
				}
			}
		}
	}
	if err != nil {
		unlock()
		return nil, err
	}
	w.files = &tempFiles{dir: a.dir, stem: newStem(w.now)}
	return w, nil
}

// Add adds m unless the archive (or an earlier Add) holds its run id,
// and says which. The writer keeps m until its batch is written: the
// caller must not change it.
func (w *Writer) Add(m *schema.Matrix) (Item, error) {
	if w.done {
		return Item{}, errors.New("archive: Add after Close")
	}
	r, err := prepare(m, w.now)
	if err != nil {
		return Item{}, err
	}
	it := Item{RunID: r.RunID, Outcome: Duplicate}
	if !w.have[r.RunID] {
		w.have[r.RunID] = true
		it.Outcome = Added
		w.batch = append(w.batch, pendingRun{r, m})
		w.nrows += len(m.Measurements) + len(m.Samples)
	}
	w.items = append(w.items, it)
	if w.nrows >= batchRows {
		if err := w.flush(); err != nil {
			return it, err
		}
	}
	return it, nil
}

// AddRows is Add for a run whose measurements come in pieces: m holds
// none, and each ranges over them, handing pieces to its yield in order
// (the writer may keep a piece until it is written). Unless the run is a
// duplicate (each is then not called), its rows are written as they come,
// into one row group of the measurements file, so that a document of
// 500,000 rows is never whole in memory. Its cells are counted as they
// come unless m.Run.Cells is set (a caller that counted them before, with
// a CellCounter). An error of each leaves rows of the run in the
// transaction's files: the caller must Abort.
func (w *Writer) AddRows(m *schema.Matrix, each func(yield func([]schema.Measurement) error) error) (Item, error) {
	if w.done {
		return Item{}, errors.New("archive: Add after Close")
	}
	if len(m.Measurements) > 0 || m.Run.RunID == "" {
		return Item{}, errors.New("archive: AddRows of a matrix with measurements or without a run id")
	}
	counted := m.Run.Cells != nil
	r, err := prepare(m, w.now)
	if err != nil {
		return Item{}, err
	}
	it := Item{RunID: r.RunID, Outcome: Duplicate}
	if w.have[r.RunID] {
		w.items = append(w.items, it)
		return it, nil
	}
	if err := w.flush(); err != nil {
		return it, err
	}
	var cells *CellCounter
	if !counted {
		cells = NewCellCounter()
	}
	err = w.files.writeStream(TableMeasurements, func(put func(reflect.Value) error) error {
		return each(func(ms []schema.Measurement) error {
			if err := w.ctx.Err(); err != nil {
				return err
			}
			for i := range ms {
				if id := ms[i].RunID; id != "" && id != r.RunID {
					return fmt.Errorf("archive: run %s: measurement has run_id %s", r.RunID, id)
				}
				ms[i].RunID = r.RunID
			}
			if cells != nil {
				cells.Add(ms)
			}
			return put(reflect.ValueOf(ms))
		})
	})
	if err != nil {
		return it, err
	}
	if cells != nil {
		n := cells.Count()
		r.Cells = &n
	}
	w.have[r.RunID] = true
	it.Outcome = Added
	w.items = append(w.items, it)
	w.added = append(w.added, r.RunID)
	return it, w.files.write([]schema.Run{r}, nil, nil)
}

// flush writes the batch's rows to the transaction's files, in run_id
// order, so that the run_id statistics of each row group bound few runs
// and Load by id skips the others.
func (w *Writer) flush() error {
	if len(w.batch) == 0 {
		return nil
	}
	if err := w.ctx.Err(); err != nil {
		return err
	}
	// Note: the batch is sorted as indices, not as pendingRuns: moving
	// the runs (a schema.Run is ~700 bytes) through a stable sort was 1.4%
	// of the CPU time of ingesting 1,000 documents (BenchmarkIngest1000).
	order := make([]int, len(w.batch))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(x, y int) int { return cmp.Compare(w.batch[x].run.RunID, w.batch[y].run.RunID) })
	// The rows are written where they are, each run's as carrying its id
	// (writeRuns), not copied into one slice of the batch.
	runs := make([]schema.Run, 0, len(w.batch))
	var ms, samples []pqwrite.Run
	for _, i := range order {
		p := &w.batch[i]
		id := p.run.RunID
		runs = append(runs, p.run)
		w.added = append(w.added, id)
		if len(p.m.Measurements) > 0 {
			ms = append(ms, pqwrite.Run{Rows: reflect.ValueOf(p.m.Measurements), ID: id})
		}
		if len(p.m.Samples) > 0 {
			samples = append(samples, pqwrite.Run{Rows: reflect.ValueOf(p.m.Samples), ID: id})
		}
	}
	err := w.files.writeRuns(runs, ms, samples)
	if err == nil && w.Written != nil {
		for _, i := range order {
			w.Written(w.batch[i].m)
		}
	}
	w.batch, w.nrows = w.batch[:0], 0
	clear(w.batch[:cap(w.batch)])
	return err
}

// Close writes the last batch, commits the transaction (all runs added
// land, or none), publishes the snapshot and releases the lock.
func (w *Writer) Close() (Result, error) {
	if w.done {
		return Result{}, errors.New("archive: Close twice")
	}
	w.done = true
	defer w.unlock()
	res := Result{Items: w.items}
	if err := w.flush(); err != nil {
		w.files.abort()
		return Result{}, err
	}
	if len(w.added) == 0 {
		// Nothing new; still publish when a crash or a copy left the
		// snapshot behind the store.
		return res, w.a.publish(w.ctx, w.l)
	}
	if err := w.ctx.Err(); err != nil {
		w.files.abort()
		return Result{}, err
	}
	files, err := w.files.commit(w.a, w.l, nil, w.added)
	if err != nil {
		return Result{}, err
	}
	res.Files = files
	return res, w.a.republish(w.ctx)
}

// Abort drops what the writer wrote and releases the lock.
func (w *Writer) Abort() {
	if w.done {
		return
	}
	w.done = true
	w.files.abort()
	w.unlock()
}

// Append adds the matrices to the archive, skipping those whose run id it
// already holds. The new runs land in one file per table (runs,
// measurements, samples when there are any), so one call with 1,000
// documents writes at most 3 files. Either all new runs of a call land or
// none do.
func (a *Archive) Append(ctx context.Context, ms []*schema.Matrix) (Result, error) {
	now := time.Now().UTC().Truncate(time.Microsecond)
	for _, m := range ms {
		if _, err := prepare(m, now); err != nil {
			return Result{}, err
		}
	}
	w, err := a.NewWriter(ctx)
	if err != nil {
		return Result{}, err
	}
	for _, m := range ms {
		if _, err := w.Add(m); err != nil {
			w.Abort()
			return Result{}, err
		}
	}
	return w.Close()
}
