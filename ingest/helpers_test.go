package ingest

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"speedmatrix/archive"
	"speedmatrix/internal/testtool"
)

// badRowDocs returns seed 000 with a bad row, found once it is read:
// each a "file:line: message".
func badRowDocs(t testing.TB) map[string]string {
	s := testtool.ReadSeed(t, 0)
	mustReplace := func(old, new string) string {
		if !strings.Contains(s, old) {
			t.Fatalf("seed 000 lacks %q", old)
		}
		return strings.Replace(s, old, new, 1)
	}
	dupRow := "| Sustained decode | 8K | 2 | Valid | 538.8 | 270.8 | 69 ms | 3.7 ms | 2.0 | 4 | 16,164 | 30.0 s |\n"
	return map[string]string{
		"garbled.txt":  mustReplace("| 6,091.1 | 47.4 |", "| 6,0x1.1 | 47.4 |"),
		"duprow.txt":   mustReplace(dupRow, dupRow+dupRow),
		"disagree.txt": mustReplace("325.241 ms TTFT", "335.241 ms TTFT"),
	}
}

// peerPaths returns other tools' result files kept as parse's (or
// peers') fixtures.
func peerPaths(t testing.TB) []string {
	t.Helper()
	root := testtool.RepoRoot(t)
	var out []string
	for _, glob := range []string{"parse/testdata/peers/*/*", "peers/testdata/*/*"} {
		ps, err := filepath.Glob(filepath.Join(root, filepath.FromSlash(glob)))
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, ps...)
	}
	sort.Strings(out)
	if len(out) < 12 {
		t.Fatalf("found only %d peer fixtures", len(out))
	}
	return out
}

// benchDocs writes n distinct documents (variants of both seeds) and
// returns their paths and total size.
func benchDocs(b *testing.B, n int) ([]string, int64) {
	b.Helper()
	seeds := []string{testtool.ReadSeed(b, 0), testtool.ReadSeed(b, 1)}
	var names []string
	content := map[string]string{}
	var size int64
	for i := range n {
		name := fmt.Sprintf("doc%04d.txt", i)
		names = append(names, name)
		content[name] = testtool.SeedVariant(seeds[i%2], i)
		size += int64(len(content[name]))
	}
	return testtool.WriteFiles(b, b.TempDir(), names, content), size
}

// ingestInto runs Files into the archive at dir and returns the report
// it printed and what Warn was told, a line each.
func ingestInto(t testing.TB, dir, stdin string, files ...string) (report, warned string, failed bool) {
	t.Helper()
	a, err := archive.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	var w strings.Builder
	rep, err := Files(context.Background(), a, files, Options{
		Stdin: strings.NewReader(stdin),
		Warn:  func(err error) { fmt.Fprintln(&w, err) },
	})
	if err != nil {
		t.Fatal(err)
	}
	defer rep.Close()
	var out bytes.Buffer
	if _, err := rep.WriteTo(&out); err != nil {
		t.Fatal(err)
	}
	return out.String(), w.String(), rep.Failed
}
