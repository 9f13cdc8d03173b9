package ingestcmd

import (
	"bytes"
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
	"regexp"
	"strings"
	"testing"

	"speedmatrix/archive"
	"speedmatrix/ingest"
	"speedmatrix/internal/testtool"
	"speedmatrix/schema"
)

// mainEnv makes the test binary act as the ingest command, so the
// multi-process test needs no separate build.
const mainEnv = "INGEST_TEST_MAIN"

func TestMain(m *testing.M) {
	if os.Getenv(mainEnv) == "1" {
		os.Exit(Main(context.Background(), os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

// runIngest runs the command in-process.
func runIngest(t testing.TB, stdin string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var o, e bytes.Buffer
	code = run(context.Background(), args, strings.NewReader(stdin), &o, &e)
	return code, o.String(), e.String()
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
		out[p] = hex.EncodeToString(sum[:])
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

var lineRE = regexp.MustCompile(`^([0-9a-f]{16}|-)\t([^\t]+)\t(\d+) rows\t(added|duplicate|reread|dropped|error)$`)

type line struct{ id, title, rows, outcome string }

// lines parses and checks the stdout of ingest.
func lines(t testing.TB, stdout string) []line {
	t.Helper()
	var out []line
	for _, l := range strings.Split(strings.TrimSuffix(stdout, "\n"), "\n") {
		if l == "" {
			continue
		}
		m := lineRE.FindStringSubmatch(l)
		if m == nil {
			t.Fatalf("malformed output line %q", l)
		}
		out = append(out, line{m[1], m[2], m[3], m[4]})
	}
	return out
}

func TestIngestSeeds(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "archive")
	seeds := testtool.SeedPaths(t)
	code, out, errOut := runIngest(t, "", append([]string{"-archive", dir}, seeds...)...)
	if code != 0 || errOut != "created archive at "+dir+"\n" {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	want := []line{
		{"", "Ling-3.0-tiny-int4 on RTX PRO 6000 Blackwell Server Edition 96GB", "46", "added"},
		{"", "Ling-3.0-tiny on H200 NVL 141GB", "46", "added"},
	}
	got := lines(t, out)
	if len(got) != 2 {
		t.Fatalf("%d lines, want 2:\n%s", len(got), out)
	}
	for i := range want {
		want[i].id = got[i].id
		if got[i] != want[i] {
			t.Errorf("line %d: got %+v, want %+v", i, got[i], want[i])
		}
	}
	before := treeHash(t, dir)

	// The same bytes again, also through stdin: duplicates, nothing written.
	code, out, errOut = runIngest(t, testtool.ReadSeed(t, 1), "-archive", dir, seeds[0], "-")
	if code != 0 || errOut != "" {
		t.Fatalf("re-ingest: exit %d, stderr %q", code, errOut)
	}
	again := lines(t, out)
	if len(again) != 2 || again[0].id != got[0].id || again[1].id != got[1].id ||
		again[0].outcome != "duplicate" || again[1].outcome != "duplicate" {
		t.Fatalf("re-ingest printed\n%s", out)
	}
	if !reflect.DeepEqual(treeHash(t, dir), before) {
		t.Fatal("re-ingesting the same documents changed the archive")
	}

	a, err := archive.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	ms, err := a.Load(context.Background(), got[0].id)
	if err != nil {
		t.Fatal(err)
	}
	r := ms[0].Run
	if r.IngestedAt.IsZero() || r.IngestedAt.Nanosecond()%1000 != 0 || r.IngestedAt.Location().String() != "UTC" {
		t.Errorf("ingested_at %v: want a UTC time at µs precision", r.IngestedAt)
	}
	if r.SourcePath != seeds[0] || r.SourceFormat != schema.FormatText || len(ms[0].Measurements) != 46 {
		t.Errorf("run %+v with %d rows", r, len(ms[0].Measurements))
	}
}

// badDocs are documents that must be rejected with a positioned error.
func badDocs(t testing.TB) []struct{ name, content, errRE string } {
	s := testtool.ReadSeed(t, 0)
	mustReplace := func(old, new string) string {
		if !strings.Contains(s, old) {
			t.Fatalf("seed 000 lacks %q", old)
		}
		return strings.Replace(s, old, new, 1)
	}
	dupRow := "| Sustained decode | 8K | 2 | Valid | 538.8 | 270.8 | 69 ms | 3.7 ms | 2.0 | 4 | 16,164 | 30.0 s |\n"
	return []struct{ name, content, errRE string }{
		{"empty.txt", "", `^%s: .+`},
		{"blank.txt", "\n \n\t\n", `^%s: .+`},
		{"binary.bin", "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00", `^%s(:\d+)?: .+`},
		{"prose.txt", "Minutes of the meeting\n\nNothing was measured.\n", `^%s(:\d+)?: .+`},
		{"truncated.txt", s[:len(s)/3], `^%s(:\d+)?: .+`},
		{"garbled.txt", mustReplace("| 6,091.1 | 47.4 |", "| 6,0x1.1 | 47.4 |"), `^%s:\d+: .+`},
		{"duprow.txt", mustReplace(dupRow, dupRow+dupRow), `^%s:\d+: .+`},
		{"disagree.txt", mustReplace("325.241 ms TTFT", "335.241 ms TTFT"), `^%s:\d+: .+`},
	}
}

// TestBadDocuments checks that each bad document exits 1 with a
// positioned error, leaves the archive byte-identical on its own, and does
// not keep a good document of the same batch out.
func TestBadDocuments(t *testing.T) {
	for _, bd := range badDocs(t) {
		t.Run(bd.name, func(t *testing.T) {
			tmp := t.TempDir()
			dir := filepath.Join(tmp, "archive")
			good := testtool.WriteFiles(t, tmp, []string{"good.txt", "other.txt"},
				map[string]string{"good.txt": testtool.ReadSeed(t, 1), "other.txt": testtool.ReadSeed(t, 0)})
			bad := testtool.WriteFiles(t, tmp, []string{bd.name}, map[string]string{bd.name: bd.content})[0]
			if code, _, e := runIngest(t, "", "-archive", dir, good[0]); code != 0 {
				t.Fatalf("good document: exit %d: %s", code, e)
			}
			before := treeHash(t, dir)

			code, out, errOut := runIngest(t, "", "-archive", dir, bad)
			if code != 1 {
				t.Fatalf("exit %d, want 1", code)
			}
			if !regexp.MustCompile(fmt.Sprintf(bd.errRE, regexp.QuoteMeta(bad))).MatchString(errOut) {
				t.Fatalf("stderr %q does not match %s", errOut, bd.errRE)
			}
			if got := lines(t, out); len(got) != 1 || got[0] != (line{"-", bad, "0", "error"}) {
				t.Fatalf("stdout %q", out)
			}
			if !reflect.DeepEqual(treeHash(t, dir), before) {
				t.Fatal("a bad document changed the archive")
			}

			// In a batch: reported and skipped, the others land.
			code, out, errOut = runIngest(t, "", "-archive", dir, good[0], bad, good[1])
			if code != 1 {
				t.Fatalf("batch: exit %d, want 1", code)
			}
			got := lines(t, out)
			if len(got) != 3 || got[0].outcome != "duplicate" || got[1].outcome != "error" || got[2].outcome != "added" {
				t.Fatalf("batch printed\n%s\nstderr %s", out, errOut)
			}
			t.Logf("%s", strings.TrimSpace(errOut))
		})
	}
}

func TestUsage(t *testing.T) {
	seed := testtool.SeedPaths(t)[0]
	tests := []struct {
		name string
		args []string
		code int
		err  string
	}{
		{"no files", []string{"-archive", "x"}, 2, "usage: speedmatrix ingest"},
		{"unknown flag", []string{"-frobnicate", seed}, 2, "unknown flag -frobnicate"},
		{"bad format", []string{"-format", "pdf", seed}, 2, `-format "pdf"`},
		{"json with compact", []string{"-json", "-compact", seed}, 2, "-json"},
		{"help", []string{"-h"}, 0, "usage: speedmatrix ingest"},
		{"missing file", []string{"-json", filepath.Join(t.TempDir(), "nope.txt")}, 1, "no such file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _, errOut := runIngest(t, "", tt.args...)
			if code != tt.code || !strings.Contains(errOut, tt.err) {
				t.Fatalf("exit %d, stderr %q; want %d and %q", code, errOut, tt.code, tt.err)
			}
		})
	}
}

func TestJSON(t *testing.T) {
	tmp := t.TempDir()
	seeds := testtool.SeedPaths(t)
	bad := testtool.WriteFiles(t, tmp, []string{"bad.txt"}, map[string]string{"bad.txt": ""})[0]
	code, out, errOut := runIngest(t, testtool.ReadSeed(t, 1), "-json", "-archive", filepath.Join(tmp, "archive"), seeds[0], bad, "-")
	if code != 1 || !strings.HasPrefix(errOut, bad+": ") {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	var ms []*schema.Matrix
	if err := json.Unmarshal([]byte(out), &ms); err != nil {
		t.Fatalf("stdout is not a JSON array of matrices: %v", err)
	}
	if len(ms) != 2 || ms[0].Run.SourcePath != seeds[0] || ms[1].Run.SourcePath != ingest.StdinName {
		t.Fatalf("got %d matrices", len(ms))
	}
	for _, m := range ms {
		if m.Run.RunID != schema.ComputeRunID(m) || len(m.Measurements) != 46 {
			t.Errorf("%s: run id %s, %d rows", m.Run.SourcePath, m.Run.RunID, len(m.Measurements))
		}
	}
	if _, err := os.Stat(filepath.Join(tmp, "archive")); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("-json created the archive: %v", err)
	}
}

func TestJSONSafe(t *testing.T) {
	inf := 1.0 / zero()
	m := &schema.Matrix{
		Run:          schema.Run{VRAMGB: schema.F64(inf)},
		Measurements: []schema.Measurement{{RequestRate: schema.F64(inf), TTFTMs: schema.F64(3), Extra: []schema.Metric{{Name: "x", Value: -inf}}}},
	}
	var warned []string
	c := jsonSafe(m, func(f string, v float64) { warned = append(warned, fmt.Sprintf("%s=%v", f, v)) })
	want := []string{"measurements[0].RequestRate=+Inf", "measurements[0].Extra[0].Value=-Inf", "run.VRAMGB=+Inf"}
	if !reflect.DeepEqual(warned, want) {
		t.Fatalf("warned %v, want %v", warned, want)
	}
	if _, err := json.Marshal(c); err != nil {
		t.Fatal(err)
	}
	if *m.Measurements[0].RequestRate != inf || m.Measurements[0].Extra[0].Value != -inf || *m.Run.VRAMGB != inf {
		t.Fatal("jsonSafe modified its argument")
	}
	if c.Measurements[0].RequestRate != nil || *c.Measurements[0].TTFTMs != 3 {
		t.Fatal("jsonSafe changed the wrong fields")
	}
}

func zero() float64 { return 0 }

func TestCompactFlag(t *testing.T) {
	tmp := t.TempDir()
	dir := filepath.Join(tmp, "archive")
	seed := testtool.ReadSeed(t, 0)
	for i := 0; i < 3; i++ {
		p := testtool.WriteFiles(t, tmp, []string{fmt.Sprint(i)}, map[string]string{fmt.Sprint(i): testtool.SeedVariant(seed, i)})
		if code, _, e := runIngest(t, "", "-archive", dir, p[0]); code != 0 {
			t.Fatal(e)
		}
	}
	if n := countFiles(t, dir, "runs"); n != 3 {
		t.Fatalf("%d runs files before -compact", n)
	}
	if code, _, e := runIngest(t, "", "-archive", dir, "-compact"); code != 0 {
		t.Fatal(e)
	}
	for _, table := range []string{"runs", "measurements"} {
		if n := countFiles(t, dir, table); n != 1 {
			t.Fatalf("%s: %d files after -compact", table, n)
		}
	}
	a, err := archive.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	ms, err := a.Load(context.Background())
	if err != nil || len(ms) != 3 {
		t.Fatalf("%d runs after -compact: %v", len(ms), err)
	}
}

func countFiles(t testing.TB, dir, table string) int {
	t.Helper()
	ps, err := filepath.Glob(filepath.Join(dir, table, "*.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	return len(ps)
}

// TestConcurrentProcesses runs several ingest processes at once on
// overlapping sets of documents: every document lands exactly once.
func TestConcurrentProcesses(t *testing.T) {
	tmp := t.TempDir()
	dir := filepath.Join(tmp, "archive")
	seeds := []string{testtool.ReadSeed(t, 0), testtool.ReadSeed(t, 1)}
	const docs, procs, per = 24, 5, 10
	var names []string
	content := map[string]string{}
	for i := 0; i < docs; i++ {
		n := fmt.Sprintf("doc%02d.txt", i)
		names = append(names, n)
		content[n] = testtool.SeedVariant(seeds[i%2], i)
	}
	paths := testtool.WriteFiles(t, tmp, names, content)
	cmds := make([]*exec.Cmd, procs)
	outs := make([]bytes.Buffer, procs)
	errs := make([]bytes.Buffer, procs)
	for p := range cmds {
		var args []string
		for k := 0; k < per; k++ {
			args = append(args, paths[(p*5+k)%docs])
		}
		cmds[p] = exec.Command(os.Args[0], append([]string{"-archive", dir}, args...)...)
		cmds[p].Env = append(os.Environ(), mainEnv+"=1")
		cmds[p].Stdout, cmds[p].Stderr = &outs[p], &errs[p]
		if err := cmds[p].Start(); err != nil {
			t.Fatal(err)
		}
	}
	added := map[string]int{}
	for p, c := range cmds {
		if err := c.Wait(); err != nil {
			t.Fatalf("process %d: %v\n%s", p, err, errs[p].String())
		}
		for _, l := range lines(t, outs[p].String()) {
			if l.outcome == "added" {
				added[l.id]++
			}
		}
	}
	if len(added) != docs {
		t.Fatalf("%d documents added, want %d", len(added), docs)
	}
	for id, n := range added {
		if n != 1 {
			t.Fatalf("run %s reported added %d times", id, n)
		}
	}
	a, err := archive.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	ms, err := a.Load(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, m := range ms {
		if seen[m.Run.RunID] || added[m.Run.RunID] != 1 || len(m.Measurements) != 46 {
			t.Fatalf("run %s: stored again, unreported or with %d rows", m.Run.RunID, len(m.Measurements))
		}
		seen[m.Run.RunID] = true
	}
	if len(seen) != docs {
		t.Fatalf("archive holds %d runs, want %d", len(seen), docs)
	}
}

// duckdb runs one query with DuckDB and returns the rows as JSON.
func duckdb(t *testing.T, sql string) string {
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
	return strings.TrimSpace(string(out))
}

// TestDuckDBReadsSeeds ingests both seeds and reads them back with DuckDB
// as a user would, checking values printed in the documents.
func TestDuckDBReadsSeeds(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "archive")
	if code, _, e := runIngest(t, "", append([]string{"-archive", dir}, testtool.SeedPaths(t)...)...); code != 0 {
		t.Fatal(e)
	}
	runs := fmt.Sprintf("read_parquet('%s/runs/**/*.parquet', union_by_name=true)", dir)
	meas := fmt.Sprintf("read_parquet('%s/measurements/**/*.parquet', union_by_name=true)", dir)
	tests := []struct{ name, sql, want string }{
		{"decode 8K x 128 of seed 000",
			`SELECT m.status, m.total_tok_s, m.per_request_tok_s, m.ttft_ms, m.tbt_ms, m.output_tokens, m.completed_requests, m.context_tokens
			 FROM ` + runs + ` r JOIN ` + meas + ` m USING (run_id)
			 WHERE r.vram_gb = 96 AND m.phase = 'decode' AND m.context_label = '8K' AND m.concurrency = 128`,
			`[{"status":"valid","total_tok_s":6091.1,"per_request_tok_s":47.4,"ttft_ms":783,"tbt_ms":21.1,"output_tokens":"182670","completed_requests":"0","context_tokens":"8192"}]`},
		{"over capacity cell has nulls",
			`SELECT m.status, m.total_tok_s, m.ttft_ms, m.tbt_ms, m.output_tokens, m.completed_requests, m.context_tokens
			 FROM ` + runs + ` r JOIN ` + meas + ` m USING (run_id)
			 WHERE r.vram_gb = 96 AND m.phase = 'decode' AND m.context_label = '123K' AND m.concurrency = 128`,
			`[{"status":"over_capacity","total_tok_s":null,"ttft_ms":null,"tbt_ms":null,"output_tokens":null,"completed_requests":null,"context_tokens":"125952"}]`},
		{"prefill 8K of seed 000",
			`SELECT m.total_tok_s, m.ttft_ms FROM ` + runs + ` r JOIN ` + meas + ` m USING (run_id)
			 WHERE r.vram_gb = 96 AND m.phase = 'prefill' AND m.context_label = '8K'`,
			`[{"total_tok_s":55000,"ttft_ms":149}]`},
		{"cells by status",
			`SELECT r.gpu, m.status, count(*) AS n FROM ` + runs + ` r JOIN ` + meas + ` m USING (run_id)
			 GROUP BY ALL ORDER BY ALL`,
			`[{"gpu":"H200 NVL","status":"over_capacity","n":"1"},{"gpu":"H200 NVL","status":"valid","n":"45"},` +
				`{"gpu":"RTX PRO 6000 Blackwell Server Edition","status":"looped","n":"7"},{"gpu":"RTX PRO 6000 Blackwell Server Edition","status":"over_capacity","n":"1"},{"gpu":"RTX PRO 6000 Blackwell Server Edition","status":"valid","n":"38"}]`},
		{"runs",
			`SELECT vram_gb, gpu, engine, quantization, measure_seconds, max_output_tokens, schema_version,
			 [f.value FOR f IN metadata IF f.section = 'Hardware' AND f.key = 'GPU'][1] AS hw_gpu,
			 [f.value FOR f IN launch_flags IF f.key = '--max-model-len'][1] AS max_len_flag, gpu_memory_utilization
			 FROM ` + runs + ` ORDER BY vram_gb`,
			`[{"vram_gb":96,"gpu":"RTX PRO 6000 Blackwell Server Edition","engine":"vllm","quantization":"INT4","measure_seconds":30,"max_output_tokens":"4096","schema_version":1,"hw_gpu":"RTX PRO 6000 Blackwell Server Edition","max_len_flag":"131072","gpu_memory_utilization":0.75},` +
				`{"vram_gb":141,"gpu":"H200 NVL","engine":"vllm","quantization":"BF16","measure_seconds":30,"max_output_tokens":"4096","schema_version":1,"hw_gpu":"H200 NVL","max_len_flag":"131072","gpu_memory_utilization":0.885275}]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := duckdb(t, tt.sql); got != tt.want {
				t.Fatalf("got  %s\nwant %s", got, tt.want)
			}
		})
	}
}
