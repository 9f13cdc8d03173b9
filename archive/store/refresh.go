package store

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"speedmatrix/archive"
)

// Refresh names a directory archive's state: its published snapshot and
// the runs directory's modification time (archives written without
// snapshots, or runs copied in by hand, change only the latter). Its
// reads always see the current state, so there is nothing to move.
//
// Note: a readlink and a stat, a few microseconds: cheap enough for
// every request of serve.
func (d dirStore) Refresh(context.Context) (string, error) {
	name, _, err := d.Snapshot()
	if err != nil {
		// An archive without a published snapshot yet reads as its
		// directories do: the error text keeps the name distinct.
		name = "error:" + err.Error()
	}
	var mod string
	if st, err := os.Stat(filepath.Join(d.Dir(), archive.TableRuns)); err == nil {
		mod = st.ModTime().UTC().Format(time.RFC3339Nano)
	}
	return "dir:" + name + "|" + mod, nil
}

// Refresh pins the tables' current snapshots for the reads that follow
// and names them by their snapshot ids (runs, measurements, samples):
// every commit, whoever makes it, gives a table a new snapshot id.
//
// Note: pinning loads the three tables from the catalog (a catalog call
// and a metadata file read each); serve calls it at most once per
// dashboard.Options.Recheck, not per request.
func (t *tableStore) Refresh(ctx context.Context) (string, error) {
	s, err := t.a.Snapshot(ctx)
	if err != nil {
		return "", err
	}
	t.mu.Lock()
	t.snap = s
	t.mu.Unlock()
	ids := s.SnapshotIDs()
	return fmt.Sprintf("table:%d/%d/%d", ids[archive.TableRuns], ids[archive.TableMeasurements], ids[archive.TableSamples]), nil
}
