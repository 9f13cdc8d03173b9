package iceberg

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/apache/iceberg-go/table"

	"speedmatrix/archive"
	"speedmatrix/schema"
)

// Compaction of a shared table, part of Maintain: every append commits
// one small data file per table, so a table of many appends is many small
// files, each one more object to open for a scan. Maintain rewrites them
// in groups: the small files (fewer rows than half a group's limit) are
// bin-packed in manifest order into groups of at most compactRows rows,
// each group read a file at a time and written as one file; a group is
// what memory holds, so peak memory does not grow with the table.
//
// The same pass removes unseen rows: measurements and samples of run ids
// the runs table lacks, left by a Drop killed between tables or by an
// append killed before its runs commit. Only rows in files older than
// the grace period go: an append in flight commits its measurements and
// samples seconds before its runs, and those rows must stay.
//
// Note: finding unseen rows reads every data file older than the grace
// (and the run ids of the whole runs table, ~20 bytes a run), each time
// Maintain runs; files are read one at a time.

// compactRows bounds the rows of one compaction group, by table: about
// 100–200 MB of decoded rows at most (docs/iceberg.md, Scale).
var compactRows = map[string]int64{
	archive.TableRuns:         20_000,
	archive.TableMeasurements: 200_000,
	archive.TableSamples:      400_000,
}

// compactPlan returns the plan of Maintain's rewrite of tbl: groups of
// small files, and (when seen is not nil) every file older than cutoff on
// its own, to look for unseen rows.
func compactPlan(tbl string, seen map[string]bool, cutoff time.Time) groupPlan {
	limit := compactRows[tbl]
	return func(ctx context.Context, t *table.Table, sn *table.Snapshot) ([]fileGroup, error) {
		files, err := liveFiles(ctx, t, sn)
		if err != nil {
			return nil, err
		}
		var out []fileGroup
		var cur fileGroup
		var curRows int64
		flush := func() {
			if len(cur.paths) > 1 || (len(cur.paths) == 1 && seen != nil && cur.old[0]) {
				out = append(out, cur)
			}
			cur, curRows = fileGroup{}, 0
		}
		for _, f := range files {
			old := f.added.Before(cutoff)
			if f.rows >= limit/2 {
				if seen != nil && old {
					out = append(out, fileGroup{paths: []string{f.path}, old: []bool{true}})
				}
				continue
			}
			if curRows+f.rows > limit {
				flush()
			}
			cur.paths = append(cur.paths, f.path)
			cur.old = append(cur.old, old)
			curRows += f.rows
		}
		flush()
		return out, nil
	}
}

// compact rewrites tbl's small files and, for measurements and samples,
// removes unseen rows of files older than grace (seen holds the runs
// table's ids; nil for the runs table).
func compact(ctx context.Context, a *Archive, tbl string, seen map[string]bool, grace time.Duration) (rewriteResult, error) {
	plan := compactPlan(tbl, seen, time.Now().Add(-grace))
	switch tbl {
	case archive.TableRuns:
		return rewriteGroups(ctx, a, tbl, "compact", plan, func(schema.Run, bool) bool { return true })
	case archive.TableMeasurements:
		return rewriteGroups(ctx, a, tbl, "compact", plan, func(r schema.Measurement, old bool) bool { return !old || seen[r.RunID] })
	case archive.TableSamples:
		return rewriteGroups(ctx, a, tbl, "compact", plan, func(r schema.Sample, old bool) bool { return !old || seen[r.RunID] })
	}
	return rewriteResult{}, fmt.Errorf("no table %q", tbl)
}

// seenRunIDs returns the run ids of the runs table's current snapshot.
func (a *Archive) seenRunIDs(ctx context.Context) (map[string]bool, error) {
	t, err := a.load(ctx, archive.TableRuns)
	if err != nil {
		return nil, err
	}
	if t.CurrentSnapshot() == nil {
		return map[string]bool{}, nil
	}
	// Each file is read within its own time bound.
	return a.heldIDs(ctx, t, t.CurrentSnapshot().SnapshotID, nil)
}

// mergeManifests rewrites tbl's manifests into few, target-sized ones
// and turns on manifest merging for later appends
// (commit.manifest-merge.enabled, which tables made before it lack).
func (a *Archive) mergeManifests(ctx context.Context, tbl string) (before, after int, err error) {
	for attempt := 0; ; attempt++ {
		t, err := a.load(ctx, tbl)
		if err != nil {
			return 0, 0, err
		}
		sn := t.CurrentSnapshot()
		if sn == nil {
			return 0, 0, nil
		}
		err = a.bounded(ctx, func(ctx context.Context) error {
			fs, err := t.FS(ctx)
			if err != nil {
				return err
			}
			mfs, err := sn.Manifests(fs)
			if err != nil {
				return err
			}
			before, after = len(mfs), len(mfs)
			tx := t.NewTransaction()
			if !t.Properties().GetBool(table.ManifestMergeEnabledKey, false) {
				if err := tx.SetProperties(mergeProps()); err != nil {
					return err
				}
			}
			res, err := tx.RewriteManifests(ctx)
			if err != nil {
				return err
			}
			if !res.IsNoOp() {
				after = before - len(res.RewrittenManifests) + len(res.AddedManifests)
			} else if t.Properties().GetBool(table.ManifestMergeEnabledKey, false) {
				return nil
			}
			_, err = tx.Commit(ctx)
			return err
		})
		if err == nil {
			return before, after, nil
		}
		if errors.Is(err, context.Canceled) || attempt >= a.opt.Retries {
			return before, before, fmt.Errorf("rewrite manifests: %w", err)
		}
	}
}
