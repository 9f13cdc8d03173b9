package ingestcmd

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"speedmatrix/internal/testtool"
	"strings"
	"testing"
	"time"
)

// benchCorpus writes n distinct documents (variants of both seeds) under
// dir and a list of their paths for -files-from, and returns the list's
// path and the documents' total size.
func benchCorpus(b *testing.B, dir string, n int) (string, int64) {
	b.Helper()
	seeds := []string{testtool.ReadSeed(b, 0), testtool.ReadSeed(b, 1)}
	var list strings.Builder
	var size int64
	for i := 0; i < n; i++ {
		sub := filepath.Join(dir, fmt.Sprintf("d%03d", i/1000))
		if i%1000 == 0 {
			if err := os.MkdirAll(sub, 0o755); err != nil {
				b.Fatal(err)
			}
		}
		p := filepath.Join(sub, fmt.Sprintf("doc%06d.txt", i))
		c := testtool.SeedVariant(seeds[i%2], i)
		if err := os.WriteFile(p, []byte(c), 0o644); err != nil {
			b.Fatal(err)
		}
		size += int64(len(c))
		list.WriteString(p + "\n")
	}
	lp := filepath.Join(dir, "list")
	if err := os.WriteFile(lp, []byte(list.String()), 0o644); err != nil {
		b.Fatal(err)
	}
	return lp, size
}

// corpusEnv names a directory where BenchmarkIngestRSS keeps its
// generated documents (DIR/docs-N) between runs, so that interleaved
// runs of two binaries (scripts/bench-encoders) read the same files and
// do not write 100,000 documents each time.
const corpusEnv = "INGEST_BENCH_CORPUS"

// keptCorpus returns the list and total size of the kept corpus of n
// documents under $INGEST_BENCH_CORPUS, written on first use; "" when
// the variable is unset.
func keptCorpus(b *testing.B, n int) (string, int64) {
	b.Helper()
	root := os.Getenv(corpusEnv)
	if root == "" {
		return "", 0
	}
	dir := filepath.Join(root, fmt.Sprintf("docs-%d", n))
	list := filepath.Join(dir, "list")
	if _, err := os.Stat(list); err != nil {
		tmp := dir + ".tmp"
		if err := os.RemoveAll(tmp); err != nil {
			b.Fatal(err)
		}
		benchCorpus(b, tmp, n)
		// The list names the files under tmp: write it again for dir.
		paths, err := os.ReadFile(filepath.Join(tmp, "list"))
		if err != nil {
			b.Fatal(err)
		}
		fixed := strings.ReplaceAll(string(paths), tmp+string(filepath.Separator), dir+string(filepath.Separator))
		if err := os.WriteFile(filepath.Join(tmp, "list"), []byte(fixed), 0o644); err != nil {
			b.Fatal(err)
		}
		if err := os.Rename(tmp, dir); err != nil {
			b.Fatal(err)
		}
	}
	paths, err := os.ReadFile(list)
	if err != nil {
		b.Fatal(err)
	}
	var size int64
	for _, p := range strings.Fields(string(paths)) {
		st, err := os.Stat(p)
		if err != nil {
			b.Fatal(err)
		}
		size += st.Size()
	}
	return list, size
}

// ingestProcess runs the command in a child process (this test binary
// acting as ingest) and returns its peak RSS and CPU time.
func ingestProcess(b *testing.B, args ...string) (peakMB float64, cpu time.Duration) {
	b.Helper()
	testtool.ResetPeakRSS(b)
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), mainEnv+"=1")
	var errb strings.Builder
	cmd.Stderr = &errb
	if err := cmd.Run(); err != nil {
		b.Fatalf("ingest %v: %v\n%s", args[:min(len(args), 4)], err, errb.String())
	}
	cpu, peak := testtool.Child(cmd.ProcessState)
	return float64(peak) / (1 << 20), cpu
}

// BenchmarkIngestRSS measures the peak RSS and CPU time per document of
// one ingest call (a child process) over 1,000, 10,000 and 100,000
// generated documents: memory must not grow with their number. Run one
// size with -bench 'IngestRSS/docs=1000$' -benchtime 1x.
func BenchmarkIngestRSS(b *testing.B) {
	for _, n := range []int{1000, 10000, 100000} {
		b.Run(fmt.Sprintf("docs=%d", n), func(b *testing.B) {
			dir := b.TempDir()
			list, size := keptCorpus(b, n)
			if list == "" {
				list, size = benchCorpus(b, dir, n)
			}
			b.SetBytes(size)
			var peak float64
			var cpu time.Duration
			for i := 0; b.Loop(); i++ {
				p, c := ingestProcess(b, "-archive", filepath.Join(dir, fmt.Sprintf("archive%d", i)), "-files-from", list)
				peak, cpu = max(peak, p), cpu+c
			}
			b.ReportMetric(peak, "peak-MB")
			b.ReportMetric(float64(cpu.Microseconds())/float64(n*b.N), "cpu-µs/doc")
		})
	}
}
