package ingestcmd

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"testing"
	"time"

	"speedmatrix/archive"
	"speedmatrix/ingest"
	"speedmatrix/internal/testtool"
	"speedmatrix/schema"
)

// benchDocs writes n distinct documents (variants of both seeds) and
// returns their paths and total size.
func benchDocs(b *testing.B, n int) ([]string, int64) {
	b.Helper()
	seeds := []string{testtool.ReadSeed(b, 0), testtool.ReadSeed(b, 1)}
	dir := b.TempDir()
	var names []string
	content := map[string]string{}
	var size int64
	for i := 0; i < n; i++ {
		name := fmt.Sprintf("doc%04d.txt", i)
		names = append(names, name)
		content[name] = testtool.SeedVariant(seeds[i%2], i)
		size += int64(len(content[name]))
	}
	return testtool.WriteFiles(b, dir, names, content), size
}

// BenchmarkIngest1000 ingests 1,000 documents in one call and reports
// documents per second: the whole command (read, parse, append), and
// parse and append alone to show where the time goes.
func BenchmarkIngest1000(b *testing.B) {
	const n = 1000
	paths, size := benchDocs(b, n)
	ctx := context.Background()
	// Wall time on this shared machine mostly measures the neighbours,
	// so CPU time per document is reported as well.
	var cpu0 time.Duration
	report := func(b *testing.B, start time.Time, iters int) {
		b.ReportMetric(float64(n*iters)/time.Since(start).Seconds(), "docs/s")
		b.ReportMetric(float64((testtool.CPU()-cpu0).Microseconds())/float64(n*iters), "cpu-µs/doc")
	}
	b.Run("command", func(b *testing.B) {
		b.SetBytes(size)
		start, iters := time.Now(), 0
		cpu0 = testtool.CPU()
		for b.Loop() {
			dir := filepath.Join(b.TempDir(), "archive")
			code := run(ctx, append([]string{"-archive", dir}, paths...), nil, io.Discard, io.Discard)
			if code != 0 {
				b.Fatalf("exit %d", code)
			}
			iters++
		}
		report(b, start, iters)
	})
	b.Run("parse", func(b *testing.B) {
		b.SetBytes(size)
		start, iters := time.Now(), 0
		cpu0 = testtool.CPU()
		for b.Loop() {
			for _, d := range ingest.Parse(ctx, paths, ingest.Options{}) {
				if d.Err != nil {
					b.Fatal(d.Err)
				}
			}
			iters++
		}
		report(b, start, iters)
	})
	b.Run("append", func(b *testing.B) {
		var ms []*schema.Matrix
		for _, d := range ingest.Parse(ctx, paths, ingest.Options{}) {
			if d.Err != nil {
				b.Fatal(d.Err)
			}
			ms = append(ms, d.Runs...)
		}
		start, iters := time.Now(), 0
		cpu0 = testtool.CPU()
		for b.Loop() {
			a, err := archive.Open(filepath.Join(b.TempDir(), "archive"))
			if err != nil {
				b.Fatal(err)
			}
			res, err := a.Append(ctx, ms)
			if err != nil || res.Added() != n {
				b.Fatalf("added %d: %v", res.Added(), err)
			}
			iters++
		}
		report(b, start, iters)
	})
}
