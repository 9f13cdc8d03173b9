package iceberg

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/apache/iceberg-go/table"

	"speedmatrix/archive"
	"speedmatrix/internal/testtool"
	"speedmatrix/schema"
)

// testMatrix returns a small matrix, distinct for each i: one prefill row,
// a few decode rows (one over capacity, all nulls), and samples when i is
// odd (as archive's tests make them).
func testMatrix(i int) *schema.Matrix {
	m := &schema.Matrix{
		Run: schema.Run{
			SchemaVersion: schema.Version,
			SourcePath:    fmt.Sprintf("doc-%d.txt", i),
			SourceFormat:  schema.FormatText,
			IngestedAt:    time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(i) * time.Second),
			Title:         fmt.Sprintf("Model-%d on GPU", i),
			Model:         fmt.Sprintf("Model-%d", i),
			GPU:           "RTX PRO 6000",
			VRAMGB:        schema.F64(96),
			Engine:        "vllm",
			LaunchFlags:   []schema.KV{{Key: "--max-model-len", Value: "131072"}, {Key: "--trust-remote-code"}},
			Metadata:      []schema.Field{{Section: "Hardware", Key: "GPU", Value: "RTX PRO 6000"}},
		},
	}
	m.Measurements = append(m.Measurements, schema.Measurement{
		Phase: schema.PhasePrefill, ContextLabel: "8K", ContextTokens: schema.I64(8192), Concurrency: schema.I32(1),
		Status: schema.StatusValid, TotalTokS: schema.F64(55000), TTFTMs: schema.F64(149), SourceLine: 50,
		Printed: []schema.KV{{Key: "Total tok/s", Value: "55K"}},
	})
	for c := int32(1); c <= 4; c *= 2 {
		m.Measurements = append(m.Measurements, schema.Measurement{
			Phase: schema.PhaseDecode, ContextLabel: "8K", ContextTokens: schema.I64(8192), Concurrency: schema.I32(c),
			Status: schema.StatusValid, TotalTokS: schema.F64(float64(i) + float64(c)*100.5),
			TTFTMs: schema.F64(41), CompletedRequests: schema.I64(int64(c)), SourceLine: int64(60 + c),
		})
	}
	m.Measurements = append(m.Measurements, schema.Measurement{
		Phase: schema.PhaseDecode, ContextLabel: "123K", ContextTokens: schema.I64(123 * 1024), Concurrency: schema.I32(128),
		Status: schema.StatusOverCapacity, SourceLine: 70,
	})
	if i%2 == 1 {
		for r := int64(0); r < 3; r++ {
			m.Samples = append(m.Samples, schema.Sample{
				Phase: schema.PhaseDecode, ContextLabel: "8K", Concurrency: 2, Request: r,
				StartMs: float64(r) * 10, OutputTokens: 100 + r, TTFTMs: schema.F64(40), InWindow: r > 0,
			})
		}
	}
	m.Run.RunID = schema.ComputeRunID(m)
	return m
}

func testMatrices(from, to int) []*schema.Matrix {
	var out []*schema.Matrix
	for i := from; i < to; i++ {
		out = append(out, testMatrix(i))
	}
	return out
}

// stored returns m as Load returns it: rows carry the run id, the run its
// cell count.
func stored(t testing.TB, m *schema.Matrix) *schema.Matrix {
	r, err := archive.PrepareRun(m, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	c := &schema.Matrix{Run: r}
	for _, x := range m.Measurements {
		x.RunID = r.RunID
		c.Measurements = append(c.Measurements, x)
	}
	for _, x := range m.Samples {
		x.RunID = r.RunID
		c.Samples = append(c.Samples, x)
	}
	return c
}

// sqliteRef returns a reference to a fresh SQLite catalog with a local
// warehouse in a temporary directory.
func sqliteRef(t testing.TB) Ref {
	dir := t.TempDir()
	ref, err := ParseRef("iceberg+sqlite://" + filepath.ToSlash(filepath.Join(dir, "catalog.db")) + "#speedmatrix")
	if err != nil {
		t.Fatal(err)
	}
	return ref
}

func openRef(t testing.TB, ref Ref) *Archive {
	t.Helper()
	a, err := Open(context.Background(), ref, Options{Create: true, Timeout: 30 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.Close() })
	return a
}

// checkHolds checks that a's current snapshot holds exactly ms, each
// row once, as iceberg-go's scan reads them.
func checkHolds(t testing.TB, a *Archive, ms []*schema.Matrix) *Snapshot {
	t.Helper()
	ctx := context.Background()
	s, err := a.Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	runs, err := s.Runs(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) != len(ms) {
		t.Fatalf("%d runs, want %d", len(runs), len(ms))
	}
	var ids []string
	for _, m := range ms {
		ids = append(ids, m.Run.RunID)
	}
	got, err := s.Load(ctx, ids...)
	if err != nil {
		t.Fatal(err)
	}
	for i, m := range ms {
		want := stored(t, m)
		want.Run.IngestedAt = got[i].Run.IngestedAt // set on write when zero
		if !reflect.DeepEqual(got[i], want) {
			g, _ := json.Marshal(got[i])
			w, _ := json.Marshal(want)
			t.Fatalf("run %s read back differs:\n got  %s\n want %s", m.Run.RunID, g, w)
		}
	}
	// iceberg-go's own scan reads the rows the archive's reader loaded.
	var meas []schema.Measurement
	var samps []schema.Sample
	for _, m := range got {
		meas = append(meas, m.Measurements...)
		samps = append(samps, m.Samples...)
	}
	sameAsIcebergScan(t, s.meas, ids, meas)
	sameAsIcebergScan(t, s.samps, ids, samps)
	// Every table holds each run's rows once: no more rows than the runs'.
	nm, ns := 0, 0
	for _, m := range ms {
		nm += len(m.Measurements)
		ns += len(m.Samples)
	}
	for tbl, want := range map[string]int{archive.TableMeasurements: nm, archive.TableSamples: ns} {
		n := countRows(t, s, tbl)
		if n != want {
			t.Fatalf("%s holds %d rows, want %d", tbl, n, want)
		}
	}
	return s
}

// sameAsIcebergScan checks that iceberg-go's scan of tb reads rows, the
// rows of ids the archive's reader read, in some order.
func sameAsIcebergScan[T archive.Row](t testing.TB, tb *table.Table, ids []string, rows []T) {
	t.Helper()
	var scanned []T
	if sn := tb.CurrentSnapshot(); sn != nil {
		var err error
		if scanned, err = scanRows[T](context.Background(), tb, sn.SnapshotID, ids, nil); err != nil {
			t.Fatal(err)
		}
	}
	key := func(r T) string { b, _ := json.Marshal(r); return string(b) }
	a, b := make([]string, 0, len(rows)), make([]string, 0, len(scanned))
	for _, r := range rows {
		a = append(a, key(r))
	}
	for _, r := range scanned {
		b = append(b, key(r))
	}
	slices.Sort(a)
	slices.Sort(b)
	if !slices.Equal(a, b) {
		t.Fatalf("%s: the archive read %d rows, iceberg-go's scan %d, not the same", tb.Identifier(), len(a), len(b))
	}
}

// countRows counts the rows of a table at the snapshot with iceberg-go's
// own scan (the independent reader; the archive reads with its own).
func countRows(t testing.TB, s *Snapshot, tbl string) int {
	t.Helper()
	var n int
	var err error
	ctx := context.Background()
	switch tbl {
	case archive.TableMeasurements:
		var rows []schema.Measurement
		rows, err = scanRows[schema.Measurement](ctx, s.meas, s.meas.CurrentSnapshot().SnapshotID, nil, []string{"run_id"})
		n = len(rows)
	case archive.TableSamples:
		if s.samps.CurrentSnapshot() == nil {
			return 0
		}
		var rows []schema.Sample
		rows, err = scanRows[schema.Sample](ctx, s.samps, s.samps.CurrentSnapshot().SnapshotID, nil, []string{"run_id"})
		n = len(rows)
	default:
		var rows []schema.Run
		rows, err = scanRows[schema.Run](ctx, s.runs, s.runs.CurrentSnapshot().SnapshotID, nil, []string{"run_id"})
		n = len(rows)
	}
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func outcomes(res archive.Result) map[archive.Outcome]int {
	out := map[archive.Outcome]int{}
	for _, it := range res.Items {
		out[it.Outcome]++
	}
	return out
}

// TestSQLiteAppendReadBack writes runs into a SQLite catalog with a local
// warehouse, reads them back through iceberg-go's scan, appends the
// same runs again (nothing added, no new snapshot), then more.
func TestSQLiteAppendReadBack(t *testing.T) {
	a := openRef(t, sqliteRef(t))
	ctx := context.Background()
	first := testMatrices(0, 5)
	res, err := a.Append(ctx, append(first, first[0])) // an id twice in one call
	if err != nil {
		t.Fatal(err)
	}
	if o := outcomes(res); o[archive.Added] != 5 || o[archive.Duplicate] != 1 || len(res.Files) != 3 {
		t.Fatalf("first append: %v, files %v", o, res.Files)
	}
	s := checkHolds(t, a, first)
	before := s.SnapshotIDs()

	res, err = a.Append(ctx, first)
	if err != nil {
		t.Fatal(err)
	}
	if o := outcomes(res); o[archive.Added] != 0 || len(res.Files) != 0 {
		t.Fatalf("second append of the same runs: %v, files %v", o, res.Files)
	}
	s = checkHolds(t, a, first)
	if after := s.SnapshotIDs(); !reflect.DeepEqual(after, before) {
		t.Fatalf("an append of held runs made snapshots: %v → %v", before, after)
	}

	more := testMatrices(3, 8) // 3, 4 held; 5, 6, 7 new
	res, err = a.Append(ctx, more)
	if err != nil {
		t.Fatal(err)
	}
	if o := outcomes(res); o[archive.Added] != 3 || o[archive.Duplicate] != 2 {
		t.Fatalf("third append: %v", o)
	}
	s = checkHolds(t, a, testMatrices(0, 8))
	list, err := s.List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 8 || list[0].Model != "Model-0" || list[7].Cells == nil || *list[7].Cells != 5 {
		t.Fatalf("List: %d rows, first %+v", len(list), list[0])
	}
	if _, err := s.Load(ctx, "0000000000000000"); err == nil || !strings.Contains(err.Error(), archive.ErrNotFound.Error()) {
		t.Fatalf("Load of an unknown id: %v", err)
	}
}

// TestOpenMissing: a reader of a reference that holds no tables gets a
// one-line error naming the reference, and nothing is made.
func TestOpenMissing(t *testing.T) {
	ref := sqliteRef(t)
	_, err := Open(context.Background(), ref, Options{})
	if err == nil || !strings.Contains(err.Error(), "no catalog file") || strings.Contains(err.Error(), "\n") {
		t.Fatalf("Open of a missing catalog: %v", err)
	}
	if _, serr := os.Stat(ref.Path); serr == nil {
		t.Fatal("a reader made the catalog file")
	}
}

// TestConflictRetried makes two writers commit at once, deterministically:
// writer A reads the tables, then waits before its measurements commit
// until writer B has appended the same runs and more. A's commit is
// refused (the head moved), A reads again, finds every run held, and adds
// nothing: each run once in every table.
func TestConflictRetried(t *testing.T) {
	ref := sqliteRef(t)
	a, b := openRef(t, ref), openRef(t, ref)
	ctx := context.Background()
	ms := testMatrices(0, 4)
	var once sync.Once
	a.beforeCommit = func(tbl string) {
		once.Do(func() {
			res, err := b.Append(ctx, testMatrices(0, 6))
			if err != nil || outcomes(res)[archive.Added] != 6 {
				t.Errorf("writer B: %v %v", outcomes(res), err)
			}
		})
	}
	res, err := a.Append(ctx, ms)
	if err != nil {
		t.Fatal(err)
	}
	if o := outcomes(res); o[archive.Added] != 0 || len(res.Files) != 0 {
		t.Fatalf("writer A after losing the race: %v, files %v", o, res.Files)
	}
	if a.conflicts.Load() != 1 {
		t.Fatalf("%d conflicts, want 1", a.conflicts.Load())
	}
	checkHolds(t, a, testMatrices(0, 6))
	// A's refused data file was removed: the warehouse holds only B's.
	files := warehouseFiles(t, ref)
	if len(files) != 3 {
		t.Fatalf("warehouse data files %v, want B's three", files)
	}
}

// TestConcurrentWriters runs four writers at once on overlapping sets of
// runs: every run ends up once in every table, and each is reported
// added by exactly one writer.
func TestConcurrentWriters(t *testing.T) {
	ref := sqliteRef(t)
	ctx := context.Background()
	const writers = 4
	results := make([]archive.Result, writers)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for w := range writers {
		a := openRef(t, ref)
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			var err error
			results[w], err = a.Append(ctx, testMatrices(w*2, w*2+6)) // overlaps the next two writers
			if err != nil {
				t.Error(err)
			}
		}()
	}
	close(start)
	wg.Wait()
	added := map[string]int{}
	for _, r := range results {
		for _, it := range r.Items {
			if it.Outcome == archive.Added {
				added[it.RunID]++
			}
		}
	}
	all := testMatrices(0, writers*2+4)
	for _, m := range all {
		if added[m.Run.RunID] != 1 {
			t.Errorf("run %s reported added %d times", m.Run.RunID, added[m.Run.RunID])
		}
	}
	checkHolds(t, openRef(t, ref), all)
}

// warehouseFiles lists the Parquet data files under a local warehouse.
func warehouseFiles(t testing.TB, ref Ref) []string {
	var out []string
	root := strings.TrimPrefix(ref.Warehouse, "file://")
	filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err == nil && strings.HasSuffix(p, ".parquet") && strings.Contains(p, "/data/") {
			out = append(out, p)
		}
		return nil
	})
	sort.Strings(out)
	return out
}

// TestDuckDBReadsManifestFiles reads the data files the manifests list
// with DuckDB (read_parquet, as an engine without Iceberg support would)
// and checks the rows against iceberg-go's scan.
func TestDuckDBReadsManifestFiles(t *testing.T) {
	node, script := testtool.DuckDBQuery(t)
	ref := sqliteRef(t)
	a := openRef(t, ref)
	ctx := context.Background()
	for _, batch := range [][]*schema.Matrix{testMatrices(0, 3), testMatrices(3, 5)} {
		if _, err := a.Append(ctx, batch); err != nil {
			t.Fatal(err)
		}
	}
	s := checkHolds(t, a, testMatrices(0, 5))
	ms, err := s.Load(ctx, runIDs(testMatrices(0, 5))...)
	if err != nil {
		t.Fatal(err)
	}
	type row struct {
		RunID  string   `json:"run_id"`
		Phase  string   `json:"phase"`
		Conc   *int32   `json:"concurrency"`
		TokS   *float64 `json:"total_tok_s"`
		Status string   `json:"status"`
	}
	var want []row
	for _, m := range ms {
		for _, x := range m.Measurements {
			want = append(want, row{x.RunID, string(x.Phase), x.Concurrency, x.TotalTokS, string(x.Status)})
		}
	}
	files, err := s.DataFiles(ctx, archive.TableMeasurements)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 2 {
		t.Fatalf("measurements data files %v, want 2", files)
	}
	var quoted []string
	for _, f := range files {
		quoted = append(quoted, "'"+strings.TrimPrefix(f, "file://")+"'")
	}
	sql := "SELECT run_id, phase, concurrency, total_tok_s, status FROM read_parquet([" + strings.Join(quoted, ", ") +
		"], union_by_name=true) ORDER BY run_id, source_line, concurrency"
	out, err := exec.Command(node, script, sql).Output()
	if err != nil {
		t.Fatalf("duckdb: %v", err)
	}
	var got []row
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	sort.SliceStable(want, func(i, j int) bool { return want[i].RunID < want[j].RunID })
	if !reflect.DeepEqual(got, want) {
		g, _ := json.Marshal(got)
		w, _ := json.Marshal(want)
		t.Fatalf("DuckDB rows differ from iceberg-go's:\n duckdb  %s\n iceberg %s", g, w)
	}
}

func runIDs(ms []*schema.Matrix) []string {
	var out []string
	for _, m := range ms {
		out = append(out, m.Run.RunID)
	}
	return out
}

// TestPush publishes a local directory archive into a table that holds
// some of its runs: the others are added, once; a second push adds none.
func TestPush(t *testing.T) {
	ctx := context.Background()
	local, err := archive.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := local.Append(ctx, testMatrices(0, 6)); err != nil {
		t.Fatal(err)
	}
	a := openRef(t, sqliteRef(t))
	if _, err := a.Append(ctx, testMatrices(4, 7)); err != nil {
		t.Fatal(err)
	}
	res, err := a.Push(ctx, local)
	if err != nil {
		t.Fatal(err)
	}
	if o := outcomes(res); o[archive.Added] != 4 || o[archive.Duplicate] != 2 {
		t.Fatalf("push: %v", o)
	}
	res, err = a.Push(ctx, local)
	if err != nil {
		t.Fatal(err)
	}
	if o := outcomes(res); o[archive.Added] != 0 || o[archive.Duplicate] != 6 {
		t.Fatalf("second push: %v", o)
	}
	checkHolds(t, a, testMatrices(0, 7))
}
