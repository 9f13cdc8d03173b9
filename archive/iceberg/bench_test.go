package iceberg

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"speedmatrix/archive"
	"speedmatrix/internal/testtool"
	"speedmatrix/schema"
)

// BenchmarkLocalDefault measures the two candidates for the local
// default (issue 23 item 7), in interleaved rounds on fresh archives:
// the directory archive and an Iceberg table on a SQLite catalog with a
// local warehouse. Per round and format: one append of 1,000 documents
// (CPU per document), a listing of those runs (the compare -list read),
// then 20 appends of one document each (CPU per call: cmd/run's case)
// and the metadata each of those commits left (bytes per commit).
// docs/iceberg-decision.md has the figures:
//
//	go test ./archive/iceberg -run '^$' -bench LocalDefault -benchtime 3x
func BenchmarkLocalDefault(b *testing.B) {
	ctx := context.Background()
	docs := benchMatrices(0, 1000)
	singles := benchMatrices(1000, 1020)
	type figures struct{ appendCPU, listCPU, singleCPU time.Duration }
	var dir, ice figures
	var metaPerCommit int64
	cpu := func(f func()) time.Duration {
		c0 := testtool.CPU()
		f()
		return testtool.CPU() - c0
	}
	must := func(err error) {
		if err != nil {
			b.Fatal(err)
		}
	}
	for range b.N {
		root := b.TempDir()
		// The directory archive.
		d, err := archive.Open(filepath.Join(root, "dir"))
		must(err)
		dir.appendCPU += cpu(func() { _, err = d.Append(ctx, docs); must(err) })
		dir.listCPU += cpu(func() {
			l, err := d.ListRuns(ctx)
			must(err)
			if len(l) != len(docs) {
				b.Fatalf("dir lists %d runs", len(l))
			}
		})
		dir.singleCPU += cpu(func() {
			for _, m := range singles {
				_, err := d.Append(ctx, append(docs[:0:0], m))
				must(err)
			}
		})
		// Iceberg on SQLite with a local warehouse.
		ref, err := ParseRef("iceberg+sqlite://" + filepath.ToSlash(filepath.Join(root, "ice", "catalog.db")))
		must(err)
		var a *Archive
		ice.appendCPU += cpu(func() {
			a, err = Open(ctx, ref, Options{Create: true})
			must(err)
			_, err = a.Append(ctx, docs)
			must(err)
		})
		ice.listCPU += cpu(func() {
			s, err := a.Snapshot(ctx)
			must(err)
			l, err := s.List(ctx)
			must(err)
			if len(l) != len(docs) {
				b.Fatalf("iceberg lists %d runs", len(l))
			}
		})
		before := metadataBytes(b, ref)
		ice.singleCPU += cpu(func() {
			for _, m := range singles {
				_, err := a.Append(ctx, append(docs[:0:0], m))
				must(err)
			}
		})
		metaPerCommit += (metadataBytes(b, ref) - before) / int64(len(singles)*3)
		a.Close()
	}
	n := float64(b.N)
	ms := func(d time.Duration, per int) float64 { return float64(d.Microseconds()) / 1000 / n / float64(per) }
	b.ReportMetric(ms(dir.appendCPU, len(docs)), "dir-ms-cpu/doc")
	b.ReportMetric(ms(ice.appendCPU, len(docs)), "ice-ms-cpu/doc")
	b.ReportMetric(ms(dir.listCPU, 1), "dir-ms-cpu/list")
	b.ReportMetric(ms(ice.listCPU, 1), "ice-ms-cpu/list")
	b.ReportMetric(ms(dir.singleCPU, len(singles)), "dir-ms-cpu/1doc-call")
	b.ReportMetric(ms(ice.singleCPU, len(singles)), "ice-ms-cpu/1doc-call")
	b.ReportMetric(float64(metaPerCommit)/n, "ice-metadata-B/commit")
	b.ReportMetric(0, "ns/op")
}

// benchMatrices returns documents shaped like the seed documents: 46
// measurement rows each (6 contexts × 7 concurrency levels of decode,
// 4 prefill rows), with printed text.
func benchMatrices(from, to int) []*schema.Matrix {
	var out []*schema.Matrix
	for i := from; i < to; i++ {
		m := testMatrix(i)
		m.Measurements = m.Measurements[:0]
		for k, ctxTok := range []int64{1024, 8192, 16384, 32768, 65536, 131072} {
			label := strconv.Itoa(int(ctxTok/1024)) + "K"
			if k < 4 {
				m.Measurements = append(m.Measurements, schema.Measurement{
					Phase: schema.PhasePrefill, ContextLabel: label, ContextTokens: schema.I64(ctxTok), Concurrency: schema.I32(1),
					Status: schema.StatusValid, TotalTokS: schema.F64(50000 + float64(i)), TTFTMs: schema.F64(100 + float64(k)),
					SourceLine: int64(10 + k), Printed: []schema.KV{{Key: "Total tok/s", Value: "50K"}},
				})
			}
			for c := int32(1); c <= 64; c *= 2 {
				m.Measurements = append(m.Measurements, schema.Measurement{
					Phase: schema.PhaseDecode, ContextLabel: label, ContextTokens: schema.I64(ctxTok), Concurrency: schema.I32(c),
					Status: schema.StatusValid, TotalTokS: schema.F64(float64(i) + float64(c)*100.5 - float64(k)),
					TTFTMs: schema.F64(41 + float64(k)), CompletedRequests: schema.I64(int64(c) * 4), SourceLine: int64(100 + 10*k + int(c)),
					Printed: []schema.KV{{Key: "Total tok/s", Value: strconv.Itoa(int(c) * 100)}},
				})
			}
		}
		m.Run.RunID = schema.ComputeRunID(m)
		out = append(out, m)
	}
	return out
}

// metadataBytes sums the sizes of a local warehouse's metadata files
// (metadata.json, manifest lists, manifests) and the catalog file.
func metadataBytes(b *testing.B, ref Ref) int64 {
	var n int64
	root := strings.TrimPrefix(ref.Warehouse, "file://")
	filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.Contains(p, "/metadata/") {
			if st, err := d.Info(); err == nil {
				n += st.Size()
			}
		}
		return nil
	})
	return n
}
