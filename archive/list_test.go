package archive

import (
	"context"
	"fmt"
	"math"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

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

	want := map[string]schema.Run{}
	for _, m := range append(testMatrices(0, 3), old, extra) {
		want[m.Run.RunID] = m.Run
	}
	check := func(when string) {
		runs, err := a.ListRuns(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if len(runs) != 5 {
			t.Fatalf("%s: %d runs", when, len(runs))
		}
		for i, r := range runs {
			cells := int32(5) // testMatrix: prefill 8K×1, decode 8K×1,2,4, 123K×128
			if r.RunID == extra.Run.RunID {
				cells = 7 // two serve rates; a decode row's rate is no key
			}
			if r.Cells == nil || *r.Cells != cells {
				t.Errorf("%s: run %s (%s): cells %v, want %d", when, r.RunID, r.Model, r.Cells, cells)
			}
			w := want[r.RunID]
			got := r
			got.Cells = nil
			exp := Listing{w.RunID, w.IngestedAt.UTC(), w.StartedAt, nil, w.Model, w.GPU, w.Engine, w.EngineVersion, w.Quantization, w.SourceSHA256, w.Title, w.BenchTool, w.GPUCount, w.BenchVersion, w.Subtitle}
			if !reflect.DeepEqual(got, exp) || r.Model == "" || r.IngestedAt.IsZero() {
				t.Errorf("%s: listed %+v, want %+v", when, got, exp)
			}
			if i > 0 && runs[i-1].IngestedAt.After(r.IngestedAt) {
				t.Errorf("%s: run %d ingested before run %d", when, i, i-1)
			}
		}
	}
	check("before compaction")
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

// TestListingColumns: every field of Listing is a column of the runs
// table with the same Arrow type, so a listing reads what Runs reads.
func TestListingColumns(t *testing.T) {
	runs := map[string]Column{}
	for _, c := range Columns(TableRuns) {
		runs[c.Name] = c
	}
	for _, tt := range []struct {
		name string
		tb   *table
		typ  reflect.Type
		cols []string
	}{
		{"Listing", listTable(), reflect.TypeFor[Listing](), listColumns},
		{"sourceListing", sourceTable(), reflect.TypeFor[sourceListing](), sourceColumns},
	} {
		if len(tt.tb.cols) != tt.typ.NumField() || len(tt.cols) != len(tt.tb.cols) {
			t.Errorf("%s has %d fields, %d columns, %d read", tt.name, tt.typ.NumField(), len(tt.tb.cols), len(tt.cols))
		}
		for i, c := range tt.tb.cols {
			r, ok := runs[c.name]
			if got := (Column{c.name, c.codec.dt.String(), c.codec.nullable}); !ok || got != r {
				t.Errorf("%s column %+v, runs column %+v", tt.name, got, r)
			}
			if i < len(tt.cols) && tt.cols[i] != c.name {
				t.Errorf("%s column %d is %s, read as %s", tt.name, i, c.name, tt.cols[i])
			}
		}
	}
}

// TestRunsBySource checks the narrow read against the listing it
// replaced (ListRuns grouped by source): sources read into several runs
// at different times, a run without a source, and a run held by two
// archives merged by copying, at its earlier ingest. A run the other
// archive read from another source is listed under that source too.
func TestRunsBySource(t *testing.T) {
	ctx := context.Background()
	shared, other := strings.Repeat("ab", 32), strings.Repeat("cd", 32)
	srcs := []*Archive{openTest(t), openTest(t)}
	for k, src := range srcs {
		ms := testMatrices(10*k, 10*k+6)
		for i, m := range ms {
			switch {
			case i%3 == 0:
				m.Run.SourceSHA256 = shared // read into several runs
			case i%3 == 1:
				m.Run.SourceSHA256 = fmt.Sprintf("%064x", i%2) // two more shared ones
			}
			m.Run.IngestedAt = m.Run.IngestedAt.Add(time.Duration(5-i) * time.Minute) // not in run_id order
		}
		copied := testMatrix(100)
		copied.Run.SourceSHA256 = shared
		copied.Run.IngestedAt = copied.Run.IngestedAt.Add(time.Duration(k) * time.Hour)
		ms = append(ms, copied)
		if k == 1 {
			html := testMatrix(0) // archive 0's run 0, read from another source
			html.Run.SourceSHA256 = other
			ms = append(ms, html)
		}
		if _, err := src.Append(ctx, ms); err != nil {
			t.Fatal(err)
		}
	}
	merged := mergeByCopy(t, srcs...)
	ls, err := merged.ListRuns(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][]string{}
	for _, l := range ls {
		if l.SourceSHA256 != "" {
			want[l.SourceSHA256] = append(want[l.SourceSHA256], l.RunID)
		}
	}
	// ListRuns lists run 0 once, under the source of its earlier ingest;
	// it belongs under both, in ListRuns' order.
	id0 := schema.ComputeRunID(testMatrix(0))
	order := map[string]int{}
	for i, l := range ls {
		order[l.RunID] = i
	}
	if slices.Contains(want[shared], id0) == slices.Contains(want[other], id0) {
		t.Fatalf("ListRuns lists run 0 under %v and %v, want one of them", want[shared], want[other])
	}
	for _, src := range []string{shared, other} {
		if !slices.Contains(want[src], id0) {
			want[src] = append(want[src], id0)
			slices.SortFunc(want[src], func(x, y string) int { return order[x] - order[y] })
		}
	}
	w, err := merged.NewWriter(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Abort()
	got, err := w.RunsBySource()
	if err != nil {
		t.Fatal(err)
	}
	if len(want[shared]) < 5 {
		t.Fatalf("the test's archive has %d runs of the shared source, want several", len(want[shared]))
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("RunsBySource:\n%v\nwant (ListRuns by source):\n%v", got, want)
	}
}

// TestListRunsMerged: a run held by two archives merged by copying their
// files is listed once, as Runs lists it: from its earlier ingest,
// whichever copy that is.
func TestListRunsMerged(t *testing.T) {
	ctx := context.Background()
	for early := range 2 {
		t.Run(fmt.Sprintf("earlier ingest in host-%d", early), func(t *testing.T) {
			srcs := []*Archive{openTest(t), openTest(t)}
			two := testMatrix(2)
			two.Run.IngestedAt = two.Run.IngestedAt.Add(-time.Hour)
			// host-0 is written first: its stem sorts first.
			for k, src := range srcs {
				ms := testMatrices(1, 4)
				if k == early {
					ms = []*schema.Matrix{testMatrix(0), two}
				}
				if _, err := src.Append(ctx, ms); err != nil {
					t.Fatal(err)
				}
			}
			merged := mergeByCopy(t, srcs...)
			runs, err := merged.Runs(ctx)
			if err != nil {
				t.Fatal(err)
			}
			ls, err := merged.ListRuns(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if len(ls) != 4 || len(runs) != 4 {
				t.Fatalf("%d listed, %d runs; want 4", len(ls), len(runs))
			}
			for i, r := range runs {
				if ls[i].RunID != r.RunID || !ls[i].IngestedAt.Equal(r.IngestedAt) {
					t.Errorf("listing %d: %s ingested %v; Runs: %s ingested %v", i, ls[i].RunID, ls[i].IngestedAt, r.RunID, r.IngestedAt)
				}
			}
			if ls[0].RunID != two.Run.RunID || !ls[0].IngestedAt.Equal(two.Run.IngestedAt) {
				t.Errorf("first listed %s ingested %v, want run 2 ingested %v", ls[0].RunID, ls[0].IngestedAt, two.Run.IngestedAt)
			}
		})
	}
}

// TestCountCells checks both ways of counting cells (pairwise for a
// document's rows, a map for more) against a map of cellOf keys: repeats,
// serve rows told apart by request rate, a NaN rate, rows without a
// concurrency, and row counts on both sides of smallCells.
func TestCountCells(t *testing.T) {
	_, seed := seedRows(t)
	serve := func(rate float64, c int32) schema.Measurement {
		return schema.Measurement{Phase: schema.PhaseServe, ContextLabel: "8K", Concurrency: &c, RequestRate: &rate}
	}
	odd := []schema.Measurement{
		serve(1, 4), serve(2, 4), serve(1, 4), serve(math.NaN(), 4), serve(math.NaN(), 4),
		{Phase: schema.PhaseDecode, ContextLabel: "8K"}, {Phase: schema.PhaseDecode, ContextLabel: "8K"},
		{Phase: schema.PhaseDecode, ContextLabel: "8K", RequestRate: schema.F64(3)},
		{Phase: schema.PhasePrefill, ContextLabel: "8K", Concurrency: schema.I32(0)},
	}
	var many []schema.Measurement
	for len(many) <= 3*smallCells {
		for _, r := range odd {
			r.ContextLabel = fmt.Sprint(len(many) % 50)
			many = append(many, r)
		}
	}
	tests := []struct {
		name string
		rows []schema.Measurement
	}{
		{"none", nil},
		{"seed document", seed[:46]},
		{"both seeds", seed},
		{"odd cells", odd},
		{"exactly smallCells", many[:smallCells]},
		{"one more", many[:smallCells+1]},
		{"many", many},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			seen := map[cellKey]bool{}
			for i := range tt.rows {
				seen[cellOf(&tt.rows[i])] = true
			}
			if got := countCells(tt.rows); got != int32(len(seen)) {
				t.Fatalf("%d cells, want %d", got, len(seen))
			}
		})
	}
}

// BenchmarkCountCells counts the cells of a seed document's rows, as
// every Add does.
func BenchmarkCountCells(b *testing.B) {
	_, seed := seedRows(b)
	rows := seed[:46]
	b.ReportAllocs()
	for b.Loop() {
		countCells(rows)
	}
}
