package archive

import (
	"context"
	"reflect"
	"testing"

	"speedmatrix/schema"
)

// TestWriterBatches writes more runs than one batch holds: the runs land
// in one file per table, read back as Append's would, and an abort
// leaves nothing.
func TestWriterBatches(t *testing.T) {
	old := batchRows
	batchRows = 12 // about two runs of testMatrix per batch
	defer func() { batchRows = old }()
	ctx := context.Background()
	a := openTest(t)
	w, err := a.NewWriter(ctx)
	if err != nil {
		t.Fatal(err)
	}
	in := testMatrices(0, 20)
	for i, m := range append(in, testMatrix(3)) {
		it, err := w.Add(m)
		if err != nil {
			t.Fatal(err)
		}
		if want := map[bool]Outcome{true: Added, false: Duplicate}[i < 20]; it.Outcome != want {
			t.Fatalf("Add %d: %s, want %s", i, it.Outcome, want)
		}
	}
	res, err := w.Close()
	if err != nil {
		t.Fatal(err)
	}
	if res.Added() != 20 || len(res.Files) != 3 {
		t.Fatalf("added %d runs in %d files, want 20 in 3", res.Added(), len(res.Files))
	}
	for _, tb := range Tables {
		if n := len(dataFiles(t, a.Dir(), tb)); n != 1 {
			t.Errorf("%s: %d files, want 1", tb, n)
		}
	}
	got, err := a.Load(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 20 {
		t.Fatalf("Load: %d runs", len(got))
	}
	byID := map[string]*schema.Matrix{}
	for _, m := range got {
		byID[m.Run.RunID] = m
	}
	for _, m := range in {
		if !reflect.DeepEqual(byID[m.Run.RunID].Measurements, stored(m).Measurements) {
			t.Fatalf("run %s read back differently", m.Run.RunID)
		}
	}
	checkArchive(t, a.Dir(), 20)

	// Abort after batches were written: nothing lands, nothing is left.
	before := treeHash(t, a.Dir())
	w, err = a.NewWriter(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range testMatrices(20, 30) {
		if _, err := w.Add(m); err != nil {
			t.Fatal(err)
		}
	}
	w.Abort()
	if after := treeHash(t, a.Dir()); !reflect.DeepEqual(before, after) {
		t.Fatalf("Abort changed the archive: %d files before, %d after", len(before), len(after))
	}
}
