package ingestcmd

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"speedmatrix/internal/testtool"
)

// hugeDoc returns seed document s grown to about size bytes: its "All
// measurements" table gets rows of the seed's shape (one per context and
// concurrency, 12 columns) after its own, for contexts the seed does not
// have, so the document stays valid and every row is distinct.
func hugeDoc(tb testing.TB, s string, size int) []byte {
	tb.Helper()
	head, tail, ok := strings.Cut(s, "| Sustained decode | 123K | 128 | Over capacity |")
	if !ok {
		tb.Fatal("seed without its last All measurements row")
	}
	end := strings.IndexByte(tail, '\n')
	var b strings.Builder
	b.Grow(size + 1024)
	b.WriteString(head)
	b.WriteString("| Sustained decode | 123K | 128 | Over capacity |")
	b.WriteString(tail[:end+1])
	for c := 200; b.Len() < size; c++ {
		for k := 0; k < 8; k++ {
			fmt.Fprintf(&b, "| Sustained decode | %dK | %d | Valid | %d.%d | %d.%d | %d ms | %d.%d ms | %d.0 | %d | %d | 30.0 s |\n",
				c, 1<<k, 300+c%4000, k, 40+k, c%10, 100+c%900, 3+k, c%10, 1<<k, k+1, 9000+c%50000)
		}
	}
	b.WriteString(tail[end+1:])
	return []byte(b.String())
}

// BenchmarkIngestHugeDoc measures the peak RSS and CPU time of one ingest
// call (a child process) of a single generated 60 MB document: one "All
// measurements" table of about 540,000 rows. Run it with -benchtime 1x.
func BenchmarkIngestHugeDoc(b *testing.B) {
	dir := b.TempDir()
	doc := hugeDoc(b, testtool.ReadSeed(b, 0), 60<<20)
	p := filepath.Join(dir, "huge.txt")
	if err := os.WriteFile(p, doc, 0o644); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(doc)))
	var peak float64
	var cpu time.Duration
	for i := 0; b.Loop(); i++ {
		pk, c := ingestProcess(b, "-archive", filepath.Join(dir, fmt.Sprintf("archive%d", i)), p)
		peak, cpu = max(peak, pk), cpu+c
	}
	b.ReportMetric(peak, "peak-MB")
	b.ReportMetric(cpu.Seconds()/float64(b.N), "cpu-s/op")
}
