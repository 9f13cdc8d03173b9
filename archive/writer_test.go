package archive

import (
	"cmp"
	"context"
	"errors"
	"reflect"
	"slices"
	"testing"

	"speedmatrix/schema"
)

// smallBatchWriter opens a test archive and a writer on it whose batches
// hold about two runs of testMatrix (batchRows is restored at cleanup).
func smallBatchWriter(t *testing.T) (*Archive, *Writer) {
	t.Helper()
	old := batchRows
	batchRows = 12
	t.Cleanup(func() { batchRows = old })
	a := openTest(t)
	w, err := a.NewWriter(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return a, w
}

// TestWriterBatches writes more runs than one batch holds: the runs land
// in one file per table, read back as Append's would, and an abort
// leaves nothing.
func TestWriterBatches(t *testing.T) {
	ctx := context.Background()
	a, w := smallBatchWriter(t)
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

// pieces returns an each for AddRows that yields ms in pieces of size
// rows, copies the caller may not see changed.
func pieces(ms []schema.Measurement, size int) func(func([]schema.Measurement) error) error {
	return func(yield func([]schema.Measurement) error) error {
		for i := 0; i < len(ms); i += size {
			if err := yield(append([]schema.Measurement(nil), ms[i:min(i+size, len(ms))]...)); err != nil {
				return err
			}
		}
		return nil
	}
}

// TestWriterAddRows writes runs whose rows come in pieces between runs
// added whole: every run reads back as Add would have written it (rows,
// cell count), a duplicate is not read, and an error of the pieces
// leaves the archive unchanged once the writer is aborted.
func TestWriterAddRows(t *testing.T) {
	defer func(b, r int) { batchRows, recordRows = b, r }(batchRows, recordRows)
	batchRows, recordRows = 12, 2
	ctx := context.Background()
	a := openTest(t)
	w, err := a.NewWriter(ctx)
	if err != nil {
		t.Fatal(err)
	}
	in := testMatrices(0, 6)
	for i, m := range in {
		if i%2 == 0 {
			if _, err := w.Add(m); err != nil {
				t.Fatal(err)
			}
			continue
		}
		head := *m
		head.Measurements = nil
		head.Run.RunID = schema.ComputeRunID(m)
		m.Run.RunID = head.Run.RunID
		it, err := w.AddRows(&head, pieces(m.Measurements, 3))
		if err != nil || it.Outcome != Added {
			t.Fatalf("AddRows %d: %v %v", i, it.Outcome, err)
		}
		it, err = w.AddRows(&head, func(func([]schema.Measurement) error) error {
			t.Fatal("the rows of a duplicate were read")
			return nil
		})
		if err != nil || it.Outcome != Duplicate {
			t.Fatalf("AddRows %d again: %v %v", i, it.Outcome, err)
		}
	}
	if _, err := w.Close(); err != nil {
		t.Fatal(err)
	}
	got, err := a.Load(ctx)
	if err != nil {
		t.Fatal(err)
	}
	byID := map[string]*schema.Matrix{}
	for _, m := range got {
		byID[m.Run.RunID] = m
	}
	for i, m := range in {
		g := byID[m.Run.RunID]
		if g == nil || !reflect.DeepEqual(g.Measurements, stored(m).Measurements) {
			t.Fatalf("run %d read back differently", i)
		}
		if want := countCells(m.Measurements); g.Run.Cells == nil || *g.Run.Cells != want {
			t.Fatalf("run %d: cells %v, want %d", i, g.Run.Cells, want)
		}
	}
	checkArchive(t, a.Dir(), 6)

	before := treeHash(t, a.Dir())
	w, err = a.NewWriter(ctx)
	if err != nil {
		t.Fatal(err)
	}
	m := testMatrix(7)
	head := *m
	head.Measurements = nil
	head.Run.RunID = schema.ComputeRunID(m)
	boom := errors.New("bad row")
	_, err = w.AddRows(&head, func(yield func([]schema.Measurement) error) error {
		if err := pieces(m.Measurements[:4], 2)(yield); err != nil {
			return err
		}
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("AddRows: %v, want the pieces' error", err)
	}
	w.Abort()
	if after := treeHash(t, a.Dir()); !reflect.DeepEqual(before, after) {
		t.Fatalf("a failed AddRows changed the archive: %d files before, %d after", len(before), len(after))
	}
}

// TestWriterSortsBatch adds runs whose ids come in no order as one
// batch: the rows are written in run_id order, so the row groups of the
// file bound ascending id ranges that do not overlap.
func TestWriterSortsBatch(t *testing.T) {
	smallGroups(t, 10) // two or three runs of testMatrix per group
	ctx := context.Background()
	a := openTest(t)
	w, err := a.NewWriter(ctx)
	if err != nil {
		t.Fatal(err)
	}
	in := testMatrices(0, 12)
	if slices.IsSortedFunc(in, func(x, y *schema.Matrix) int { return cmp.Compare(x.Run.RunID, y.Run.RunID) }) {
		t.Fatal("the test's runs come sorted by id")
	}
	for _, m := range in {
		if _, err := w.Add(m); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := w.Close(); err != nil {
		t.Fatal(err)
	}
	for _, path := range dataFiles(t, a.Dir(), TableMeasurements) {
		if ok, err := groupedFile(path); err != nil || !ok {
			t.Fatalf("%s: row groups by run_id %v (%v), want ascending", path, ok, err)
		}
	}
}

// TestWriterWritten checks Written's promise: it is called once for each
// run Add kept (not for a duplicate), in run_id order within a batch,
// only after the batch's rows were written, and what the callback then
// does to the rows (here it poisons every value, as a caller reusing
// their memory would overwrite them) does not reach the archive.
func TestWriterWritten(t *testing.T) {
	ctx := context.Background()
	a, w := smallBatchWriter(t)
	in := testMatrices(0, 20)
	want := map[string]*schema.Matrix{} // by run id, as stored
	ids := map[*schema.Matrix]string{}
	pending := map[*schema.Matrix]bool{} // added, not yet Written
	for _, m := range in {
		ids[m] = schema.ComputeRunID(m)
		want[ids[m]] = stored(m)
		pending[m] = true
	}
	var got []string // run ids, in the order Written saw them
	w.Written = func(m *schema.Matrix) {
		if !pending[m] {
			t.Fatalf("Written of a matrix not pending (twice, a duplicate or never added)")
		}
		delete(pending, m)
		got = append(got, ids[m])
		for i := range m.Measurements {
			p := &m.Measurements[i]
			*p = schema.Measurement{RunID: "poison", Phase: schema.PhaseServe, ContextLabel: "poison",
				TotalTokS: schema.F64(-1), Printed: []schema.KV{{Key: "poison", Value: "poison"}}}
		}
		m.Measurements = nil
	}
	batches := 0
	for i, m := range append(in, testMatrix(3)) {
		before := len(got)
		it, err := w.Add(m) // Written may see m before Add returns
		if err != nil {
			t.Fatal(err)
		}
		if i == len(in) && it.Outcome != Duplicate {
			t.Fatalf("Add of a duplicate: %s", it.Outcome)
		}
		if len(got) > before {
			batches++
			if !slices.IsSorted(got[before:]) {
				t.Fatalf("batch %d written out of run_id order: %v", batches, got[before:])
			}
		}
	}
	if batches < 2 {
		t.Fatalf("%d batches written before Close, want several", batches)
	}
	if _, err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if len(got) != len(in) || len(pending) != 0 {
		t.Fatalf("Written %d times for %d runs (%d not seen)", len(got), len(in), len(pending))
	}
	loaded, err := a.Load(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range loaded {
		if !reflect.DeepEqual(m.Measurements, want[m.Run.RunID].Measurements) {
			t.Fatalf("run %s: rows changed after Written", m.Run.RunID)
		}
	}
	if len(loaded) != len(in) {
		t.Fatalf("Load: %d runs, want %d", len(loaded), len(in))
	}
}
