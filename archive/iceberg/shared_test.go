package iceberg

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"speedmatrix/archive"
	"speedmatrix/internal/testtool"
)

// TestPostgresVersitygw is a team's set-up on real components: the SQL
// catalog in PostgreSQL 15, the files in an S3 store (versitygw serving a
// directory on loopback), credentials from the AWS environment. Two
// writers append overlapping runs; iceberg-go's scan reads every run
// once; no credential is in any file of the store or in an error.
func TestPostgresVersitygw(t *testing.T) {
	s3 := testtool.StartVersitygw(t, "bench")
	dsn := testtool.StartPostgres(t)
	t.Setenv("AWS_ACCESS_KEY_ID", s3.AccessKey)
	t.Setenv("AWS_SECRET_ACCESS_KEY", s3.Secret)
	t.Setenv("AWS_ENDPOINT_URL", s3.Endpoint)
	t.Setenv("AWS_REGION", "us-east-1")
	ref, err := ParseRef("iceberg+" + dsn + "&warehouse=s3://bench/history#speedmatrix")
	if err != nil {
		t.Fatal(err)
	}
	a, b := openRef(t, ref), openRef(t, ref)
	ctx := context.Background()
	done := make(chan error, 1)
	go func() {
		_, err := b.Append(ctx, testMatrices(2, 6))
		done <- err
	}()
	if _, err := a.Append(ctx, testMatrices(0, 4)); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	res, err := a.Append(ctx, testMatrices(0, 6))
	if err != nil {
		t.Fatal(err)
	}
	if o := outcomes(res); o[archive.Added] != 0 {
		t.Fatalf("append of held runs: %v", o)
	}
	s := checkHolds(t, openRef(t, ref), testMatrices(0, 6))
	files, err := s.DataFiles(ctx, archive.TableRuns)
	if err != nil || len(files) == 0 || !strings.HasPrefix(files[0], "s3://bench/history/") {
		t.Fatalf("runs data files %v, %v", files, err)
	}
	// The store holds the files, and no credential anywhere.
	n := 0
	filepath.WalkDir(filepath.Join(s3.Dir, "bench"), func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		n++
		b, _ := os.ReadFile(p)
		if strings.Contains(string(b), s3.Secret) || strings.Contains(string(b), s3.AccessKey) {
			t.Errorf("%s holds a credential", p)
		}
		return nil
	})
	if n < 9 {
		t.Fatalf("the store holds %d files", n)
	}

	// Wrong credentials: a one-line error, in bounded time, no secret.
	t.Setenv("AWS_SECRET_ACCESS_KEY", "wrong-secret-value")
	start := time.Now()
	c, err := Open(ctx, ref, Options{Create: true, Timeout: 10 * time.Second})
	if err == nil {
		_, err = c.Append(ctx, testMatrices(10, 11))
		c.Close()
	}
	if err == nil || strings.Contains(err.Error(), "wrong-secret-value") || strings.Contains(err.Error(), "\n") {
		t.Fatalf("append with a wrong secret: %v", err)
	}
	if time.Since(start) > 20*time.Second {
		t.Fatalf("the failure took %v", time.Since(start))
	}
	t.Logf("wrong secret: %v", err)
}
