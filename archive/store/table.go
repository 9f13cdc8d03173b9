package store

import (
	"context"
	"sync"

	"speedmatrix/archive"
	"speedmatrix/archive/iceberg"
	"speedmatrix/schema"
)

// tableStore is a namespace of Iceberg tables as a Store. Its reads go
// through one Snapshot, pinned by the first read, so a command sees one
// state of the tables; its own Append and Drop unpin it, Refresh re-pins
// it. It is safe for concurrent use (serve reads it from every request).
type tableStore struct {
	a    *iceberg.Archive
	mu   sync.Mutex // guards snap
	snap *iceberg.Snapshot
}

func (t *tableStore) String() string { return t.a.Ref().String() }
func (t *tableStore) Close() error   { return t.a.Close() }

// pinned returns the command's snapshot, pinning it on the first read.
func (t *tableStore) pinned(ctx context.Context) (*iceberg.Snapshot, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.snap == nil {
		s, err := t.a.Snapshot(ctx)
		if err != nil {
			return nil, err
		}
		t.snap = s
	}
	return t.snap, nil
}

// unpin makes the next read pin the tables' current snapshots.
func (t *tableStore) unpin() {
	t.mu.Lock()
	t.snap = nil
	t.mu.Unlock()
}

func (t *tableStore) Append(ctx context.Context, ms []*schema.Matrix) (archive.Result, error) {
	t.unpin()
	return t.a.Append(ctx, ms)
}

func (t *tableStore) Runs(ctx context.Context) ([]schema.Run, error) {
	s, err := t.pinned(ctx)
	if err != nil {
		return nil, err
	}
	return s.Runs(ctx)
}

func (t *tableStore) ListRuns(ctx context.Context) ([]archive.Listing, error) {
	s, err := t.pinned(ctx)
	if err != nil {
		return nil, err
	}
	return s.List(ctx)
}

func (t *tableStore) ListMetadata(ctx context.Context, ids ...string) (map[string][]schema.Field, error) {
	s, err := t.pinned(ctx)
	if err != nil {
		return nil, err
	}
	return s.ListMetadata(ctx, ids...)
}

func (t *tableStore) Load(ctx context.Context, ids ...string) ([]*schema.Matrix, error) {
	s, err := t.pinned(ctx)
	if err != nil {
		return nil, err
	}
	if len(ids) == 0 {
		// As archive.Load: no ids is every run, in the order of Runs.
		runs, err := s.Runs(ctx)
		if err != nil {
			return nil, err
		}
		for _, r := range runs {
			ids = append(ids, r.RunID)
		}
		if len(ids) == 0 {
			return nil, nil
		}
	}
	return s.Load(ctx, ids...)
}

// LoadColumns reads whole rows.
//
// Note: the table's scan reads every column of the files it opens; the
// extra columns cost time, not correctness (callers read the ones they
// named).
func (t *tableStore) LoadColumns(ctx context.Context, _ []string, ids ...string) ([]*schema.Matrix, error) {
	return t.Load(ctx, ids...)
}

func (t *tableStore) Drop(ctx context.Context, ids []string) ([]*schema.Matrix, error) {
	t.unpin()
	return t.a.Drop(ctx, ids)
}
