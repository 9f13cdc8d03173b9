package archive

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"speedmatrix/schema"
)

// smallGroups makes data files written during the test cut row groups of
// at most n rows (whole runs), so a few runs give many groups.
func smallGroups(t *testing.T, n int) {
	prev := groupRows
	groupRows = n
	t.Cleanup(func() { groupRows = prev })
}

// groupBounds returns the run_id min and max of every row group of a
// data file, failing when a group has no statistics.
func groupBounds(t *testing.T, path string) [][2]string {
	t.Helper()
	pf, err := file.OpenParquetFile(path, false)
	if err != nil {
		t.Fatal(err)
	}
	defer pf.Close()
	leaf := pf.MetaData().Schema.ColumnIndexByName("run_id")
	var out [][2]string
	for g := 0; g < pf.NumRowGroups(); g++ {
		lo, hi, ok := stringBounds(pf.MetaData().RowGroup(g), leaf)
		if !ok {
			t.Fatalf("%s: row group %d has no run_id statistics", path, g)
		}
		out = append(out, [2]string{lo, hi})
	}
	return out
}

// TestRowGroupsByRunID checks the write side: rows sorted by run_id, cut
// into row groups of whole runs with disjoint run_id ranges, for Append
// and Compact.
func TestRowGroupsByRunID(t *testing.T) {
	smallGroups(t, 12) // 5 measurement rows per run: 2 runs per group
	ctx := context.Background()
	ms := testMatrices(0, 20)
	slices.Reverse(ms) // not in run_id order
	tests := []struct {
		name    string
		compact bool
	}{
		{"append", false},
		{"compact", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := openTest(t)
			if tt.compact {
				for k := 0; k < len(ms); k += 7 {
					if _, err := a.Append(ctx, ms[k:min(k+7, len(ms))]); err != nil {
						t.Fatal(err)
					}
				}
				if err := a.Compact(ctx); err != nil {
					t.Fatal(err)
				}
			} else if _, err := a.Append(ctx, ms); err != nil {
				t.Fatal(err)
			}
			for _, table := range []string{TableMeasurements, TableRuns} {
				files := dataFiles(t, a.Dir(), table)
				if len(files) != 1 {
					t.Fatalf("%s: %d files, want 1", table, len(files))
				}
				b := groupBounds(t, files[0])
				if len(b) != 10 && table == TableMeasurements {
					t.Errorf("%s: %d row groups, want 10 (2 runs of 5 rows each)", table, len(b))
				}
				if len(b) != 2 && table == TableRuns {
					t.Errorf("%s: %d row groups, want 2 (12 and 8 runs)", table, len(b))
				}
				for g := range b {
					if b[g][0] > b[g][1] || g > 0 && b[g-1][1] >= b[g][0] {
						t.Errorf("%s: row group run_id ranges overlap or are out of order: %v", table, b)
						break
					}
				}
			}
		})
	}
}

// TestRowGroupsFromPieces checks that row groups larger than recordRows,
// written from records of recordRows rows into one buffered group, are
// the groups one record gives: the same run_id ranges, and the same rows
// read back, for Append (sorted batches) and Compact.
func TestRowGroupsFromPieces(t *testing.T) {
	smallGroups(t, 12) // 2 runs of 5 measurement rows per group
	ctx := context.Background()
	ms := testMatrices(0, 20)
	for _, pieces := range []int{1 << 16, 3} {
		prev := recordRows
		recordRows = pieces
		a := openTest(t)
		if _, err := a.Append(ctx, ms[:13]); err != nil {
			t.Fatal(err)
		}
		if _, err := a.Append(ctx, ms[13:]); err != nil {
			t.Fatal(err)
		}
		var bounds [][][2]string
		for _, table := range []string{TableMeasurements, TableRuns} {
			for _, f := range dataFiles(t, a.Dir(), table) {
				bounds = append(bounds, groupBounds(t, f))
			}
		}
		if err := a.Compact(ctx); err != nil {
			t.Fatal(err)
		}
		for _, table := range []string{TableMeasurements, TableRuns} {
			for _, f := range dataFiles(t, a.Dir(), table) {
				bounds = append(bounds, groupBounds(t, f))
			}
		}
		recordRows = prev
		got, err := a.Load(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != len(ms) {
			t.Fatalf("records of %d rows: Load gave %d runs, want %d", pieces, len(got), len(ms))
		}
		for i := range ms {
			if want := stored(ms[i]); !reflect.DeepEqual(got[i], want) {
				t.Errorf("records of %d rows: run %d:\n got %+v\nwant %+v", pieces, i, got[i], want)
			}
		}
		if pieces == 3 {
			if want := fmt.Sprint(wholeBounds); fmt.Sprint(bounds) != want {
				t.Errorf("row groups from records of 3 rows: %v\nfrom one record: %v", bounds, want)
			}
		} else {
			wholeBounds = bounds
		}
	}
}

// wholeBounds are the row groups TestRowGroupsFromPieces wrote from one
// record per batch.
var wholeBounds [][][2]string

// writeUnsorted writes ms as one committed stem the way an older version
// (or another tool) might have: every measurement file row in one row
// group of interleaved runs, without statistics.
func writeUnsorted(t *testing.T, a *Archive, ms []*schema.Matrix) {
	t.Helper()
	var runs []schema.Run
	var rows []schema.Measurement
	for _, m := range ms {
		runs = append(runs, m.Run)
	}
	for k := 0; ; k++ { // row k of every run, then row k+1, …
		added := false
		for _, m := range ms {
			if k < len(m.Measurements) {
				r := m.Measurements[k]
				r.RunID = m.Run.RunID
				rows = append(rows, r)
				added = true
			}
		}
		if !added {
			break
		}
	}
	stem := newStem(runs[0].IngestedAt)
	props := parquet.NewWriterProperties(parquet.WithStats(false))
	for _, w := range []struct {
		table string
		rows  reflect.Value
	}{{TableMeasurements, reflect.ValueOf(rows)}, {TableRuns, reflect.ValueOf(runs)}} {
		tb := tableByName(w.table)
		f, err := os.Create(filepath.Join(a.Dir(), w.table, stem+dataExt))
		if err != nil {
			t.Fatal(err)
		}
		fw, err := pqarrow.NewFileWriter(tb.schema, f, props, pqarrow.DefaultWriterProps())
		if err != nil {
			t.Fatal(err)
		}
		rec := refRecord(tb, w.rows)
		if err := fw.Write(rec); err != nil {
			t.Fatal(err)
		}
		rec.Release()
		if err := fw.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

// TestLoadPrunes checks the read side: Load by id reads only the row
// groups that can hold the ids and returns exactly their rows, from
// sorted files and from files without statistics alike.
func TestLoadPrunes(t *testing.T) {
	smallGroups(t, 12)
	ctx := context.Background()
	sorted, old := openTest(t), openTest(t)
	ms := testMatrices(0, 20)
	if _, err := sorted.Append(ctx, ms); err != nil {
		t.Fatal(err)
	}
	writeUnsorted(t, old, ms)
	tests := []struct {
		name       string
		load       []int // indices into ms
		wantGroups int   // measurement row groups read from the sorted archive
		notFound   bool
	}{
		{"one run", []int{7}, 1, false},
		{"two runs, asked out of order", []int{19, 0}, 2, false},
		{"one run asked twice", []int{3, 3}, 1, false},
		{"an unknown run", []int{-1}, 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var ids []string
			for _, i := range tt.load {
				if i < 0 {
					ids = append(ids, "0000000000000000")
				} else {
					ids = append(ids, ms[i].Run.RunID)
				}
			}
			// Which groups the sorted file's statistics leave to read.
			if !tt.notFound {
				path := dataFiles(t, sorted.Dir(), TableMeasurements)[0]
				f, err := os.Open(path)
				if err != nil {
					t.Fatal(err)
				}
				pf, err := file.NewParquetReader(f)
				if err != nil {
					t.Fatal(err)
				}
				got := pruneGroups(pf, pf.MetaData().Schema.ColumnIndexByName("run_id"), newRunSet(ids))
				f.Close()
				if len(got) != tt.wantGroups {
					t.Errorf("row groups read: %v, want %d of %d", got, tt.wantGroups, pf.NumRowGroups())
				}
			}
			for _, a := range []*Archive{sorted, old} {
				got, err := a.Load(ctx, ids...)
				if tt.notFound {
					if !errors.Is(err, ErrNotFound) {
						t.Fatalf("err = %v, want ErrNotFound", err)
					}
					continue
				}
				if err != nil {
					t.Fatal(err)
				}
				for k, i := range tt.load {
					want := stored(ms[i])
					want.Samples = nil // neither archive stored samples for these
					if a == sorted {
						want.Samples = stored(ms[i]).Samples
					} else {
						want.Run.Cells = nil // written as an older version did
					}
					if !reflect.DeepEqual(got[k], want) {
						t.Errorf("%s: run %d:\n got %+v\nwant %+v", a.Dir(), i, got[k], want)
					}
				}
			}
		})
	}
}

// TestLoadColumns checks that LoadColumns fills only the columns asked
// for (and run_id) and refuses unknown names.
func TestLoadColumns(t *testing.T) {
	smallGroups(t, 12)
	ctx := context.Background()
	a := openTest(t)
	ms := testMatrices(0, 6)
	if _, err := a.Append(ctx, ms); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		cols []string
		ids  []int
		err  bool
	}{
		{"keys of every run", []string{"phase", "context_label", "concurrency"}, nil, false},
		{"keys of two runs", []string{"phase", "context_tokens"}, []int{5, 2}, false},
		{"a list column", []string{"printed"}, []int{0}, false},
		{"no columns", []string{}, []int{1}, false},
		{"an unknown column", []string{"phase", "tokens_per_banana"}, nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var ids []string
			for _, i := range tt.ids {
				ids = append(ids, ms[i].Run.RunID)
			}
			got, err := a.LoadColumns(ctx, tt.cols, ids...)
			if tt.err {
				if err == nil {
					t.Fatal("no error for an unknown column")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			which := tt.ids
			if which == nil {
				which = []int{0, 1, 2, 3, 4, 5}
			}
			if len(got) != len(which) {
				t.Fatalf("%d runs, want %d", len(got), len(which))
			}
			keep := map[string]bool{"run_id": true}
			for _, c := range tt.cols {
				keep[c] = true
			}
			for k, i := range which {
				want := stored(ms[i])
				for j := range want.Measurements {
					project(&want.Measurements[j], keep)
				}
				for j := range want.Samples {
					project(&want.Samples[j], keep)
				}
				if len(want.Samples) == 0 {
					want.Samples = nil
				}
				if !reflect.DeepEqual(got[k], want) {
					t.Errorf("run %d:\n got %+v\nwant %+v", i, got[k], want)
				}
			}
		})
	}
}

// project zeroes the fields of the row *p whose column is not in keep.
func project[T any](p *T, keep map[string]bool) {
	v := reflect.ValueOf(p).Elem()
	for i := 0; i < v.NumField(); i++ {
		if name, ok := jsonName(v.Type().Field(i)); ok && !keep[name] {
			v.Field(i).SetZero()
		}
	}
}

// TestDuckDBReadsRowGroups checks that DuckDB reads a file of many row
// groups whole and sees the run_id statistics the pruning relies on.
func TestDuckDBReadsRowGroups(t *testing.T) {
	smallGroups(t, 12)
	a := openTest(t)
	ms := testMatrices(0, 20)
	if _, err := a.Append(context.Background(), ms); err != nil {
		t.Fatal(err)
	}
	path := dataFiles(t, a.Dir(), TableMeasurements)[0]
	rows := duckdb(t, fmt.Sprintf(`SELECT count(*) AS n, count(DISTINCT run_id) AS runs
		FROM read_parquet('%s')`, path))
	if fmt.Sprint(rows[0]["n"], " ", rows[0]["runs"]) != "100 20" {
		t.Errorf("DuckDB read %v rows of %v runs, want 100 of 20", rows[0]["n"], rows[0]["runs"])
	}
	rows = duckdb(t, fmt.Sprintf(`SELECT row_group_id AS g, stats_min_value AS lo, stats_max_value AS hi
		FROM parquet_metadata('%s') WHERE path_in_schema = 'run_id' ORDER BY g`, path))
	b := groupBounds(t, path)
	if len(rows) != len(b) {
		t.Fatalf("DuckDB sees %d row groups, arrow-go %d", len(rows), len(b))
	}
	for g, r := range rows {
		if r["lo"] != b[g][0] || r["hi"] != b[g][1] {
			t.Errorf("row group %d: DuckDB run_id range %v..%v, want %s..%s", g, r["lo"], r["hi"], b[g][0], b[g][1])
		}
	}
}

// TestCompactRegroups checks that Compact rewrites an archive of one
// stem only when an older version wrote it (no run_id row groups), and
// that the rewrite keeps every run.
func TestCompactRegroups(t *testing.T) {
	smallGroups(t, 12)
	ctx := context.Background()
	ms := testMatrices(0, 20)
	tests := []struct {
		name    string
		write   func(t *testing.T, a *Archive)
		rewrite bool
	}{
		{"current layout", func(t *testing.T, a *Archive) {
			if _, err := a.Append(ctx, ms); err != nil {
				t.Fatal(err)
			}
		}, false},
		{"older layout", func(t *testing.T, a *Archive) { writeUnsorted(t, a, ms) }, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := openTest(t)
			tt.write(t, a)
			before := treeHash(t, a.Dir())
			if err := a.Compact(ctx); err != nil {
				t.Fatal(err)
			}
			after := treeHash(t, a.Dir())
			if changed := !reflect.DeepEqual(before, after); changed != tt.rewrite {
				t.Fatalf("Compact rewrote the archive: %v, want %v", changed, tt.rewrite)
			}
			path := dataFiles(t, a.Dir(), TableMeasurements)[0]
			if ok, err := groupedFile(path); !ok || err != nil {
				t.Errorf("after Compact %s is not grouped by run_id (%v)", path, err)
			}
			runs, err := a.Runs(ctx)
			if err != nil || len(runs) != len(ms) {
				t.Fatalf("%d runs after Compact, want %d: %v", len(runs), len(ms), err)
			}
			got, err := a.Load(ctx, ms[4].Run.RunID)
			if err != nil || len(got[0].Measurements) != len(ms[4].Measurements) {
				t.Fatalf("Load after Compact: %v", err)
			}
		})
	}
}
