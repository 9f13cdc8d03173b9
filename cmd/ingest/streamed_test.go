package ingestcmd

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"speedmatrix/archive"
	"speedmatrix/internal/testtool"
	"speedmatrix/parse"
)

// TestIngestStreamedDoc ingests a document of more than 65,536 rows,
// which streams from parse to the archive's writer in pieces: the
// archive then holds the run id and rows a whole parse gives, in one
// call with a small document. The same document with a bad row near its
// end (checked before anything is written) and a bad small document
// beside it leave the archive as it was.
func TestIngestStreamedDoc(t *testing.T) {
	dir := t.TempDir()
	arch := filepath.Join(dir, "archive")
	doc := hugeDoc(t, testtool.ReadSeed(t, 0), 8<<20)
	good := filepath.Join(dir, "good.txt")
	i := bytes.LastIndex(doc, []byte("| Valid |"))
	badDoc := append(append(append([]byte{}, doc[:i]...), "| Bogus |"...), doc[i+len("| Valid |"):]...)
	bad := filepath.Join(dir, "bad.txt")
	for p, b := range map[string][]byte{good: doc, bad: badDoc} {
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if code, _, errOut := runIngest(t, "", "-archive", arch, testtool.SeedPaths(t)[1]); code != 0 {
		t.Fatalf("exit %d\n%s", code, errOut)
	}
	before := treeHash(t, arch)
	code, out, errOut := runIngest(t, "", "-archive", arch, bad)
	if code != exitFail || !strings.Contains(errOut, "bad.txt:") || !strings.Contains(errOut, "unknown status") {
		t.Fatalf("bad row: exit %d\n%s%s", code, out, errOut)
	}
	if !reflect.DeepEqual(treeHash(t, arch), before) {
		t.Fatal("a document with a bad row changed the archive")
	}

	code, out, errOut = runIngest(t, "", "-archive", arch, good, testtool.SeedPaths(t)[0])
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, errOut)
	}
	want, err := parse.ParseBytes(doc, good, "")
	if err != nil {
		t.Fatal(err)
	}
	got := lines(t, out)
	if len(got) != 2 || got[0].id != want.Run.RunID || got[0].outcome != "added" || got[1].outcome != "added" {
		t.Fatalf("printed\n%s\nwant %s added first", out, want.Run.RunID)
	}
	if n := len(want.Measurements); n <= 1<<16 || got[0].rows != strconv.Itoa(n) {
		t.Fatalf("%s rows printed, want %d (more than 65,536)", got[0].rows, n)
	}
	a, err := archive.Open(arch)
	if err != nil {
		t.Fatal(err)
	}
	ms, err := a.Load(context.Background(), want.Run.RunID)
	if err != nil || len(ms) != 1 {
		t.Fatalf("Load: %d runs, %v", len(ms), err)
	}
	if !reflect.DeepEqual(ms[0].Measurements, want.Measurements) {
		t.Fatal("the streamed document's rows read back differently from a whole parse")
	}
	if c := ms[0].Run.Cells; c == nil || int(*c) != len(want.Measurements) {
		t.Errorf("cells %v, want %d (one row a cell)", c, len(want.Measurements))
	}
}
