package iceberg

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/apache/iceberg-go/table"

	"speedmatrix/archive"
)

// Maintenance of a long-lived shared table: every commit leaves a
// snapshot (a manifest list, a manifest and a metadata.json, ≈ 31 KB per
// three-table append, docs/iceberg-decision.md), and a writer killed
// after writing its data file but before its commit leaves that file in
// the warehouse, referenced by nothing (an orphan). Maintain expires the
// snapshots older than a grace period (keeping each table's current one)
// and removes the files no snapshot references that are older than the
// same grace period: a reader pinned to a snapshot younger than the
// grace, or a writer that has written its file and not yet committed,
// loses nothing.

// DefaultGrace is Maintain's grace period when none is given: longer
// than any command reads or writes.
const DefaultGrace = 24 * time.Hour

// TableMaintenance is what Maintain did to one table.
type TableMaintenance struct {
	Table string
	// SnapshotsBefore and SnapshotsAfter count the table's snapshots.
	SnapshotsBefore, SnapshotsAfter int
	// Orphans are the files removed (or, with dryRun, to remove).
	Orphans []string
	// OrphanBytes is their total size.
	OrphanBytes int64
	// Compacted counts the data files rewritten (small files merged,
	// files holding unseen rows), Written the files that replaced them.
	Compacted, Written int
	// UnseenRows counts the rows removed whose run the runs table lacks.
	UnseenRows int64
	// ManifestsBefore and ManifestsAfter count the current snapshot's
	// manifests around their rewrite.
	ManifestsBefore, ManifestsAfter int
}

// Maintain compacts each table's small data files, removes the unseen
// rows of files older than grace (compact.go), rewrites its manifests
// into few, expires its snapshots older than grace (the current one
// always stays) and removes the files under its location that no
// remaining snapshot references and that are older than grace. With
// dryRun it lists the orphans and changes nothing.
func (a *Archive) Maintain(ctx context.Context, grace time.Duration, dryRun bool) ([]TableMaintenance, error) {
	var out []TableMaintenance
	var seen map[string]bool
	for _, tbl := range archive.Tables {
		if tbl != archive.TableRuns && seen == nil && !dryRun {
			var err error
			if seen, err = a.seenRunIDs(ctx); err != nil {
				return out, a.wrap("maintain", fmt.Errorf("%s: %w", archive.TableRuns, err))
			}
		}
		m, err := a.maintain(ctx, tbl, seen, grace, dryRun)
		if err != nil {
			return out, a.wrap("maintain", fmt.Errorf("%s: %w", tbl, err))
		}
		out = append(out, m)
	}
	return out, nil
}

func (a *Archive) maintain(ctx context.Context, tbl string, seen map[string]bool, grace time.Duration, dryRun bool) (TableMaintenance, error) {
	m := TableMaintenance{Table: tbl}
	if !dryRun {
		r, err := compact(ctx, a, tbl, seen, grace)
		if err != nil {
			return m, fmt.Errorf("compact: %w", err)
		}
		m.Compacted, m.Written, m.UnseenRows = r.Replaced, r.Written, r.Removed
		if m.ManifestsBefore, m.ManifestsAfter, err = a.mergeManifests(ctx, tbl); err != nil {
			return m, err
		}
	}
	t, err := a.load(ctx, tbl)
	if err != nil {
		return m, err
	}
	m.SnapshotsBefore = len(t.Metadata().Snapshots())
	m.SnapshotsAfter = m.SnapshotsBefore
	if !dryRun && m.SnapshotsBefore > 1 {
		for attempt := 0; ; attempt++ {
			err = a.bounded(ctx, func(ctx context.Context) error {
				tx := t.NewTransaction()
				// Note: the files of expired snapshots are left to the
				// orphan pass below, which honours the grace period
				// (WithPostCommit(true) would delete them at once).
				if err := tx.ExpireSnapshots(table.WithOlderThan(grace), table.WithRetainLast(1), table.WithPostCommit(false)); err != nil {
					return err
				}
				nt, err := tx.Commit(ctx)
				if err == nil {
					t = nt
				}
				return err
			})
			if err == nil {
				break
			}
			// Another writer committed meanwhile: read again and retry.
			if attempt >= a.opt.Retries {
				return m, fmt.Errorf("expire snapshots: %w", err)
			}
			if t, err = a.load(ctx, tbl); err != nil {
				return m, err
			}
		}
		m.SnapshotsAfter = len(t.Metadata().Snapshots())
	}
	err = a.bounded(ctx, func(ctx context.Context) error {
		plan, err := t.PlanOrphanFiles(ctx, table.WithFilesOlderThan(grace))
		if err != nil {
			return err
		}
		if err := foreignTable(ctx, t, plan.Files()); err != nil {
			return err
		}
		m.Orphans, m.OrphanBytes = plan.Files(), plan.TotalSizeBytes()
		if dryRun || len(m.Orphans) == 0 {
			return nil
		}
		_, err = t.ExecuteOrphanCleanup(ctx, plan)
		return err
	})
	if err != nil {
		return m, fmt.Errorf("remove orphan files: %w", err)
	}
	return m, nil
}

// foreignTable refuses an orphan cleanup whose candidates hold the
// metadata of another table: two catalogs (or two namespaces' tables
// created with the same location) keep files under one location, and
// each would take the other's files for orphans.
//
// Note: this is what an early -maintain did to two SQLite catalogs in
// one directory, which share the default warehouse beside them: it
// removed the other catalog's live data and metadata files.
func foreignTable(ctx context.Context, t *table.Table, candidates []string) error {
	own := t.Metadata().TableUUID()
	fs, err := t.FS(ctx)
	if err != nil {
		return err
	}
	for _, p := range candidates {
		if !strings.HasSuffix(p, ".metadata.json") {
			continue
		}
		f, err := fs.Open(p)
		if err != nil {
			return err
		}
		b, err := io.ReadAll(f)
		f.Close()
		if err != nil {
			return err
		}
		md, err := table.ParseMetadataBytes(b)
		if err != nil {
			continue // not a table's metadata: a damaged write, an orphan like the others
		}
		if md.TableUUID() != own {
			return fmt.Errorf("another table (uuid %s, %s) keeps its files under %s, this table's location: "+
				"two catalogs share one warehouse; nothing removed (give each catalog its own warehouse=)",
				md.TableUUID(), p, t.Location())
		}
	}
	return nil
}
