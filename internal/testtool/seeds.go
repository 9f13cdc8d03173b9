package testtool

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The seed documents (testdata/seeds) as the ingest tests use them:
// their paths, their text, distinct variants of them and files of them
// in a test's directory.

// SeedPaths returns the two seed documents in testdata/seeds.
func SeedPaths(t testing.TB) []string {
	t.Helper()
	ps, err := filepath.Glob(filepath.Join(RepoRoot(t), "testdata", "seeds", "*.txt"))
	if err != nil || len(ps) != 2 {
		t.Fatalf("seeds: %v %v", ps, err)
	}
	return ps
}

// ReadSeed returns the text of seed document i (0 or 1).
func ReadSeed(t testing.TB, i int) string {
	t.Helper()
	b, err := os.ReadFile(SeedPaths(t)[i])
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// SeedVariant returns seed document s with a model name made unique by
// i: a distinct document (and run id) with the seed's layout and size.
func SeedVariant(s string, i int) string {
	return strings.Replace(s, " on ", fmt.Sprintf("-v%04d on ", i), 1)
}

// WriteFiles writes name → content into dir and returns the paths in
// the order of names.
func WriteFiles(t testing.TB, dir string, names []string, content map[string]string) []string {
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
