package archive

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"speedmatrix/schema"
)

// TestCompact: the files of six appends merge into one per table with
// the same rows, an orphan is left alone, a second compaction changes
// nothing, and duplicates are still found afterwards.
func TestCompact(t *testing.T) {
	ctx := context.Background()
	a := openTest(t)
	for i := 0; i < 6; i++ {
		if _, err := a.Append(ctx, testMatrices(i*2, i*2+2)); err != nil {
			t.Fatal(err)
		}
	}
	// An orphan (measurements without a runs file, e.g. a copy in
	// progress) is left alone and never read.
	orphan := filepath.Join(a.Dir(), TableMeasurements, "part-orphan.parquet")
	f, err := os.Create(orphan)
	if err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(f, testMatrix(99).Measurements); err != nil {
		t.Fatal(err)
	}
	f.Close()
	before, err := a.Load(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Compact(ctx); err != nil {
		t.Fatal(err)
	}
	if n := len(dataFiles(t, a.Dir(), TableRuns)); n != 1 {
		t.Fatalf("%d runs files after Compact, want 1", n)
	}
	if n := len(dataFiles(t, a.Dir(), TableMeasurements)); n != 2 {
		t.Fatalf("%d measurements files after Compact, want 2 (merged + orphan)", n)
	}
	after, err := Open(a.Dir())
	if err != nil {
		t.Fatal(err)
	}
	got, err := after.Load(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, before) {
		t.Fatal("Load after Compact differs from before")
	}
	// Compacting a compacted archive changes nothing.
	hash := treeHash(t, a.Dir())
	if err := a.Compact(ctx); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(treeHash(t, a.Dir()), hash) {
		t.Fatal("second Compact changed the archive")
	}
	// Duplicates still detected after compaction.
	res, err := after.Append(ctx, testMatrices(0, 1))
	if err != nil {
		t.Fatal(err)
	}
	if res.Items[0].Outcome != Duplicate {
		t.Fatalf("re-append after Compact: %v", res.Items[0].Outcome)
	}
}

// TestDrop: the dropped runs leave Runs and Load with their measurements
// and samples (run 1 has samples), the others stay exactly as they were,
// and a dropped run can be added again.
func TestDrop(t *testing.T) {
	ctx := context.Background()
	a := openTest(t)
	all := testMatrices(0, 5)
	for _, part := range [][]*schema.Matrix{all[:3], all[3:]} {
		if _, err := a.Append(ctx, part); err != nil {
			t.Fatal(err)
		}
	}
	before, err := a.Load(ctx)
	if err != nil {
		t.Fatal(err)
	}
	drop := []string{before[1].Run.RunID, before[3].Run.RunID}
	dropped, err := a.Drop(ctx, drop)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(dropped, []*schema.Matrix{before[1], before[3]}) {
		t.Fatalf("Drop returned %d runs, want the 2 dropped as they were stored", len(dropped))
	}
	got, err := a.Load(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := []*schema.Matrix{before[0], before[2], before[4]}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("after Drop: %d runs, want the 3 others unchanged", len(got))
	}
	runs, err := a.Runs(ctx)
	if err != nil || len(runs) != 3 {
		t.Fatalf("Runs after Drop: %d runs, %v", len(runs), err)
	}
	res, err := a.Append(ctx, []*schema.Matrix{testMatrix(1)})
	if err != nil || res.Items[0].Outcome != Added {
		t.Fatalf("re-append of a dropped run: %+v, %v", res.Items, err)
	}
}

// TestDropRefusesUnknown: an id the archive does not hold fails the call
// by name and leaves every file as it was.
func TestDropRefusesUnknown(t *testing.T) {
	ctx := context.Background()
	a := openTest(t)
	if _, err := a.Append(ctx, testMatrices(0, 2)); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Append(ctx, testMatrices(2, 3)); err != nil {
		t.Fatal(err)
	}
	ms, err := a.Load(ctx)
	if err != nil {
		t.Fatal(err)
	}
	hash := treeHash(t, a.Dir())
	dropped, err := a.Drop(ctx, []string{ms[0].Run.RunID, "0123456789abcdef"})
	if dropped != nil {
		t.Errorf("a refused Drop returned %d runs", len(dropped))
	}
	if err == nil || !strings.Contains(err.Error(), "0123456789abcdef") || strings.Contains(err.Error(), ms[0].Run.RunID) {
		t.Fatalf("Drop of an unknown id: %v, want an error naming it alone", err)
	}
	if !reflect.DeepEqual(treeHash(t, a.Dir()), hash) {
		t.Fatal("a refused Drop changed the archive")
	}
}

// TestDropAll: dropping every run leaves an archive that lists and loads
// nothing and takes new runs.
func TestDropAll(t *testing.T) {
	ctx := context.Background()
	a := openTest(t)
	if _, err := a.Append(ctx, testMatrices(0, 2)); err != nil {
		t.Fatal(err)
	}
	ms, err := a.Load(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.Drop(ctx, []string{ms[0].Run.RunID, ms[1].Run.RunID}); err != nil {
		t.Fatal(err)
	}
	if ms, err := a.Load(ctx); err != nil || len(ms) != 0 {
		t.Fatalf("Load after dropping all: %d runs, %v", len(ms), err)
	}
	if res, err := a.Append(ctx, testMatrices(0, 1)); err != nil || res.Added() != 1 {
		t.Fatalf("append after dropping all: %+v, %v", res, err)
	}
}
