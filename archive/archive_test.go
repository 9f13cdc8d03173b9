package archive

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"speedmatrix/internal/testtool"
	"speedmatrix/schema"
)

// testMatrix returns a small matrix, distinct for each i: one prefill row,
// a few decode rows (one over capacity, all nulls), and samples when i is
// odd.
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

// stored returns m as Load returns it: rows carry the run id.
func stored(m *schema.Matrix) *schema.Matrix {
	c := *m
	if c.Run.Cells == nil { // the archive counts them on write
		n := countCells(m.Measurements)
		c.Run.Cells = &n
	}
	c.Measurements = append([]schema.Measurement{}, m.Measurements...)
	for i := range c.Measurements {
		c.Measurements[i].RunID = m.Run.RunID
	}
	c.Samples = nil
	for _, s := range m.Samples {
		s.RunID = m.Run.RunID
		c.Samples = append(c.Samples, s)
	}
	return &c
}

// treeHash returns path → SHA-256 of every file under dir.
func treeHash(t testing.TB, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || d.Type()&fs.ModeSymlink != 0 {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		sum := sha256.Sum256(b)
		out[strings.TrimPrefix(p, dir)] = hex.EncodeToString(sum[:])
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func dataFiles(t testing.TB, dir, table string) []string {
	t.Helper()
	m, err := filepath.Glob(filepath.Join(dir, table, "*.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func openTest(t testing.TB) *Archive {
	t.Helper()
	a, err := Open(filepath.Join(t.TempDir(), "archive"))
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func TestAppendDuplicate(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name     string
		first    []*schema.Matrix
		second   []*schema.Matrix
		outcomes []Outcome
	}{
		{"same documents again", testMatrices(0, 3), testMatrices(0, 3), []Outcome{Duplicate, Duplicate, Duplicate}},
		{"twice in one call", nil, []*schema.Matrix{testMatrix(5), testMatrix(5)}, []Outcome{Added, Duplicate}},
		{"mixed", testMatrices(0, 2), testMatrices(1, 3), []Outcome{Duplicate, Added}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := openTest(t)
			if len(tt.first) > 0 {
				if _, err := a.Append(ctx, tt.first); err != nil {
					t.Fatal(err)
				}
			}
			before := treeHash(t, a.Dir())
			// A fresh Archive (as a new process) must dedupe from disk.
			b, err := Open(a.Dir())
			if err != nil {
				t.Fatal(err)
			}
			res, err := b.Append(ctx, tt.second)
			if err != nil {
				t.Fatal(err)
			}
			var got []Outcome
			for _, it := range res.Items {
				got = append(got, it.Outcome)
			}
			if !reflect.DeepEqual(got, tt.outcomes) {
				t.Fatalf("outcomes %v, want %v", got, tt.outcomes)
			}
			if res.Added() == 0 && !reflect.DeepEqual(treeHash(t, a.Dir()), before) {
				t.Fatal("an all-duplicate append changed the archive")
			}
			runs, err := b.Runs(ctx)
			if err != nil {
				t.Fatal(err)
			}
			checkUnique(t, runs, len(unique(tt.first, tt.second)))
		})
	}
}

func unique(lists ...[]*schema.Matrix) map[string]bool {
	out := map[string]bool{}
	for _, l := range lists {
		for _, m := range l {
			out[m.Run.RunID] = true
		}
	}
	return out
}

// checkUnique fails unless runs holds n distinct run ids, each once.
func checkUnique(t testing.TB, runs []schema.Run, n int) {
	t.Helper()
	seen := map[string]bool{}
	for _, r := range runs {
		if seen[r.RunID] {
			t.Fatalf("run %s stored twice", r.RunID)
		}
		seen[r.RunID] = true
	}
	if len(seen) != n {
		t.Fatalf("%d runs, want %d", len(seen), n)
	}
}

func TestAppendRejectsForeignRows(t *testing.T) {
	a := openTest(t)
	m := testMatrix(1)
	m.Measurements[2].RunID = "ffffffffffffffff"
	if _, err := a.Append(context.Background(), []*schema.Matrix{m}); err == nil || !strings.Contains(err.Error(), "measurement 2") {
		t.Fatalf("err = %v, want an error naming measurement 2", err)
	}
	if n := len(dataFiles(t, a.Dir(), TableRuns)); n != 0 {
		t.Fatalf("%d runs files written", n)
	}
}

// TestConcurrentAppendGoroutines appends overlapping batches from several
// goroutines, each with its own Archive value, and from one shared value.
func TestConcurrentAppendGoroutines(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "archive")
	shared, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	const workers, batches = 6, 4
	var wg sync.WaitGroup
	added := make([]int, workers)
	errs := make(chan error, workers)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			a := shared
			if w%2 == 0 {
				var err error
				if a, err = Open(dir); err != nil {
					errs <- err
					return
				}
			}
			for b := 0; b < batches; b++ {
				// Workers overlap: worker w's batch b covers [b*3+w%3, +5).
				res, err := a.Append(ctx, testMatrices(b*3+w%3, b*3+w%3+5))
				if err != nil {
					errs <- err
					return
				}
				added[w] += res.Added()
			}
		}(w)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	want := unique()
	for w := 0; w < workers; w++ {
		for b := 0; b < batches; b++ {
			for i := b*3 + w%3; i < b*3+w%3+5; i++ {
				want[testMatrix(i).Run.RunID] = true
			}
		}
	}
	total := 0
	for _, n := range added {
		total += n
	}
	if total != len(want) {
		t.Fatalf("appends reported %d added, want %d", total, len(want))
	}
	checkArchive(t, dir, len(want))
}

// checkArchive fails unless the archive at dir holds n runs, each once,
// with all their measurements.
func checkArchive(t testing.TB, dir string, n int) {
	t.Helper()
	a, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	ms, err := a.Load(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	runs := make([]schema.Run, len(ms))
	for i, m := range ms {
		runs[i] = m.Run
		if len(m.Measurements) != 5 {
			t.Fatalf("run %s has %d measurements, want 5", m.Run.RunID, len(m.Measurements))
		}
	}
	checkUnique(t, runs, n)
}

// helperEnv makes the test binary act as an appending process.
const helperEnv = "ARCHIVE_TEST_APPEND"

// TestHelperAppend is not a test: run with ARCHIVE_TEST_APPEND=dir,from,to,
// it appends testMatrices(from, to) one at a time and prints how many it
// added. TestConcurrentAppendProcesses runs it in several processes.
func TestHelperAppend(t *testing.T) {
	spec := os.Getenv(helperEnv)
	if spec == "" {
		return
	}
	parts := strings.Split(spec, ",")
	from, _ := strconv.Atoi(parts[1])
	to, _ := strconv.Atoi(parts[2])
	a, err := Open(parts[0])
	if err != nil {
		t.Fatal(err)
	}
	added := 0
	for i := from; i < to; i++ {
		res, err := a.Append(context.Background(), []*schema.Matrix{testMatrix(i)})
		if err != nil {
			t.Fatal(err)
		}
		added += res.Added()
	}
	fmt.Printf("added=%d\n", added)
}

func TestConcurrentAppendProcesses(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "archive")
	const procs = 4
	ranges := [procs][2]int{{0, 12}, {6, 18}, {0, 18}, {10, 20}}
	cmds := make([]*exec.Cmd, procs)
	outs := make([]strings.Builder, procs)
	for p := range cmds {
		cmds[p] = exec.Command(os.Args[0], "-test.run=^TestHelperAppend$", "-test.count=1")
		cmds[p].Env = append(os.Environ(), fmt.Sprintf("%s=%s,%d,%d", helperEnv, dir, ranges[p][0], ranges[p][1]))
		cmds[p].Stdout = &outs[p]
		cmds[p].Stderr = &outs[p]
		if err := cmds[p].Start(); err != nil {
			t.Fatal(err)
		}
	}
	total := 0
	for p, c := range cmds {
		if err := c.Wait(); err != nil {
			t.Fatalf("process %d: %v\n%s", p, err, outs[p].String())
		}
		var n int
		if _, err := fmt.Sscanf(outs[p].String(), "added=%d", &n); err != nil {
			t.Fatalf("process %d output %q: %v", p, outs[p].String(), err)
		}
		total += n
	}
	if total != 20 {
		t.Fatalf("processes added %d runs in all, want 20", total)
	}
	checkArchive(t, dir, 20)
	// Each single-document append committed one runs file.
	if n := len(dataFiles(t, dir, TableRuns)); n != 20 {
		t.Fatalf("%d runs files, want 20", n)
	}
}

// TestMergeByCopy copies the files of two archives holding an overlapping
// run into one directory: the run is read once.
func TestMergeByCopy(t *testing.T) {
	ctx := context.Background()
	x, y := openTest(t), openTest(t)
	if _, err := x.Append(ctx, testMatrices(0, 3)); err != nil {
		t.Fatal(err)
	}
	if _, err := y.Append(ctx, testMatrices(2, 5)); err != nil {
		t.Fatal(err)
	}
	merged := mergeByCopy(t, x, y)
	checkArchive(t, merged.Dir(), 5)
	// Run 2 is in both copies: loading it by id gives it once, with its
	// rows once.
	two, err := merged.Load(ctx, testMatrix(2).Run.RunID)
	if err != nil {
		t.Fatal(err)
	}
	if len(two) != 1 || !reflect.DeepEqual(two[0], stored(testMatrix(2))) {
		t.Fatalf("Load(run 2) from a merged archive: %d matrices, %+v", len(two), two)
	}
	if err := merged.Compact(ctx); err != nil {
		t.Fatal(err)
	}
	checkArchive(t, merged.Dir(), 5)
}

// mergeByCopy copies the data files of the archives into a new one, each
// source's into its own subdirectory of each table (host-0, host-1, …), as
// a user merging archives of several hosts would.
func mergeByCopy(t *testing.T, srcs ...*Archive) *Archive {
	t.Helper()
	merged := openTest(t)
	for k, src := range srcs {
		for _, table := range Tables {
			for _, p := range dataFiles(t, src.Dir(), table) {
				b, err := os.ReadFile(p)
				if err != nil {
					t.Fatal(err)
				}
				sub := filepath.Join(merged.Dir(), table, fmt.Sprintf("host-%d", k))
				os.MkdirAll(sub, 0o755)
				if err := os.WriteFile(filepath.Join(sub, filepath.Base(p)), b, 0o644); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	return merged
}

// TestRecover simulates crashes between the renames of a transaction.
func TestRecover(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name string
		// crash leaves a half-done transaction in a (which holds runs 0–1
		// committed) and returns the run count expected afterwards.
		crash func(t *testing.T, a *Archive) int
	}{
		{"append crashed before its runs rename", func(t *testing.T, a *Archive) int {
			stem := newStem(time.Now())
			writeJournal(t, a, journal{Stem: stem})
			writeData(t, filepath.Join(a.Dir(), TableMeasurements, stem+dataExt), testMatrix(7).Measurements)
			writeData(t, filepath.Join(a.Dir(), TableRuns, tempPrefix+stem+tempExt), []schema.Run{testMatrix(7).Run})
			return 2
		}},
		{"compaction crashed before deleting the old files", func(t *testing.T, a *Archive) int {
			l, err := scan(a.Dir())
			if err != nil {
				t.Fatal(err)
			}
			old := l.committed()
			ms, err := a.Load(ctx)
			if err != nil {
				t.Fatal(err)
			}
			stem := newStem(time.Now())
			writeJournal(t, a, journal{Stem: stem, Replaces: old})
			var runs []schema.Run
			var rows []schema.Measurement
			for _, m := range ms {
				runs = append(runs, m.Run)
				rows = append(rows, m.Measurements...)
			}
			writeData(t, filepath.Join(a.Dir(), TableMeasurements, stem+dataExt), rows)
			writeData(t, filepath.Join(a.Dir(), TableRuns, stem+dataExt), runs)
			return 2
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := openTest(t)
			if _, err := a.Append(ctx, testMatrices(0, 1)); err != nil {
				t.Fatal(err)
			}
			if _, err := a.Append(ctx, testMatrices(1, 2)); err != nil {
				t.Fatal(err)
			}
			n := tt.crash(t, a)
			// Readers see a consistent archive before recovery...
			checkArchive(t, a.Dir(), n)
			// ...and the next writer cleans up.
			fresh, err := Open(a.Dir())
			if err != nil {
				t.Fatal(err)
			}
			res, err := fresh.Append(ctx, testMatrices(0, 2))
			if err != nil {
				t.Fatal(err)
			}
			if res.Added() != 0 {
				t.Fatalf("re-append added %d", res.Added())
			}
			checkArchive(t, a.Dir(), n)
			var left []string
			filepath.WalkDir(a.Dir(), func(p string, d fs.DirEntry, err error) error {
				if err == nil && strings.HasPrefix(d.Name(), ".") && d.Name() != lockName && d.Name() != holdersDir {
					left = append(left, p)
				}
				return nil
			})
			if len(left) > 0 {
				t.Fatalf("left after recovery: %v", left)
			}
			runsFiles, measFiles := len(dataFiles(t, a.Dir(), TableRuns)), len(dataFiles(t, a.Dir(), TableMeasurements))
			if runsFiles != measFiles {
				t.Fatalf("%d runs files but %d measurements files after recovery", runsFiles, measFiles)
			}
		})
	}
}

func writeJournal(t *testing.T, a *Archive, j journal) {
	t.Helper()
	b, _ := json.Marshal(j)
	if err := os.WriteFile(filepath.Join(a.Dir(), journalPrefix+j.Stem+journalExt), b, 0o644); err != nil {
		t.Fatal(err)
	}
}

func writeData[T Row](t *testing.T, path string, rows []T) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(f, rows); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// duckdb runs one query with DuckDB and decodes its rows.
func duckdb(t *testing.T, sql string) []map[string]any {
	t.Helper()
	node, script := testtool.DuckDBQuery(t)
	out, err := exec.Command(node, script, sql).Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			t.Fatalf("duckdb: %v\n%s", err, ee.Stderr)
		}
		t.Fatal(err)
	}
	var rows []map[string]any
	if err := json.Unmarshal(out, &rows); err != nil {
		t.Fatalf("duckdb output %q: %v", out, err)
	}
	return rows
}

// TestDuckDBReadsArchive reads an archive of several appends (one
// compacted, one not) with DuckDB as a user would.
func TestDuckDBReadsArchive(t *testing.T) {
	ctx := context.Background()
	a := openTest(t)
	if _, err := a.Append(ctx, testMatrices(0, 3)); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Append(ctx, testMatrices(3, 5)); err != nil {
		t.Fatal(err)
	}
	d := a.Dir()
	tests := []struct {
		name, sql, want string
	}{
		{"runs", fmt.Sprintf(`SELECT count(*) AS n, count(DISTINCT run_id) AS ids, min(vram_gb) AS vram,
			min(schema_version) AS v, min(ingested_at)::VARCHAR AS first,
			min(len(launch_flags)) AS flags, min(launch_flags[1].key) AS k, min(metadata[1].section) AS s
			FROM read_parquet('%s/runs/**/*.parquet', union_by_name=true)`, d),
			`[{"first":"2026-12-01 00:00:00+00","flags":"2","ids":"5","k":"--max-model-len","n":"5","s":"Hardware","v":1,"vram":96}]`},
		{"measurements", fmt.Sprintf(`SELECT phase, status, count(*) AS n, count(total_tok_s) AS tok,
			sum(concurrency) AS c FROM read_parquet('%s/measurements/**/*.parquet', union_by_name=true)
			GROUP BY ALL ORDER BY ALL`, d),
			`[{"c":"640","n":"5","phase":"decode","status":"over_capacity","tok":"0"},{"c":"35","n":"15","phase":"decode","status":"valid","tok":"15"},{"c":"5","n":"5","phase":"prefill","status":"valid","tok":"5"}]`},
		{"join", fmt.Sprintf(`SELECT r.model, m.total_tok_s FROM read_parquet('%[1]s/runs/*.parquet') r
			JOIN read_parquet('%[1]s/measurements/*.parquet') m USING (run_id)
			WHERE m.concurrency = 4 ORDER BY r.model`, d),
			`[{"model":"Model-0","total_tok_s":402},{"model":"Model-1","total_tok_s":403},{"model":"Model-2","total_tok_s":404},{"model":"Model-3","total_tok_s":405},{"model":"Model-4","total_tok_s":406}]`},
		{"samples", fmt.Sprintf(`SELECT count(*) AS n, sum(in_window::INT) AS w FROM read_parquet('%s/samples/*.parquet')`, d),
			`[{"n":"6","w":"4"}]`},
		{"key/value metadata", fmt.Sprintf(`SELECT DISTINCT decode(key) AS k, decode(value) AS v
			FROM parquet_kv_metadata('%s/*/*.parquet') WHERE decode(key) IN ('schema_version', 'speedmatrix.columns_doc') ORDER BY k`, d),
			`[{"k":"schema_version","v":"1"},{"k":"speedmatrix.columns_doc","v":"` + ColumnDoc + `"}]`},
		{"compression", fmt.Sprintf(`SELECT DISTINCT compression FROM parquet_metadata('%s/*/*.parquet')`, d),
			`[{"compression":"ZSTD"}]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rows := duckdb(t, tt.sql)
			got, _ := json.Marshal(rows)
			if string(got) != tt.want {
				t.Fatalf("got  %s\nwant %s", got, tt.want)
			}
		})
	}
	// The temp-name rule: a file DuckDB's glob must not see.
	tmp := filepath.Join(d, TableRuns, tempPrefix+"x"+tempExt)
	if err := os.WriteFile(tmp, []byte("not parquet"), 0o644); err != nil {
		t.Fatal(err)
	}
	rows := duckdb(t, fmt.Sprintf(`SELECT count(*) AS n FROM read_parquet('%s/runs/**/*.parquet', union_by_name=true)`, d))
	if fmt.Sprint(rows[0]["n"]) != "5" {
		t.Fatalf("with a temp file present DuckDB counted %v runs", rows[0]["n"])
	}
}
