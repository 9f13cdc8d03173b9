package iceberg

import (
	"cmp"
	"context"
	"fmt"
	"slices"

	ice "github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"

	"speedmatrix/archive"
	"speedmatrix/schema"
)

// Snapshot is the archive at one moment: the three tables pinned at the
// snapshots current when it was taken, the runs table first. Since
// writers commit measurements and samples before runs, every run of the
// pinned runs snapshot has its rows in the later measurements and
// samples snapshots; rows of runs the runs snapshot lacks (a writer in
// flight, or killed between tables) are left out.
type Snapshot struct {
	a                 *Archive
	runs, meas, samps *table.Table
}

// Snapshot pins the current state of the archive for reads.
func (a *Archive) Snapshot(ctx context.Context) (*Snapshot, error) {
	s := &Snapshot{a: a}
	var err error
	// The order is the protocol: runs (the commit marker) first.
	for _, x := range []struct {
		tbl string
		dst **table.Table
	}{{archive.TableRuns, &s.runs}, {archive.TableMeasurements, &s.meas}, {archive.TableSamples, &s.samps}} {
		if *x.dst, err = a.load(ctx, x.tbl); err != nil {
			return nil, a.wrap("read", err)
		}
	}
	return s, nil
}

// SnapshotIDs returns the pinned snapshot id of each table (0 for a table
// without a snapshot), by table name.
func (s *Snapshot) SnapshotIDs() map[string]int64 {
	out := map[string]int64{}
	for tbl, t := range map[string]*table.Table{archive.TableRuns: s.runs, archive.TableMeasurements: s.meas, archive.TableSamples: s.samps} {
		if sn := t.CurrentSnapshot(); sn != nil {
			out[tbl] = sn.SnapshotID
		}
	}
	return out
}

// Runs returns every run, sorted by ingested_at, then run_id (as
// archive.Archive.Runs).
func (s *Snapshot) Runs(ctx context.Context) ([]schema.Run, error) {
	runs, err := scanPinned[schema.Run](ctx, s.a, s.runs, nil, nil)
	if err != nil {
		return nil, s.a.wrap("read runs of", err)
	}
	sortRuns(runs)
	return runs, nil
}

// List returns every run as a Listing (the columns compare -list prints),
// reading only those columns, sorted as Runs.
func (s *Snapshot) List(ctx context.Context) ([]archive.Listing, error) {
	var cols []string
	for _, c := range listingColumns {
		cols = append(cols, c)
	}
	runs, err := scanPinned[schema.Run](ctx, s.a, s.runs, nil, cols)
	if err != nil {
		return nil, s.a.wrap("list runs of", err)
	}
	sortRuns(runs)
	out := make([]archive.Listing, len(runs))
	for i, r := range runs {
		out[i] = archive.Listing{RunID: r.RunID, IngestedAt: r.IngestedAt, StartedAt: r.StartedAt, Cells: r.Cells,
			Model: r.Model, GPU: r.GPU, Engine: r.Engine, EngineVersion: r.EngineVersion,
			Quantization: r.Quantization, SourceSHA256: r.SourceSHA256, Title: r.Title, BenchTool: r.BenchTool,
			GPUCount: r.GPUCount, BenchVersion: r.BenchVersion, Subtitle: r.Subtitle}
	}
	return out, nil
}

// ListMetadata returns the metadata of the runs with the given ids (ids
// not held are absent), as archive.ListMetadata does: the run's fields
// as stored, keyed by run id.
func (s *Snapshot) ListMetadata(ctx context.Context, ids ...string) (map[string][]schema.Field, error) {
	out := make(map[string][]schema.Field, len(ids))
	if len(ids) == 0 {
		return out, nil
	}
	runs, err := scanPinned[schema.Run](ctx, s.a, s.runs, nil, []string{"run_id", "ingested_at", "metadata"})
	if err != nil {
		return nil, s.a.wrap("read metadata of", err)
	}
	want := make(map[string]bool, len(ids))
	for _, id := range ids {
		want[id] = true
	}
	sortRuns(runs) // the earliest ingest of a run id wins, as in the directory archive
	for _, r := range runs {
		if _, seen := out[r.RunID]; want[r.RunID] && !seen {
			out[r.RunID] = r.Metadata
		}
	}
	return out, nil
}

// listingColumns are the runs columns of archive.Listing.
var listingColumns = []string{"run_id", "ingested_at", "started_at", "cells", "model", "gpu",
	"engine", "engine_version", "quantization", "source_sha256", "title", "bench_tool", "gpu_count", "bench_version", "subtitle"}

func sortRuns(runs []schema.Run) {
	slices.SortFunc(runs, func(x, y schema.Run) int {
		if c := x.IngestedAt.Compare(y.IngestedAt); c != 0 {
			return c
		}
		return cmp.Compare(x.RunID, y.RunID)
	})
}

// Load returns the runs with the given ids with their measurements and
// samples, in the order asked; an id the pinned runs snapshot lacks is an
// error wrapping archive.ErrNotFound. Only data files whose run_id bounds
// can hold an id are read.
func (s *Snapshot) Load(ctx context.Context, ids ...string) ([]*schema.Matrix, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	runs, err := scanPinned[schema.Run](ctx, s.a, s.runs, ids, nil)
	if err != nil {
		return nil, s.a.wrap("load runs of", err)
	}
	byID := map[string]*schema.Matrix{}
	for _, r := range runs {
		if byID[r.RunID] == nil {
			byID[r.RunID] = &schema.Matrix{Run: r}
		}
	}
	out := make([]*schema.Matrix, 0, len(ids))
	for _, id := range ids {
		m := byID[id]
		if m == nil {
			return nil, s.a.wrap("load", fmt.Errorf("run %s: %w", id, archive.ErrNotFound))
		}
		out = append(out, m)
	}
	meas, err := scanPinned[schema.Measurement](ctx, s.a, s.meas, ids, nil)
	if err != nil {
		return nil, s.a.wrap("load measurements of", err)
	}
	for _, x := range meas {
		if m := byID[x.RunID]; m != nil {
			m.Measurements = append(m.Measurements, x)
		}
	}
	samps, err := scanPinned[schema.Sample](ctx, s.a, s.samps, ids, nil)
	if err != nil {
		return nil, s.a.wrap("load samples of", err)
	}
	for _, x := range samps {
		if m := byID[x.RunID]; m != nil {
			m.Samples = append(m.Samples, x)
		}
	}
	return out, nil
}

// DataFiles returns the locations of the data files of tbl (one of
// archive.Tables) at the pinned snapshot, as its manifests list them:
// what an engine without Iceberg support reads as the table.
func (s *Snapshot) DataFiles(ctx context.Context, tbl string) ([]string, error) {
	t := map[string]*table.Table{archive.TableRuns: s.runs, archive.TableMeasurements: s.meas, archive.TableSamples: s.samps}[tbl]
	if t == nil {
		return nil, fmt.Errorf("iceberg: no table %q", tbl)
	}
	sn := t.CurrentSnapshot()
	if sn == nil {
		return nil, nil
	}
	var out []string
	err := s.a.bounded(ctx, func(ctx context.Context) error {
		tasks, err := t.Scan(table.WithSnapshotID(sn.SnapshotID)).PlanFiles(ctx)
		if err != nil {
			return err
		}
		for _, task := range tasks {
			out = append(out, task.File.FilePath())
		}
		return nil
	})
	if err != nil {
		return nil, s.a.wrap("list files of", err)
	}
	slices.Sort(out)
	return slices.Compact(out), nil
}

// scanPinned reads the rows of t at its pinned snapshot.
func scanPinned[T archive.Row](ctx context.Context, a *Archive, t *table.Table, ids, cols []string) ([]T, error) {
	sn := t.CurrentSnapshot()
	if sn == nil {
		return nil, nil
	}
	return readRows[T](ctx, a, t, sn.SnapshotID, ids, cols)
}

// heldIDs returns which of ids (all when nil) snapshot snap of t holds
// rows of, reading its run_id column only.
func (a *Archive) heldIDs(ctx context.Context, t *table.Table, snap int64, ids []string) (map[string]bool, error) {
	out := map[string]bool{}
	cols := []string{"run_id"}
	var err error
	switch name := t.Identifier()[len(t.Identifier())-1]; name {
	case archive.TableRuns:
		err = collectIDs[schema.Run](ctx, a, t, snap, ids, cols, out)
	case archive.TableMeasurements:
		err = collectIDs[schema.Measurement](ctx, a, t, snap, ids, cols, out)
	case archive.TableSamples:
		err = collectIDs[schema.Sample](ctx, a, t, snap, ids, cols, out)
	default:
		err = fmt.Errorf("no table %q", name)
	}
	return out, err
}

func collectIDs[T archive.Row](ctx context.Context, a *Archive, t *table.Table, snap int64, ids, cols []string, out map[string]bool) error {
	rows, err := readRows[T](ctx, a, t, snap, ids, cols)
	for _, r := range rows {
		out[rowRunID(r)] = true
	}
	return err
}

// readRows reads the rows of snapshot snap of t whose run_id is one of
// ids (all when ids is nil), in the columns cols (all when nil): the
// manifests' run_id bounds pick the data files, and each file is read
// with the archive's own reader through a blockFile, which skips the row
// groups whose run_id statistics rule out every id. A table whose files
// carry delete files (written by another engine) is read with iceberg-go's
// scan, which applies them.
//
// Note: iceberg-go's scan reads every column chunk with its own GET; at
// 10,000 runs a two-run compare made 4,523 S3 requests through it
// (docs/iceberg.md, Scale). Tests keep its scan as the independent reader.
func readRows[T archive.Row](ctx context.Context, a *Archive, t *table.Table, snap int64, ids, cols []string) ([]T, error) {
	var tasks []table.FileScanTask
	err := a.bounded(ctx, func(ctx context.Context) (err error) {
		opts := []table.ScanOption{table.WithSnapshotID(snap)}
		if ids != nil {
			opts = append(opts, table.WithRowFilter(ice.IsIn(ice.Reference("run_id"), ids...)))
		}
		tasks, err = t.Scan(opts...).PlanFiles(ctx)
		return err
	})
	if err != nil {
		return nil, err
	}
	for _, task := range tasks {
		if len(task.DeleteFiles) > 0 || len(task.EqualityDeleteFiles) > 0 || len(task.DeletionVectorFiles) > 0 {
			var out []T
			err := a.bounded(ctx, func(ctx context.Context) (err error) {
				out, err = scanRows[T](ctx, t, snap, ids, cols)
				return err
			})
			return out, err
		}
	}
	var out []T
	seen := map[string]bool{}
	for _, task := range tasks {
		p := task.File.FilePath()
		if seen[p] {
			continue
		}
		seen[p] = true
		err := a.bounded(ctx, func(ctx context.Context) error {
			fs, err := t.FS(ctx)
			if err != nil {
				return err
			}
			bf, c, err := openBlockFile(fs, p, task.File.FileSizeBytes())
			if err != nil {
				return err
			}
			defer c.Close()
			rows, err := archive.ReadRunsFrom[T](bf, Redact(p), ids, cols)
			out = append(out, rows...)
			return err
		})
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", Redact(p), err)
		}
	}
	return out, nil
}

// scanRows reads the rows of snapshot snap of t whose run_id is one of
// ids (all when ids is nil), in the columns cols (all when nil).
func scanRows[T archive.Row](ctx context.Context, t *table.Table, snap int64, ids, cols []string) ([]T, error) {
	opts := []table.ScanOption{table.WithSnapshotID(snap)}
	if ids != nil {
		opts = append(opts, table.WithRowFilter(ice.IsIn(ice.Reference("run_id"), ids...)))
	}
	if cols != nil {
		opts = append(opts, table.WithSelectedFields(cols...))
	}
	_, recs, err := t.Scan(opts...).ToArrowRecords(ctx)
	if err != nil {
		return nil, err
	}
	var out []T
	for rec, err := range recs {
		if err != nil {
			return nil, err
		}
		rows, err := archive.RecordRows[T](rec)
		rec.Release()
		if err != nil {
			return nil, err
		}
		out = append(out, rows...)
	}
	return out, nil
}
