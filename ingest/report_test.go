package ingest

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"speedmatrix/internal/testtool"
)

func TestRunLines(t *testing.T) {
	defer func(m int) { reportMem = m }(reportMem)
	reportMem = 256
	for _, tt := range []struct {
		name      string
		lines     int
		tmp       string // TMPDIR: "" a fresh directory, else this path
		wantSpill bool
	}{
		{"in memory", 3, "", false},
		{"spilled", 200, "", true},
		{"no temp dir", 200, "/nonexistent/speedmatrix-tmp", false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			tmp := tt.tmp
			if tmp == "" {
				tmp = t.TempDir()
			}
			t.Setenv("TMPDIR", tmp)
			t.Setenv("TMP", tmp) // Windows
			var r runLines
			var want strings.Builder
			for i := range tt.lines {
				r.appendf("%016x\t%s\t%d rows\t%s\n", i, "Model on GPU", 46, "added")
				fmt.Fprintf(&want, "%016x\t%s\t%d rows\t%s\n", i, "Model on GPU", 46, "added")
			}
			if got := r.f != nil; got != tt.wantSpill {
				t.Errorf("spilled to a file: %v, want %v (spill error %v)", got, tt.wantSpill, r.spillErr)
			}
			if tt.wantSpill && len(r.buf) >= reportMem {
				t.Errorf("%d bytes in memory after spilling, want < %d", len(r.buf), reportMem)
			}
			if tt.tmp != "" && r.spillErr == nil {
				t.Errorf("no spill error with TMPDIR %s", tt.tmp)
			}
			if runtime.GOOS != "windows" && tt.tmp == "" {
				if left, _ := filepath.Glob(filepath.Join(tmp, "*")); len(left) > 0 {
					t.Errorf("the report's file has a name while open: %v", left)
				}
			}
			var out bytes.Buffer
			if _, err := r.writeTo(&out); err != nil {
				t.Fatal(err)
			}
			r.close()
			if out.String() != want.String() {
				t.Errorf("report differs: %d bytes, want %d", out.Len(), want.Len())
			}
			if tt.tmp == "" {
				if left, _ := os.ReadDir(tmp); len(left) > 0 {
					t.Errorf("left behind in the temp dir: %v", left)
				}
			}
		})
	}
}

// TestIngestReportSpilled: Files's report is the same whether it stayed
// in memory or went through its file.
func TestIngestReportSpilled(t *testing.T) {
	seeds := []string{testtool.ReadSeed(t, 0), testtool.ReadSeed(t, 1)}
	var names []string
	content := map[string]string{}
	for i := range 30 {
		name := fmt.Sprintf("doc%02d.txt", i)
		names = append(names, name)
		content[name] = testtool.SeedVariant(seeds[i%2], i)
	}
	paths := testtool.WriteFiles(t, t.TempDir(), names, content)
	paths = append(paths, paths[0]) // a duplicate line too
	ingest := func(mem int) string {
		defer func(m int) { reportMem = m }(reportMem)
		reportMem = mem
		out, warned, failed := ingestInto(t, filepath.Join(t.TempDir(), "a"), "", paths...)
		if failed || warned != "" {
			t.Fatalf("failed %v: %s", failed, warned)
		}
		return out
	}
	inMemory, spilled := ingest(1<<20), ingest(64)
	if n := strings.Count(inMemory, "\n"); n != 31 {
		t.Fatalf("%d report lines, want 31:\n%s", n, inMemory)
	}
	if spilled != inMemory {
		t.Errorf("spilled report differs:\n%s\nwant:\n%s", spilled, inMemory)
	}
}
