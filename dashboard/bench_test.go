package dashboard

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"

	"speedmatrix/archive"
	"speedmatrix/internal/testtool"
	"speedmatrix/schema"
)

// benchArchive writes n runs shaped like the seeds (their metadata and
// 46 measurement rows each, the model name numbered) in one transaction.
func benchArchive(b *testing.B, n int) *archive.Archive {
	b.Helper()
	root := testtool.RepoRoot(b)
	var seeds []*schema.Matrix
	for _, s := range []string{seedBF16, seedINT4} {
		m := parseFile(b, filepath.Join(root, s))[0]
		m.Measurements = append([]schema.Measurement(nil), m.Measurements...)
		for i := range m.Measurements {
			m.Measurements[i].RunID = ""
		}
		seeds = append(seeds, m)
	}
	dir := filepath.Join(b.TempDir(), "archive")
	if d := os.Getenv("SPEEDMATRIX_KEEP_ARCHIVE"); d != "" {
		dir = d
	}
	a, err := archive.Open(dir)
	if err != nil {
		b.Fatal(err)
	}
	w, err := a.NewWriter(context.Background())
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
	return a
}

// BenchmarkRunsFirstPage serves the first Runs page (50 rows, newest
// first) of a generated archive: "cold" reads the listing (a fresh
// server each time), "warm" answers from the listing cached for the
// archive's snapshot, "filtered" adds a free-text filter and a sort.
// -benchmem's B/op of "cold" is what reading the listing allocates.
//
//	go test ./dashboard -run XXX -bench RunsFirstPage -benchtime 5x
//	SPEEDMATRIX_BENCH_RUNS=100000 go test ./dashboard -run XXX -bench RunsFirstPage -benchtime 3x
func BenchmarkRunsFirstPage(b *testing.B) {
	n := 10000
	if s := os.Getenv("SPEEDMATRIX_BENCH_RUNS"); s != "" {
		fmt.Sscan(s, &n)
	}
	start := time.Now()
	a := benchArchive(b, n)
	b.Logf("%d runs written in %v", n, time.Since(start).Round(time.Millisecond))
	page := func(b *testing.B, h http.Handler, target string) {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest("GET", target, nil))
		if rec.Code != 200 {
			b.Fatalf("status %d: %.300s", rec.Code, rec.Body.String())
		}
	}
	b.Run(fmt.Sprintf("cold/%d", n), func(b *testing.B) {
		for b.Loop() {
			page(b, newServer(a, Options{}), "/runs")
		}
	})
	h := newServer(a, Options{})
	page(b, h, "/runs")
	b.Run(fmt.Sprintf("warm/%d", n), func(b *testing.B) {
		for b.Loop() {
			page(b, h, "/runs")
		}
	})
	b.Run(fmt.Sprintf("filtered/%d", n), func(b *testing.B) {
		for b.Loop() {
			page(b, h, "/runs?q=blackwell&sort=model&dir=asc&page=3")
		}
	})
}
