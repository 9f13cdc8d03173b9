package archive

import (
	"context"
	"path/filepath"
	"testing"

	"speedmatrix/schema"
)

// TestListRuns: cells come from the runs table for runs written now and
// from the measurements for runs written before the column existed; only
// the asked columns are read; Compact fills the column in.
func TestListRuns(t *testing.T) {
	ctx := context.Background()
	a := openTest(t)
	if _, err := a.Append(ctx, testMatrices(0, 3)); err != nil {
		t.Fatal(err)
	}
	// A stem as an older version wrote it: no cells column values.
	old := testMatrix(3)
	stem := newStem(old.Run.IngestedAt)
	rows := stored(old).Measurements
	old.Run.Cells = nil
	writeData(t, filepath.Join(a.Dir(), TableMeasurements, stem+dataExt), rows)
	writeData(t, filepath.Join(a.Dir(), TableRuns, stem+dataExt), []schema.Run{old.Run})
	extra := testMatrix(4)
	extra.Measurements = append(extra.Measurements, schema.Measurement{
		Phase: schema.PhaseServe, ContextLabel: "1K", Concurrency: schema.I32(8), RequestRate: schema.F64(2)},
		schema.Measurement{Phase: schema.PhaseServe, ContextLabel: "1K", Concurrency: schema.I32(8), RequestRate: schema.F64(4)},
		schema.Measurement{Phase: schema.PhaseDecode, ContextLabel: "8K", Concurrency: schema.I32(1), RequestRate: schema.F64(9)})
	extra.Run.RunID = schema.ComputeRunID(extra)
	if _, err := a.Append(ctx, []*schema.Matrix{extra}); err != nil {
		t.Fatal(err)
	}

	check := func(when string) {
		runs, err := a.ListRuns(ctx, []string{"model"})
		if err != nil {
			t.Fatal(err)
		}
		if len(runs) != 5 {
			t.Fatalf("%s: %d runs", when, len(runs))
		}
		for _, r := range runs {
			want := int32(5) // testMatrix: prefill 8K×1, decode 8K×1,2,4, 123K×128
			if r.RunID == extra.Run.RunID {
				want = 7 // two serve rates; a decode row's rate is no key
			}
			if r.Cells == nil || *r.Cells != want {
				t.Errorf("%s: run %s (%s): cells %v, want %d", when, r.RunID, r.Model, r.Cells, want)
			}
			if r.Model == "" || r.IngestedAt.IsZero() || r.GPU != "" || r.LaunchFlags != nil {
				t.Errorf("%s: run %s read model %q ingested %v, and unasked gpu %q flags %v", when, r.RunID, r.Model, r.IngestedAt, r.GPU, r.LaunchFlags)
			}
		}
	}
	check("before compaction")
	if _, err := a.ListRuns(ctx, []string{"no_such_column"}); err == nil {
		t.Error("ListRuns of an unknown column: no error")
	}
	if err := a.Compact(ctx); err != nil {
		t.Fatal(err)
	}
	runs, err := a.Runs(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range runs {
		if r.Cells == nil {
			t.Errorf("after Compact run %s has no cells", r.RunID)
		}
	}
	check("after compaction")
}
