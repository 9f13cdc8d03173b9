package iceberg

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"speedmatrix/archive"
	"speedmatrix/internal/testtool"
	"speedmatrix/schema"
)

// BenchmarkPushScale pushes a directory archive of 1,000 documents to a
// table on a SQLite catalog with its files on versitygw (behind a
// counting proxy), then appends one document at a time, and reports the
// wall time and the S3 requests of each operation. The figures are in
// docs/iceberg.md:
//
//	go test ./archive/iceberg -run '^$' -bench PushScale -benchtime 1x -v
func BenchmarkPushScale(b *testing.B) {
	ctx := context.Background()
	s3 := testtool.StartVersitygw(b, "bench")
	counter := &testtool.RequestCounter{}
	p := startFaultProxy(b, s3.Endpoint)
	p.count = counter.Count
	proxy := p.url
	b.Setenv("AWS_ACCESS_KEY_ID", s3.AccessKey)
	b.Setenv("AWS_SECRET_ACCESS_KEY", s3.Secret)
	b.Setenv("AWS_ENDPOINT_URL", proxy)
	b.Setenv("AWS_REGION", "us-east-1")
	docs := benchMatrices(0, 1000)
	for range b.N {
		local, err := archive.Open(filepath.Join(b.TempDir(), "archive"))
		if err != nil {
			b.Fatal(err)
		}
		if _, err := local.Append(ctx, docs); err != nil {
			b.Fatal(err)
		}
		ref := parseRef(b, "iceberg+sqlite://"+filepath.ToSlash(filepath.Join(b.TempDir(), "catalog.db"))+"?warehouse=s3://bench/scale#bench")
		a, err := Open(ctx, ref, Options{Create: true})
		if err != nil {
			b.Fatal(err)
		}
		b.Logf("open (namespace and 3 tables made): S3 requests %s", counter.Take())
		t0, c0 := time.Now(), testtool.CPU()
		res, err := a.Push(ctx, local)
		if err != nil || len(res.Items) != 1000 {
			b.Fatalf("push: %d items, %v", len(res.Items), err)
		}
		b.Logf("push of 1,000 documents: %v wall, %v CPU; S3 requests %s", time.Since(t0).Round(time.Millisecond), (testtool.CPU() - c0).Round(time.Millisecond), counter.Take())
		t0 = time.Now()
		if _, err := a.Push(ctx, local); err != nil {
			b.Fatal(err)
		}
		b.Logf("second push (nothing to add): %v wall; S3 requests %s", time.Since(t0).Round(time.Millisecond), counter.Take())
		for i, m := range benchMatrices(1000, 1003) {
			t0 = time.Now()
			if _, err := a.Append(ctx, []*schema.Matrix{m}); err != nil {
				b.Fatal(err)
			}
			b.Logf("one-document append %d into 1,000+ runs: %v wall; S3 requests %s", i+1, time.Since(t0).Round(time.Millisecond), counter.Take())
		}
		t0 = time.Now()
		s, err := a.Snapshot(ctx)
		if err != nil {
			b.Fatal(err)
		}
		if l, err := s.List(ctx); err != nil || len(l) != 1003 {
			b.Fatalf("list: %d %v", len(l), err)
		}
		b.Logf("listing 1,003 runs (compare -list): %v wall; S3 requests %s", time.Since(t0).Round(time.Millisecond), counter.Take())
		a.Close()
	}
}
