package ingestcmd

import (
	"context"
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"speedmatrix/archive/store"
	"speedmatrix/internal/testtool"
	"speedmatrix/schema"
)

// tableRefs returns a table reference per catalog the tests run, their
// files on versitygw (S3 on loopback): SQLite, and PostgreSQL when its
// server is installed.
func tableRefs(t *testing.T) map[string]string {
	t.Helper()
	s3 := testtool.StartVersitygw(t, "bench")
	t.Setenv("AWS_ACCESS_KEY_ID", s3.AccessKey)
	t.Setenv("AWS_SECRET_ACCESS_KEY", s3.Secret)
	t.Setenv("AWS_ENDPOINT_URL", s3.Endpoint)
	t.Setenv("AWS_REGION", "us-east-1")
	refs := map[string]string{
		"sqlite+s3": "iceberg+sqlite://" + filepath.ToSlash(filepath.Join(t.TempDir(), "catalog.db")) + "?warehouse=s3://bench/sqlite#team",
	}
	if testtool.PostgresBin(t) != "" {
		refs["postgres+s3"] = "iceberg+" + testtool.StartPostgres(t) + "&warehouse=s3://bench/pg#team"
	}
	return refs
}

// variantPaths writes n variants of the seeds and returns their paths.
func variantPaths(t *testing.T, from, n int) []string {
	t.Helper()
	seeds := []string{testtool.ReadSeed(t, 0), testtool.ReadSeed(t, 1)}
	var names []string
	content := map[string]string{}
	for i := from; i < from+n; i++ {
		name := fmt.Sprintf("doc%03d.txt", i)
		names = append(names, name)
		content[name] = testtool.SeedVariant(seeds[i%2], i)
	}
	return testtool.WriteFiles(t, t.TempDir(), names, content)
}

// loadAll returns every run of the archive ref with its rows, ingested_at
// cleared (it is the time of each command).
func loadAll(t *testing.T, ref string) []*schema.Matrix {
	t.Helper()
	s, err := store.Open(context.Background(), ref, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ms, err := s.Load(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range ms {
		m.Run.IngestedAt = time.Time{}
	}
	return ms
}

// TestIngestIntoTable ingests the same documents (one of them bad) into a
// directory archive and into tables: the report lines and exit status
// are the same, a second ingest adds nothing, -check reads every run, and
// the tables hold the directory's runs, row for row.
func TestIngestIntoTable(t *testing.T) {
	refs := tableRefs(t)
	paths := variantPaths(t, 0, 6)
	bad := testtool.WriteFiles(t, t.TempDir(), []string{"bad.txt"}, map[string]string{"bad.txt": "not a speed test\n"})
	args := append(append([]string{}, paths[:3]...), append(bad, paths[3:]...)...)
	dir := filepath.Join(t.TempDir(), "archive")
	wantCode, want, _ := runIngest(t, "", append([]string{"-archive", dir}, args...)...)
	if wantCode != exitFail || strings.Count(want, "\tadded\n") != 6 || !strings.Contains(want, "\terror\n") {
		t.Fatalf("directory: exit %d\n%s", wantCode, want)
	}
	wantRuns := loadAll(t, dir)
	for name, ref := range refs {
		code, got, errs := runIngest(t, "", append([]string{"-archive", ref}, args...)...)
		if code != wantCode || got != want || !strings.Contains(errs, "bad.txt") {
			t.Errorf("%s: exit %d\n%s\n%s\nwant:\n%s", name, code, got, errs, want)
		}
		code, again, errs := runIngest(t, "", append([]string{"-archive", ref}, paths...)...)
		if code != exitOK || strings.Count(again, "\tduplicate\n") != 6 {
			t.Errorf("%s: second ingest: exit %d\n%s\n%s", name, code, again, errs)
		}
		code, _, errs = runIngest(t, "", "-archive", ref, "-check")
		if code != exitOK || !strings.Contains(errs, "6 runs") {
			t.Errorf("%s: -check: exit %d %s", name, code, errs)
		}
		if got := loadAll(t, ref); !reflect.DeepEqual(got, wantRuns) {
			t.Errorf("%s: the table holds %d runs, not the directory's %d (or other rows)", name, len(got), len(wantRuns))
		}
	}
	// -drop: the same lines, the same runs left, on both kinds.
	drop := wantRuns[0].Run.RunID + "," + wantRuns[3].Run.RunID
	wantCode, want, wantErr := runIngest(t, "", "-archive", dir, "-drop", drop)
	if wantCode != exitOK || strings.Count(want, "\tdropped\n") != 2 {
		t.Fatalf("directory -drop: exit %d\n%s%s", wantCode, want, wantErr)
	}
	wantRuns = loadAll(t, dir)
	for name, ref := range refs {
		code, got, errs := runIngest(t, "", "-archive", ref, "-drop", drop)
		if code != wantCode || got != want {
			t.Errorf("%s: -drop: exit %d\n%s%s\nwant:\n%s", name, code, got, errs, want)
		}
		if got := loadAll(t, ref); !reflect.DeepEqual(got, wantRuns) {
			t.Errorf("%s: after -drop the table holds %d runs, the directory %d (or other rows)", name, len(got), len(wantRuns))
		}
		if code, _, errs := runIngest(t, "", "-archive", ref, "-drop", wantRuns[0].Run.RunID+",0000000000000000"); code != exitFail || !strings.Contains(errs, "0000000000000000") {
			t.Errorf("%s: -drop of an unknown run: exit %d %s", name, code, errs)
		}
		if got := loadAll(t, ref); len(got) != len(wantRuns) {
			t.Errorf("%s: a failed -drop removed runs", name)
		}
	}
}

// TestPushTwice pushes a directory archive to a table twice: the first
// adds every run, the second adds nothing and says so; the table then
// holds the directory's runs. A second directory with overlapping runs
// adds only its new ones.
func TestPushTwice(t *testing.T) {
	refs := tableRefs(t)
	dir := filepath.Join(t.TempDir(), "archive")
	if code, _, errs := runIngest(t, "", append([]string{"-archive", dir}, variantPaths(t, 0, 5)...)...); code != exitOK {
		t.Fatal(errs)
	}
	other := filepath.Join(t.TempDir(), "archive")
	if code, _, errs := runIngest(t, "", append([]string{"-archive", other}, variantPaths(t, 3, 4)...)...); code != exitOK {
		t.Fatal(errs)
	}
	for name, ref := range refs {
		code, out, errs := runIngest(t, "", "-archive", dir, "-push", ref)
		if code != exitOK || strings.Count(out, "\tadded\n") != 5 || !strings.Contains(errs, "5 of 5 runs added") {
			t.Errorf("%s: first push: exit %d\n%s%s", name, code, out, errs)
		}
		code, out, errs = runIngest(t, "", "-archive", dir, "-push", ref)
		if code != exitOK || strings.Count(out, "\tduplicate\n") != 5 || !strings.Contains(errs, "nothing added") {
			t.Errorf("%s: second push: exit %d\n%s%s", name, code, out, errs)
		}
		code, out, errs = runIngest(t, "", "-archive", other, "-push", ref)
		if code != exitOK || strings.Count(out, "\tadded\n") != 2 || !strings.Contains(errs, "2 of 4 runs added") {
			t.Errorf("%s: overlapping push: exit %d\n%s%s", name, code, out, errs)
		}
		if got := loadAll(t, ref); len(got) != 7 {
			t.Errorf("%s: the table holds %d runs, want 7", name, len(got))
		}
	}
	// Usage errors: -push wants a table, a directory to push from.
	if code, _, errs := runIngest(t, "", "-archive", dir, "-push", other); code != exitUsage || !strings.Contains(errs, "not a table reference") {
		t.Errorf("-push DIR: exit %d %s", code, errs)
	}
}

// TestMaintain runs -maintain on a table: old snapshots expire, the
// table still reads. Two SQLite catalogs in one directory share the
// default warehouse beside them: -maintain on one must not take the
// other's files for orphans (an early version removed them), so it
// refuses, and the other still reads.
func TestMaintain(t *testing.T) {
	dir := t.TempDir()
	one := "iceberg+sqlite://" + filepath.ToSlash(filepath.Join(dir, "one.db"))
	two := "iceberg+sqlite://" + filepath.ToSlash(filepath.Join(dir, "two.db"))
	paths := variantPaths(t, 0, 4)
	for _, p := range paths[:2] {
		if code, _, errs := runIngest(t, "", "-archive", one, p); code != exitOK {
			t.Fatal(errs)
		}
	}
	code, out, errs := runIngest(t, "", "-archive", one, "-maintain", "-grace", "0s")
	// Two appends: their two small files per table merge into one, and
	// every snapshot but the current one (the rewrites') expires.
	if code != exitOK || !strings.Contains(out, "runs\t2 → 1 data files compacted") || !strings.Contains(out, "4 → 1 snapshots") {
		t.Fatalf("-maintain: exit %d\n%s%s", code, out, errs)
	}
	if code, _, errs := runIngest(t, "", "-archive", one, "-check"); code != exitOK || !strings.Contains(errs, "2 runs") {
		t.Fatalf("-check after -maintain: exit %d %s", code, errs)
	}
	if code, _, errs := runIngest(t, "", append([]string{"-archive", two}, paths[2:]...)...); code != exitOK {
		t.Fatal(errs)
	}
	code, out, errs = runIngest(t, "", "-archive", one, "-maintain", "-grace", "0s")
	if code != exitFail || !strings.Contains(errs, "two catalogs share one warehouse") || strings.Contains(out, "removed") {
		t.Errorf("-maintain beside another catalog: exit %d\n%s%s", code, out, errs)
	}
	for ref, n := range map[string]string{one: "2 runs", two: "2 runs"} {
		if code, _, errs := runIngest(t, "", "-archive", ref, "-check"); code != exitOK || !strings.Contains(errs, n) {
			t.Errorf("-check %s: exit %d %s", ref, code, errs)
		}
	}
	if code, _, errs := runIngest(t, "", "-archive", filepath.Join(dir, "plain"), "-maintain"); code != exitUsage || !strings.Contains(errs, "-compact") {
		t.Errorf("-maintain on a directory: exit %d %s", code, errs)
	}
}

// TestUnreachableStore: ingest into a table whose store does not answer
// (nothing listens on its port) fails with one line on stderr naming the
// reference, exit 1, and nothing on stdout.
func TestUnreachableStore(t *testing.T) {
	t.Setenv("AWS_ACCESS_KEY_ID", "k")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "s3cr3t-never-printed")
	t.Setenv("AWS_ENDPOINT_URL", fmt.Sprintf("http://127.0.0.1:%d", testtool.FreePort(t)))
	t.Setenv("AWS_REGION", "us-east-1")
	ref := "iceberg+sqlite://" + filepath.ToSlash(filepath.Join(t.TempDir(), "catalog.db")) + "?warehouse=s3://bench/wh#team"
	start := time.Now()
	code, out, errs := runIngest(t, "", append([]string{"-archive", ref}, variantPaths(t, 0, 2)...)...)
	if code != exitFail || out != "" || !strings.HasPrefix(errs, "ingest: ") || !strings.Contains(errs, ref) ||
		strings.Count(errs, "\n") != 1 || strings.Contains(errs, "s3cr3t") {
		t.Errorf("exit %d, stdout %q, stderr %q", code, out, errs)
	}
	t.Logf("%v: %s", time.Since(start).Round(time.Millisecond), errs)
}
