package archive

// Compaction: the files of many batches merged into one per table, and
// the one way a run leaves the archive (Drop), which is a compaction that
// leaves runs out.

import (
	"cmp"
	"context"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"time"

	"speedmatrix/schema"
)

// Compact merges the files of every committed Append into one file per
// table, dropping runs stored twice (see Runs). It writes the new files,
// commits them, then deletes the old ones, all under the exclusive lock;
// a crash at any point leaves either the old or the new files as the
// archive (the next writer finishes the job). Measurement and samples
// files without a runs file (leftovers, or a copy in progress) are left
// alone.
//
// A single stem is rewritten only when written by an older version (one
// row group, not sorted by run_id): Compact upgrades such an archive to
// the layout that Load by id prunes.
//
// Note: Compact rewrites the whole archive, so it costs time in the
// archive's size; run it after many small appends, not after each one.
// Its memory does not grow with the measurements and samples, which are
// merged a run at a time (mergeFiles); the runs rows (about 1 KB a run)
// are held. Files copied from other hosts afterwards simply join the
// compacted file.
func (a *Archive) Compact(ctx context.Context) error {
	_, err := a.compact(ctx, nil)
	return err
}

// compact is Compact, leaving out the runs in drop, which it returns
// (see Drop).
func (a *Archive) compact(ctx context.Context, drop []string) (dropped []*schema.Matrix, err error) {
	err = a.underWriteLock(ctx, func(l *layout) error {
		dropped, err = a.compactLocked(ctx, l, drop)
		return err
	})
	return dropped, err
}

// compactLocked is compact under the write lock, on store l: the runs
// of every committed stem (the copy Runs keeps of a run stored twice)
// are written in run_id order, the measurements and samples merged from
// the stems' files a run at a time (mergeFiles), the runs rows last.
func (a *Archive) compactLocked(ctx context.Context, l *layout, drop []string) (dropped []*schema.Matrix, err error) {
	stems := l.committed()
	if len(drop) == 0 && (len(stems) == 0 || len(stems) == 1 && grouped(l, stems[0])) {
		return nil, a.publish(ctx, l)
	}
	srs, err := a.readRuns(ctx, l, stems, nil)
	if err != nil {
		return nil, err
	}
	held := make(map[string]string, len(srs)) // run id → the stem kept
	for _, r := range srs {
		held[r.run.RunID] = r.stem
	}
	var missing []string
	for _, id := range drop {
		if _, ok := held[id]; !ok && !slices.Contains(missing, id) {
			missing = append(missing, id)
		}
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("drop: the archive holds no run %s; nothing dropped", strings.Join(missing, ", "))
	}
	// The dropped runs, as stored, in the order of Runs.
	gone := map[string]*schema.Matrix{}
	runs := make([]schema.Run, 0, len(srs))
	for _, r := range srs {
		if slices.Contains(drop, r.run.RunID) {
			m := &schema.Matrix{Run: r.run, Measurements: []schema.Measurement{}}
			dropped = append(dropped, m)
			gone[r.run.RunID] = m
		} else {
			runs = append(runs, r.run)
		}
	}
	srs = nil
	// In run_id order, as Append writes (see there).
	slices.SortFunc(runs, func(x, y schema.Run) int { return cmp.Compare(x.RunID, y.RunID) })
	uncounted := map[string]*schema.Run{} // written before the cells column existed
	for i := range runs {
		if runs[i].Cells == nil {
			n := countCells(nil)
			runs[i].Cells = &n
			uncounted[runs[i].RunID] = &runs[i]
		}
	}
	take := func(id, stem string) route {
		switch {
		case held[id] != stem:
			return skip
		case gone[id] != nil:
			return dropIt
		}
		return keep
	}
	tf := &tempFiles{dir: a.dir, stem: newStem(time.Now())}
	err = mergeFiles(ctx, l, tf, 0, stems, take,
		func(id string, rows []schema.Measurement) {
			gone[id].Measurements = append(gone[id].Measurements, rows...)
		},
		func(id string, rows []schema.Measurement) {
			if r := uncounted[id]; r != nil {
				n := countCells(rows)
				r.Cells = &n
			}
		})
	if err == nil {
		err = mergeFiles(ctx, l, tf, 1, stems, take,
			func(id string, rows []schema.Sample) { gone[id].Samples = append(gone[id].Samples, rows...) }, nil)
	}
	if err == nil && len(runs) > 0 {
		err = tf.writeTable(2, reflect.ValueOf(runs))
	}
	if err == nil {
		err = ctx.Err()
	}
	if err != nil {
		tf.abort()
		return nil, err
	}
	ids := make([]string, len(runs))
	for i, r := range runs {
		ids[i] = r.RunID
	}
	if _, err = tf.commit(a, l, stems, ids); err != nil {
		return nil, err
	}
	return dropped, a.republish(ctx)
}

// grouped reports whether the files of stem are cut into row groups by
// run_id as this version writes them (see table.write), so that
// compacting the stem alone would change nothing. Files of older versions
// (one row group, no pruning) are not: Compact rewrites them.
func grouped(l *layout, stem string) bool {
	for _, t := range Tables {
		p, ok := l.files[t][stem]
		if !ok {
			continue
		}
		ok, err := groupedFile(p)
		if err != nil || !ok {
			return false
		}
	}
	return true
}

// Drop removes the runs ids from the archive, with their measurements
// and samples: it compacts the archive (see Compact) without them, under
// the exclusive lock, so a reader sees every run before the commit or
// none of ids after it, and a crash leaves one or the other. An id the
// archive does not hold fails the call with the archive unchanged. It
// returns the runs it removed, as they were stored.
//
// Dropping is the one way a stored run leaves the archive: a source that
// an earlier speedmatrix read differently is added beside its old reading
// only when asked (ingest -reread), and the old one is then dropped here.
//
// Note: a dropped run comes back if a file holding it is copied in from
// another host afterwards (files merge by copying, see Compact); drop it
// there too, or again after the copy.
func (a *Archive) Drop(ctx context.Context, ids []string) ([]*schema.Matrix, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	return a.compact(ctx, ids)
}
