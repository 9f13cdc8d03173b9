package archive

// Compaction: the files of many batches merged into one per table, and
// the one way a run leaves the archive (Drop), which is a compaction that
// leaves runs out.

import (
	"cmp"
	"context"
	"fmt"
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
// Note: Compact reads the whole archive into memory and rewrites it, so
// it costs time and memory in the archive's size; run it after many small
// appends, not after each one. Files copied from other hosts afterwards
// simply join the compacted file.
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

// compactLocked is compact under the write lock, on store l.
func (a *Archive) compactLocked(ctx context.Context, l *layout, drop []string) (dropped []*schema.Matrix, err error) {
	stems := l.committed()
	if len(drop) == 0 && (len(stems) == 0 || len(stems) == 1 && grouped(l, stems[0])) {
		return nil, a.publish(ctx, l)
	}
	srs, err := a.readRuns(ctx, l, stems, nil)
	if err != nil {
		return nil, err
	}
	ms, err := a.load(ctx, l, srs, nil, nil)
	if err != nil {
		return nil, err
	}
	if ms, dropped, err = without(ms, drop); err != nil {
		return nil, err
	}
	// In run_id order, as Append writes (see there).
	slices.SortFunc(ms, func(x, y *schema.Matrix) int { return cmp.Compare(x.Run.RunID, y.Run.RunID) })
	runs := make([]schema.Run, len(ms))
	nrows, nsamples := 0, 0
	for _, m := range ms {
		nrows += len(m.Measurements)
		nsamples += len(m.Samples)
	}
	rows := make([]schema.Measurement, 0, nrows)
	samples := make([]schema.Sample, 0, nsamples)
	for i, m := range ms {
		runs[i] = m.Run
		if runs[i].Cells == nil { // written before the column existed
			n := countCells(m.Measurements)
			runs[i].Cells = &n
		}
		rows = append(rows, m.Measurements...)
		samples = append(samples, m.Samples...)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if _, err = a.commit(l, newStem(time.Now()), runs, rows, samples, stems); err != nil {
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

// without splits ms into the runs drop does not name and those it does,
// or returns an error naming the ids of drop that ms does not hold.
func without(ms []*schema.Matrix, drop []string) (kept, dropped []*schema.Matrix, err error) {
	if len(drop) == 0 {
		return ms, nil, nil
	}
	held := map[string]bool{}
	for _, m := range ms {
		held[m.Run.RunID] = true
	}
	var missing []string
	for _, id := range drop {
		if !held[id] && !slices.Contains(missing, id) {
			missing = append(missing, id)
		}
	}
	if len(missing) > 0 {
		return nil, nil, fmt.Errorf("drop: the archive holds no run %s; nothing dropped", strings.Join(missing, ", "))
	}
	for _, m := range ms {
		if slices.Contains(drop, m.Run.RunID) {
			dropped = append(dropped, m)
		} else {
			kept = append(kept, m)
		}
	}
	return kept, dropped, nil
}
