package servecmd

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"speedmatrix/archive"
	"speedmatrix/archive/store"
	"speedmatrix/internal/testtool"
	"speedmatrix/parse"
	"speedmatrix/schema"
)

// sources are the runs of the test archive: the two seeds and the vLLM
// peer fixtures (results that name no GPU: the listing fills it from
// their metadata).
var sources = []string{
	"testdata/seeds/001_03cf9c936d246394.txt",
	"testdata/seeds/000_acc4a01d882a0446.txt",
	"parse/testdata/peers/vllm",
}

// newArchive writes the sources into a directory archive and returns it
// with the run ids, seeds first.
func newArchive(t *testing.T) (string, []string) {
	t.Helper()
	root := testtool.RepoRoot(t)
	var ms []*schema.Matrix
	for _, p := range sources {
		p = filepath.Join(root, p)
		files := []string{p}
		if st, err := os.Stat(p); err == nil && st.IsDir() {
			files, _ = filepath.Glob(filepath.Join(p, "*"))
		}
		for _, name := range files {
			f, err := os.Open(name)
			if err != nil {
				t.Fatal(err)
			}
			got, err := parse.ParseAll(f, name, "")
			f.Close()
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			ms = append(ms, got...)
		}
	}
	dir := filepath.Join(t.TempDir(), "archive")
	a, err := archive.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.Append(context.Background(), ms); err != nil {
		t.Fatal(err)
	}
	var ids []string
	seen := map[string]bool{}
	for _, m := range ms {
		if !seen[m.Run.RunID] { // fixtures that hold the same run
			seen[m.Run.RunID] = true
			ids = append(ids, m.Run.RunID)
		}
	}
	return dir, ids
}

// pushTable pushes the directory archive dir into a new table on a
// SQLite catalog with a local warehouse (no server) and returns its
// reference.
func pushTable(t *testing.T, dir string) string {
	t.Helper()
	tmp := filepath.ToSlash(t.TempDir())
	ref := "iceberg+sqlite://" + tmp + "/catalog.db?warehouse=file://" + tmp + "/warehouse#bench"
	ctx := context.Background()
	s, err := store.Open(ctx, ref, store.Options{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	local, err := archive.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := store.Table(s).Push(ctx, local); err != nil {
		t.Fatal(err)
	}
	return ref
}

// page gets target from h: its status and body.
func page(t *testing.T, h http.Handler, target string) (int, string) {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", target, nil))
	b, _ := io.ReadAll(rec.Result().Body)
	return rec.Code, string(b)
}

var rowID = regexp.MustCompile(`<input type="checkbox" name="sel" value="([^"]+)"`)

// TestServesTable: serve opens a shared table as the other commands do
// (store.Open) and its pages equal those over a directory archive
// holding the same runs: the Runs view (filtered, sorted, with the
// columns filled from metadata), a Compare, the Landscape, a Trend and
// a Run page.
func TestServesTable(t *testing.T) {
	dir, ids := newArchive(t)
	ref := pushTable(t, dir)
	ctx := context.Background()
	dirH, dirName, closeDir, err := open(ctx, &options{archive: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer closeDir()
	tblH, tblName, closeTbl, err := open(ctx, &options{archive: ref})
	if err != nil {
		t.Fatal(err)
	}
	defer closeTbl()
	if dirName != dir || tblName != ref {
		t.Errorf("names %q and %q, want %q and %q", dirName, tblName, dir, ref)
	}
	sel := url.Values{"sel": {ids[0], ids[1]}}.Encode()
	for _, target := range []string{
		"/runs",
		"/runs?gpu=h100&sort=model&dir=asc",
		"/runs?q=vllm&per=2&page=2",
		"/compare?" + sel,
		"/landscape",
		"/trend",
		"/run?id=" + ids[2],
	} {
		dirCode, want := page(t, dirH, target)
		code, got := page(t, tblH, target)
		if dirCode != http.StatusOK || code != http.StatusOK {
			t.Errorf("%s: status %d on the directory, %d on the table: %.300s", target, dirCode, code, got)
			continue
		}
		if got != want {
			t.Errorf("%s: the table's page differs from the directory's:\n%s", target, firstDiff(want, got))
		}
		if target == "/runs" {
			if n := len(rowID.FindAllString(got, -1)); n != len(ids) {
				t.Errorf("/runs lists %d runs of %d", n, len(ids))
			}
			if !strings.Contains(got, "H100") {
				t.Errorf("/runs does not show the GPU the peer fixtures' metadata give")
			}
		}
	}
}

// firstDiff shows where two pages part.
func firstDiff(want, got string) string {
	i := 0
	for i < len(want) && i < len(got) && want[i] == got[i] {
		i++
	}
	from := max(0, i-200)
	return "want …" + want[from:min(len(want), i+200)] + "…\ngot  …" + got[from:min(len(got), i+200)] + "…"
}
