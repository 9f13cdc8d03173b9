package comparecmd

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"speedmatrix/archive"
	"speedmatrix/internal/testtool"
	"speedmatrix/parse"
	"speedmatrix/schema"
)

// BenchmarkList100000 runs `speedmatrix compare -archive A -list` (a
// child process built from cmd/speedmatrix) over an archive of 100,000 runs shaped like
// the seeds (their metadata, launch flags and 46 measurement rows each),
// written in one ingest-like transaction, and reports the peak RSS and
// CPU time of the listing. Building the archive takes a minute or two.
//
//	go test ./cmd/compare -run XXX -bench List100000 -benchtime 3x
func BenchmarkList100000(b *testing.B) {
	const n = 100000
	ctx := context.Background()
	tmp := b.TempDir()
	bin := filepath.Join(tmp, "speedmatrix")
	build := exec.Command("go", "build", "-o", bin, "speedmatrix/cmd/speedmatrix")
	if out, err := build.CombinedOutput(); err != nil {
		b.Fatalf("go build: %v\n%s", err, out)
	}
	var seeds []*schema.Matrix
	for _, s := range []string{seedBF16, seedINT4} {
		f, err := os.Open(s)
		if err != nil {
			b.Fatal(err)
		}
		m, err := parse.Parse(f, s, "")
		f.Close()
		if err != nil {
			b.Fatal(err)
		}
		// Rows without a run id: every variant shares them.
		m.Measurements = append([]schema.Measurement(nil), m.Measurements...)
		for i := range m.Measurements {
			m.Measurements[i].RunID = ""
		}
		seeds = append(seeds, m)
	}
	dir := filepath.Join(tmp, "archive")
	if d := os.Getenv("SPEEDMATRIX_KEEP_ARCHIVE"); d != "" {
		dir = d // to profile the listing afterwards
	}
	a, err := archive.Open(dir)
	if err != nil {
		b.Fatal(err)
	}
	w, err := a.NewWriter(ctx)
	if err != nil {
		b.Fatal(err)
	}
	for i := 0; i < n; i++ {
		m := *seeds[i%2]
		m.Run.Model = fmt.Sprintf("%s-v%06d", m.Run.Model, i)
		m.Run.RunID = schema.ComputeRunID(&m)
		if _, err := w.Add(&m); err != nil {
			b.Fatal(err)
		}
	}
	if _, err := w.Close(); err != nil {
		b.Fatal(err)
	}
	floor := testtool.ResetPeakRSS(b)
	var peak float64
	var cpu time.Duration
	for b.Loop() {
		cmd := exec.Command(bin, "compare", "-archive", dir, "-list")
		var out strings.Builder
		cmd.Stdout = &out
		cmd.Stderr = &out
		if err := cmd.Run(); err != nil {
			b.Fatalf("compare -list: %v\n%.2000s", err, out.String())
		}
		if lines := strings.Count(out.String(), "\n"); lines < n {
			b.Fatalf("compare -list printed %d lines for %d runs", lines, n)
		}
		c, p := testtool.Child(cmd.ProcessState)
		peak = max(peak, float64(p)/(1<<20))
		cpu += c
	}
	if peak <= floor*1.1 {
		b.Logf("peak-MB %.0f is the benchmark's own RSS (%.0f MB), not the listing's", peak, floor)
	}
	b.ReportMetric(peak, "peak-MB")
	b.ReportMetric(float64(cpu.Milliseconds())/float64(b.N), "cpu-ms/op")
}
