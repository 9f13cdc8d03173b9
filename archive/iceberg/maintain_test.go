package iceberg

import (
	"context"
	"testing"
	"time"

	"speedmatrix/archive"
	"speedmatrix/schema"
)

// dataFiles counts the data files of tbl's current snapshot.
func dataFiles(t *testing.T, a *Archive, tbl string) int {
	t.Helper()
	ctx := context.Background()
	tb, err := a.load(ctx, tbl)
	if err != nil {
		t.Fatal(err)
	}
	if tb.CurrentSnapshot() == nil {
		return 0
	}
	fs, err := liveFiles(ctx, tb, tb.CurrentSnapshot())
	if err != nil {
		t.Fatal(err)
	}
	return len(fs)
}

// TestMaintainCompacts appends runs one at a time (a data file and a
// manifest per table each time), then -maintain: the small files merge
// into groups of at most compactRows rows, the manifests into few, and
// the table reads the same runs, each row once; a second Maintain has
// nothing left to compact.
func TestMaintainCompacts(t *testing.T) {
	ctx := context.Background()
	old := compactRows[archive.TableMeasurements]
	compactRows[archive.TableMeasurements] = 20 // 4 runs of 5 rows a group
	t.Cleanup(func() { compactRows[archive.TableMeasurements] = old })

	a := openRef(t, sqliteRef(t))
	ms := testMatrices(0, 9)
	for _, m := range ms {
		if _, err := a.Append(ctx, []*schema.Matrix{m}); err != nil {
			t.Fatal(err)
		}
	}
	if n := dataFiles(t, a, archive.TableMeasurements); n != 9 {
		t.Fatalf("%d measurement files before, want 9", n)
	}
	tms, err := a.Maintain(ctx, time.Hour, false)
	if err != nil {
		t.Fatal(err)
	}
	byTable := map[string]TableMaintenance{}
	for _, m := range tms {
		byTable[m.Table] = m
	}
	// 9 files of 5 rows: groups of 4, 4 and the ninth alone (left).
	if m := byTable[archive.TableMeasurements]; m.Compacted != 8 || m.Written != 2 || m.UnseenRows != 0 {
		t.Errorf("measurements: %d files compacted into %d, %d unseen rows; want 8 into 2, 0", m.Compacted, m.Written, m.UnseenRows)
	}
	if m := byTable[archive.TableRuns]; m.Compacted != 9 || m.Written != 1 {
		t.Errorf("runs: %d files compacted into %d; want 9 into 1", m.Compacted, m.Written)
	}
	for _, m := range tms {
		if m.ManifestsBefore < 2 || m.ManifestsAfter != 1 {
			t.Errorf("%s: %d → %d manifests, want several → 1", m.Table, m.ManifestsBefore, m.ManifestsAfter)
		}
	}
	if n := dataFiles(t, a, archive.TableMeasurements); n != 3 {
		t.Errorf("%d measurement files after, want 3", n)
	}
	checkHolds(t, a, ms)

	again, err := a.Maintain(ctx, time.Hour, false)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range again {
		if m.Compacted != 0 || m.ManifestsAfter != m.ManifestsBefore {
			t.Errorf("second maintain, %s: %d files compacted, %d → %d manifests; want nothing", m.Table, m.Compacted, m.ManifestsBefore, m.ManifestsAfter)
		}
	}
	checkHolds(t, a, ms)

	// A drop rewrites only the files holding the run (one per table
	// here), whatever their run_id bounds say.
	if got, err := a.Drop(ctx, []string{ms[3].Run.RunID}); err != nil || len(got) != 1 {
		t.Fatalf("drop: %d runs, %v", len(got), err)
	}
	if n := dataFiles(t, a, archive.TableMeasurements); n != 3 {
		t.Errorf("%d measurement files after the drop, want 3", n)
	}
	checkHolds(t, a, append(ms[:3:3], ms[4:]...))
}

// TestMaintainRemovesUnseenRows leaves what a Drop killed after the runs
// table leaves (the run gone from runs, its measurements and samples
// still there): a later Drop of that id finds nothing, Maintain within
// the grace period keeps the rows (an append in flight looks the same),
// and Maintain past it removes exactly them.
func TestMaintainRemovesUnseenRows(t *testing.T) {
	ctx := context.Background()
	a := openRef(t, sqliteRef(t))
	ms := testMatrices(0, 4)
	if _, err := a.Append(ctx, ms); err != nil {
		t.Fatal(err)
	}
	gone := ms[1] // odd: it has samples
	if err := dropFrom[schema.Run](ctx, a, archive.TableRuns, map[string]bool{gone.Run.RunID: true}); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Drop(ctx, []string{gone.Run.RunID}); err == nil {
		t.Fatal("drop of a run the runs table lacks: no error")
	}
	left := []*schema.Matrix{ms[0], ms[2], ms[3]}
	unseen := int64(len(gone.Measurements) + len(gone.Samples))

	tms, err := a.Maintain(ctx, time.Hour, false)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range tms {
		if m.UnseenRows != 0 {
			t.Fatalf("%s: %d unseen rows removed within the grace period", m.Table, m.UnseenRows)
		}
	}
	s, err := a.Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if n := countRows(t, s, archive.TableMeasurements); n != 4*len(gone.Measurements) {
		t.Fatalf("%d measurement rows within the grace, want %d", n, 4*len(gone.Measurements))
	}

	tms, err = a.Maintain(ctx, 0, false)
	if err != nil {
		t.Fatal(err)
	}
	var removed int64
	for _, m := range tms {
		removed += m.UnseenRows
	}
	if removed != unseen {
		t.Errorf("%d unseen rows removed, want %d", removed, unseen)
	}
	checkHolds(t, a, left)
}
