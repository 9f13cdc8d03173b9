package archive

import (
	"context"
	"io/fs"
	"path/filepath"
	"slices"
	"testing"
)

// listing returns every file under dir but the lock file, relative.
func listing(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || d.Name() == ".lock" {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		out = append(out, rel)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestTempFilesAbort checks that a transaction abandoned after its rows
// went to its temp files (one batch flushed, one pending) leaves the
// archive's files as they were, temp files removed, and that the next
// writer commits normally.
func TestTempFilesAbort(t *testing.T) {
	ctx := context.Background()
	a := openTest(t)
	if _, err := a.Append(ctx, testMatrices(0, 2)); err != nil {
		t.Fatal(err)
	}
	before := listing(t, a.Dir())
	defer func(n int) { batchRows = n }(batchRows)
	batchRows = 1 // every Add flushes to the temp files
	w, err := a.NewWriter(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range testMatrices(2, 4) {
		if _, err := w.Add(m); err != nil {
			t.Fatal(err)
		}
	}
	if during := listing(t, a.Dir()); len(during) <= len(before) {
		t.Fatalf("no temp files while writing: %v", during)
	}
	w.Abort()
	if after := listing(t, a.Dir()); !slices.Equal(after, before) {
		t.Fatalf("after Abort the archive holds\n%v\nwant\n%v", after, before)
	}
	got, err := a.Runs(ctx)
	if err != nil || len(got) != 2 {
		t.Fatalf("Runs after Abort: %d runs, %v; want the 2 committed", len(got), err)
	}
	if res, err := a.Append(ctx, testMatrices(2, 4)); err != nil || res.Added() != 2 {
		t.Fatalf("Append after Abort: %d added, %v", res.Added(), err)
	}
}
