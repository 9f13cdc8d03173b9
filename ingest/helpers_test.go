package ingest

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"speedmatrix/archive"
	"speedmatrix/internal/testtool"
)

// seedPaths returns the seed documents in testdata/seeds.
func seedPaths(t testing.TB) []string {
	t.Helper()
	ps, err := filepath.Glob(filepath.Join(testtool.RepoRoot(t), "testdata", "seeds", "*.txt"))
	if err != nil || len(ps) != 2 {
		t.Fatalf("seeds: %v %v", ps, err)
	}
	return ps
}

func readSeed(t testing.TB, i int) string {
	t.Helper()
	b, err := os.ReadFile(seedPaths(t)[i])
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// variant returns seed document s with a model name made unique by i: a
// distinct document (and run id) with the seed's layout and size.
func variant(s string, i int) string {
	return strings.Replace(s, " on ", fmt.Sprintf("-v%04d on ", i), 1)
}

// writeFiles writes name → content into dir and returns the paths in
// the order of names.
func writeFiles(t testing.TB, dir string, names []string, content map[string]string) []string {
	t.Helper()
	var out []string
	for _, n := range names {
		p := filepath.Join(dir, n)
		if err := os.WriteFile(p, []byte(content[n]), 0o644); err != nil {
			t.Fatal(err)
		}
		out = append(out, p)
	}
	return out
}

// badRowDocs returns seed 000 with a bad row, found once it is read:
// each a "file:line: message".
func badRowDocs(t testing.TB) map[string]string {
	s := readSeed(t, 0)
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
	seeds := []string{readSeed(b, 0), readSeed(b, 1)}
	var names []string
	content := map[string]string{}
	var size int64
	for i := range n {
		name := fmt.Sprintf("doc%04d.txt", i)
		names = append(names, name)
		content[name] = variant(seeds[i%2], i)
		size += int64(len(content[name]))
	}
	return writeFiles(b, b.TempDir(), names, content), size
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
