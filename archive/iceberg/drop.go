package iceberg

import (
	"context"
	"fmt"
	"maps"
	"slices"

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
// measurements or samples, unseen from runs; a later Drop of the same ids
// finds nothing (the runs table no longer names them): Maintain removes
// such rows once their files are older than its grace period.
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
	ids := slices.Sorted(maps.Keys(drop))
	plan := func(ctx context.Context, t *table.Table, sn *table.Snapshot) ([]fileGroup, error) {
		tasks, err := t.Scan(table.WithSnapshotID(sn.SnapshotID),
			table.WithRowFilter(ice.IsIn(ice.Reference("run_id"), ids...))).PlanFiles(ctx)
		if err != nil {
			return nil, err
		}
		fs, err := t.FS(ctx)
		if err != nil {
			return nil, err
		}
		// The bounds of a file of many runs hold nearly any id (run ids
		// are hashes): its run_id column, pruned by row group, says
		// whether it holds one, before a whole read.
		var out []fileGroup
		for _, task := range tasks {
			p := task.File.FilePath()
			bf, c, err := openBlockFile(fs, p, task.File.FileSizeBytes())
			if err != nil {
				return nil, err
			}
			held, err := archive.ReadRunsFrom[T](bf, Redact(p), ids, []string{"run_id"})
			c.Close()
			if err != nil {
				return nil, fmt.Errorf("read %s: %w", Redact(p), err)
			}
			if len(held) > 0 {
				out = append(out, fileGroup{paths: []string{p}})
			}
		}
		return out, nil
	}
	_, err := rewriteGroups(ctx, a, tbl, "drop", plan, func(r T, _ bool) bool { return !drop[rowRunID(r)] })
	return err
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
