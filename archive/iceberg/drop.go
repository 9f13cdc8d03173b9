package iceberg

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"time"

	ice "github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"

	"speedmatrix/archive"
	"speedmatrix/schema"
)

// Drop removes the runs with the given ids, with their measurements and
// samples, and returns them as they were. The runs table goes first, so
// a reader that starts from runs stops seeing a run at once and never
// sees it without its rows; then measurements and samples. In each
// table only the data files that hold a dropped run are rewritten, one
// file at a time (read, filtered, written), and replaced in one commit
// (an overwrite snapshot), retried after conflicts: memory holds one
// file's rows, not the table's. An id the runs table lacks is an error
// wrapping archive.ErrNotFound, and nothing is dropped.
//
// Note: a Drop killed between tables leaves rows of dropped runs in
// measurements or samples, unseen from runs; they are not removed by a
// later Drop of the same ids (the runs table no longer names them).
func (a *Archive) Drop(ctx context.Context, ids []string) ([]*schema.Matrix, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	s, err := a.Snapshot(ctx)
	if err != nil {
		return nil, err
	}
	ms, err := s.Load(ctx, ids...)
	if err != nil {
		return nil, err
	}
	drop := map[string]bool{}
	for _, id := range ids {
		drop[id] = true
	}
	if err := dropFrom[schema.Run](ctx, a, archive.TableRuns, drop); err != nil {
		return nil, a.wrap("drop from", err)
	}
	if err := dropFrom[schema.Measurement](ctx, a, archive.TableMeasurements, drop); err != nil {
		return nil, a.wrap("drop from", err)
	}
	if err := dropFrom[schema.Sample](ctx, a, archive.TableSamples, drop); err != nil {
		return nil, a.wrap("drop from", err)
	}
	return ms, nil
}

// dropFrom rewrites the data files of tbl that hold rows of the runs in
// drop without those rows, and commits the replacement.
func dropFrom[T archive.Row](ctx context.Context, a *Archive, tbl string, drop map[string]bool) error {
	ids := slices.Sorted(func(yield func(string) bool) {
		for id := range drop {
			if !yield(id) {
				return
			}
		}
	})
	stem := newStem(time.Now().UTC())
	for attempt := 0; ; attempt++ {
		t, err := a.load(ctx, tbl)
		if err != nil {
			return err
		}
		sn := t.CurrentSnapshot()
		if sn == nil {
			return nil
		}
		var olds, news []string
		err = a.bounded(ctx, func(ctx context.Context) error {
			tasks, err := t.Scan(table.WithSnapshotID(sn.SnapshotID),
				table.WithRowFilter(ice.IsIn(ice.Reference("run_id"), ids...))).PlanFiles(ctx)
			if err != nil {
				return err
			}
			fs, err := t.FS(ctx)
			if err != nil {
				return err
			}
			for _, task := range tasks {
				p := task.File.FilePath()
				if slices.Contains(olds, p) {
					continue
				}
				f, err := fs.Open(p)
				if err != nil {
					return err
				}
				rows, err := archive.ReadFrom[T](f, Redact(p))
				f.Close()
				if err != nil {
					return err
				}
				keep := slices.DeleteFunc(slices.Clone(rows), func(r T) bool { return drop[rowRunID(r)] })
				if len(keep) == len(rows) {
					continue // the bounds could hold a dropped run; the file does not
				}
				olds = append(olds, p)
				if len(keep) > 0 {
					name := stem + "-" + strconv.Itoa(attempt) + "-" + strconv.Itoa(len(news))
					loc, err := a.writeFile(ctx, t, name, keep)
					if err != nil {
						return err
					}
					news = append(news, loc)
				}
			}
			return nil
		})
		if err != nil {
			return fmt.Errorf("%s: %w", tbl, err)
		}
		if len(olds) == 0 {
			return nil
		}
		token := "speedmatrix drop " + stem + " " + strconv.Itoa(attempt)
		base := t.CurrentSnapshot()
		err = a.bounded(ctx, func(ctx context.Context) error {
			tx := t.NewTransaction()
			if err := tx.AssertRefSnapshotID(table.MainBranch); err != nil {
				return err
			}
			if err := tx.ReplaceDataFiles(ctx, olds, news, ice.Properties{snapshotKey: token}); err != nil {
				return err
			}
			_, err := tx.Commit(ctx)
			return err
		})
		if err == nil {
			return nil
		}
		conflict, ours := a.conflicted(ctx, tbl, base, token)
		if ours {
			return nil
		}
		if !conflict {
			// Note: the commit state is unknown; the new files stay (an
			// orphan is harmless, -maintain removes it).
			return fmt.Errorf("commit %s: %w", tbl, err)
		}
		for _, n := range news {
			a.removeFile(ctx, t, n)
		}
		if attempt >= a.opt.Retries {
			return fmt.Errorf("commit %s: other writers committed first %d times in a row; run again: %w", tbl, attempt+1, err)
		}
		a.conflicts.Add(1)
		select {
		case <-ctx.Done():
			return context.Cause(ctx)
		case <-time.After(time.Duration(25<<min(attempt, 6))*time.Millisecond + randDuration(50*time.Millisecond)):
		}
	}
}

// rowRunID returns the run id of a row of any table.
func rowRunID(r any) string {
	switch x := r.(type) {
	case schema.Run:
		return x.RunID
	case schema.Measurement:
		return x.RunID
	case schema.Sample:
		return x.RunID
	}
	return ""
}
