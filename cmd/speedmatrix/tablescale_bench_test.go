package main

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"speedmatrix/archive/iceberg"
	"speedmatrix/internal/testtool"
	"speedmatrix/parse"
	"speedmatrix/schema"
)

// BenchmarkTableScale builds a shared table of SPEEDMATRIX_TABLE_RUNS
// runs (default 10,000) shaped like the seeds (46 measurement rows each,
// appended 1,000 runs at a time: a file per table per append) in a
// SQLite catalog on versitygw, then runs the commands a team runs
// against it as child processes (the speedmatrix binary, built here) and
// reports each one's wall time, peak RSS and S3 requests: one document
// into it, compare -list, a two-run compare, show, -drop of one run,
// -maintain (compaction, manifests, expiry, orphans) and -list again.
// The figures are in docs/iceberg.md (Scale):
//
//	SPEEDMATRIX_TABLE_RUNS=100000 go test ./cmd/speedmatrix -run '^$' -bench TableScale -benchtime 1x -timeout 60m -v
func BenchmarkTableScale(b *testing.B) {
	n := 10000
	if v := os.Getenv("SPEEDMATRIX_TABLE_RUNS"); v != "" {
		var err error
		if n, err = strconv.Atoi(v); err != nil || n < 1000 {
			b.Fatalf("SPEEDMATRIX_TABLE_RUNS=%q: a number of runs, at least 1000", v)
		}
	}
	ctx := context.Background()
	tmp := b.TempDir()
	bin := filepath.Join(tmp, "speedmatrix")
	if out, err := exec.Command("go", "build", "-o", bin, "speedmatrix/cmd/speedmatrix").CombinedOutput(); err != nil {
		b.Fatalf("go build: %v\n%s", err, out)
	}
	s3 := testtool.StartVersitygw(b, "scale")
	counter := &testtool.RequestCounter{}
	target, _ := url.Parse(s3.Endpoint)
	rp := httputil.NewSingleHostReverseProxy(target)
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		counter.Count(r)
		rp.ServeHTTP(w, r)
	}))
	b.Cleanup(proxy.Close)
	env := []string{"AWS_ACCESS_KEY_ID=" + s3.AccessKey, "AWS_SECRET_ACCESS_KEY=" + s3.Secret,
		"AWS_ENDPOINT_URL=" + proxy.URL, "AWS_REGION=us-east-1"}
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		b.Setenv(k, v)
	}
	refText := "iceberg+sqlite://" + filepath.ToSlash(filepath.Join(tmp, "catalog.db")) + "?warehouse=s3://scale/wh#scale"
	ref, err := iceberg.ParseRef(refText)
	if err != nil {
		b.Fatal(err)
	}

	var seeds []*schema.Matrix
	for _, p := range testtool.SeedPaths(b) {
		f, err := os.Open(p)
		if err != nil {
			b.Fatal(err)
		}
		m, err := parse.Parse(f, p, "")
		f.Close()
		if err != nil {
			b.Fatal(err)
		}
		for i := range m.Measurements {
			m.Measurements[i].RunID = "" // each variant's rows take its id
		}
		seeds = append(seeds, m)
	}
	a, err := iceberg.Open(ctx, ref, iceberg.Options{Create: true, Timeout: 5 * time.Minute})
	if err != nil {
		b.Fatal(err)
	}
	t0, c0 := time.Now(), testtool.CPU()
	var ids []string
	for from := 0; from < n; from += 1000 {
		var chunk []*schema.Matrix
		for i := from; i < min(from+1000, n); i++ {
			m := *seeds[i%2]
			m.Run.Model = fmt.Sprintf("%s-v%06d", m.Run.Model, i)
			m.Measurements = append([]schema.Measurement(nil), m.Measurements...)
			m.Run.RunID = schema.ComputeRunID(&m)
			chunk = append(chunk, &m)
			ids = append(ids, m.Run.RunID)
		}
		if _, err := a.Append(ctx, chunk); err != nil {
			b.Fatal(err)
		}
		if (from/1000)%10 == 9 {
			b.Logf("built %d runs: %v wall", from+1000, time.Since(t0).Round(time.Second))
		}
	}
	a.Close()
	b.Logf("table of %d runs built in %d appends: %v wall, %v CPU; S3 requests %s", n, (n+999)/1000,
		time.Since(t0).Round(time.Second), (testtool.CPU() - c0).Round(time.Second), counter.Take())

	// New documents: the table's runs carry the seeds' source_sha256, so
	// a seed itself would be a reread, not added.
	doc, doc2 := filepath.Join(tmp, "new.txt"), filepath.Join(tmp, "new2.txt")
	for p, text := range map[string]string{doc: testtool.SeedVariant(testtool.ReadSeed(b, 0), 999999), doc2: testtool.SeedVariant(testtool.ReadSeed(b, 1), 999998)} {
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	steps := []struct {
		name string
		args []string
	}{
		{"one document into the table", []string{"ingest", "-archive", refText, doc}},
		{"compare -list", []string{"compare", "-archive", refText, "-list"}},
		{"two-run compare", []string{"compare", "-archive", refText, ids[0], ids[n/2+1]}},
		{"show one run", []string{"show", "-archive", refText, ids[n/3]}},
		{"-drop of one run", []string{"ingest", "-archive", refText, "-drop", ids[n/4]}},
		{"-maintain -grace 0s", []string{"ingest", "-archive", refText, "-maintain", "-grace", "0s"}},
		{"compare -list after -maintain", []string{"compare", "-archive", refText, "-list"}},
		{"one document after -maintain", []string{"ingest", "-archive", refText, doc2}},
	}
	gnuTime, _ := exec.LookPath("/usr/bin/time")
	for range b.N {
		for _, st := range steps {
			// GNU time, where there is one, reports the child's own peak
			// RSS: os/exec's vfork carries this process's RSS into a direct
			// child's ru_maxrss, a floor that hides a small command's peak.
			cmd := exec.Command(bin, st.args...)
			if gnuTime != "" {
				cmd = exec.Command(gnuTime, append([]string{"-f", "speedmatrix-peak-kb %M", bin}, st.args...)...)
			}
			var out, errb bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &errb
			// os/exec's vfork carries this process's peak RSS into the
			// child's: reset it, and log what remains of it (floor).
			floor := testtool.ResetPeakRSS(b)
			start := time.Now()
			if err := cmd.Run(); err != nil {
				b.Fatalf("%s: %v\n%s", st.name, err, errb.String())
			}
			wall := time.Since(start)
			cpu, peak := testtool.Child(cmd.ProcessState)
			if gnuTime != "" {
				e := errb.String()
				i := strings.LastIndex(e, "speedmatrix-peak-kb ")
				kb, err := strconv.ParseInt(strings.TrimSpace(e[i+len("speedmatrix-peak-kb "):]), 10, 64)
				if i < 0 || err != nil {
					b.Fatalf("%s: no peak from %s: %q", st.name, gnuTime, e)
				}
				peak, floor = kb*1024, 0
			}
			b.Logf("%-32s %8v wall %8v CPU %6.0f MB peak RSS (this process %.0f MB); S3 requests %s", st.name, wall.Round(time.Millisecond),
				cpu.Round(time.Millisecond), float64(peak)/1e6, floor, counter.Take())
			if strings.HasPrefix(st.name, "one document") && !strings.Contains(out.String(), "\tadded") {
				b.Fatalf("%s: not added:\n%s%s", st.name, out.String(), errb.String())
			}
			if st.args[len(st.args)-2] == "-grace" {
				b.Logf("%s", strings.TrimSpace(out.String()[strings.LastIndex(out.String(), "runs\t"):]))
			}
		}
	}
}
