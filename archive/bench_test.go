package archive

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"sync"
	"testing"
	"time"

	"speedmatrix/internal/testtool"
	"speedmatrix/schema"
)

// reportCPU reports the CPU time per operation since start.
func reportCPU(b *testing.B, start time.Duration) {
	b.ReportMetric(float64((testtool.CPU()-start).Microseconds())/1000/float64(b.N), "cpu-ms/op")
}

// benchArchives holds the archives BenchmarkRuns10000 reads, built once.
var benchArchives struct {
	once      sync.Once
	batched   string // 10,000 runs appended in 10 calls of 1,000
	compacted string // the same, compacted into one file per table
	small     string // 1,000 runs in 1,000 files (one Append each)
	err       error
}

// buildBenchArchives writes the benchmark archives. The 1,000-file one is
// written with WriteFile directly (same layout as 1,000 Appends, without
// their fsyncs) to keep the set-up short.
func buildBenchArchives(b *testing.B) {
	benchArchives.once.Do(func() {
		ctx := context.Background()
		root := b.TempDir()
		mk := func(name string) *Archive {
			a, err := Open(filepath.Join(root, name))
			if err != nil {
				benchArchives.err = err
			}
			return a
		}
		batched, compacted := mk("batched"), mk("compacted")
		for k := 0; k < 10 && benchArchives.err == nil; k++ {
			ms := testMatrices(k*1000, (k+1)*1000)
			for _, a := range []*Archive{batched, compacted} {
				if _, err := a.Append(ctx, ms); err != nil {
					benchArchives.err = err
				}
			}
		}
		if benchArchives.err == nil {
			benchArchives.err = compacted.Compact(ctx)
		}
		small := mk("small")
		for i := 0; i < 1000 && benchArchives.err == nil; i++ {
			m := stored(testMatrix(i))
			stem := newStem(time.Now())
			for _, w := range []struct {
				table string
				rows  reflect.Value
			}{{TableMeasurements, reflect.ValueOf(m.Measurements)}, {TableRuns, reflect.ValueOf([]schema.Run{m.Run})}} {
				p := filepath.Join(small.Dir(), w.table, stem+dataExt)
				if err := writeTemp(p, func(f *os.File) error { return tableByName(w.table).write(f, w.rows) }); err != nil {
					benchArchives.err = err
				}
			}
		}
		benchArchives.batched, benchArchives.compacted, benchArchives.small = batched.Dir(), compacted.Dir(), small.Dir()
	})
	if benchArchives.err != nil {
		b.Fatal(benchArchives.err)
	}
}

// BenchmarkRuns10000 lists and loads runs from an archive of 10,000 runs
// (50,000 measurements), batched (10 files per table) or compacted (1),
// and from 1,000 runs left in 1,000 small files (what compaction is for).
// LoadTwo is what compare of two archived runs costs (Runs, then Load of
// two ids: the row groups of the two runs); ListCells what compare -list
// reads.
// Each operation opens the archive afresh, as a new process would.
func BenchmarkRuns10000(b *testing.B) {
	buildBenchArchives(b)
	ctx := context.Background()
	for _, arc := range []struct {
		name string
		dir  *string
		runs int
	}{
		{"batched", &benchArchives.batched, 10000},
		{"compacted", &benchArchives.compacted, 10000},
		{"1000files", &benchArchives.small, 1000},
	} {
		open := func(b *testing.B) *Archive {
			a, err := Open(*arc.dir)
			if err != nil {
				b.Fatal(err)
			}
			return a
		}
		b.Run(arc.name+"/Runs", func(b *testing.B) {
			cpu := testtool.CPU()
			for b.Loop() {
				rs, err := open(b).Runs(ctx)
				if err != nil || len(rs) != arc.runs {
					b.Fatalf("%d runs: %v", len(rs), err)
				}
			}
			reportCPU(b, cpu)
			b.ReportMetric(float64(arc.runs*b.N)/b.Elapsed().Seconds(), "runs/s")
		})
		b.Run(arc.name+"/LoadAll", func(b *testing.B) {
			cpu := testtool.CPU()
			for b.Loop() {
				ms, err := open(b).Load(ctx)
				if err != nil || len(ms) != arc.runs {
					b.Fatalf("%d runs: %v", len(ms), err)
				}
			}
			reportCPU(b, cpu)
			b.ReportMetric(float64(arc.runs*b.N)/b.Elapsed().Seconds(), "runs/s")
		})
		b.Run(arc.name+"/LoadOne", func(b *testing.B) {
			id := testMatrix(arc.runs / 2).Run.RunID
			cpu := testtool.CPU()
			for b.Loop() {
				ms, err := open(b).Load(ctx, id)
				if err != nil || len(ms[0].Measurements) != 5 {
					b.Fatalf("load %s: %v", id, err)
				}
			}
			reportCPU(b, cpu)
		})
		b.Run(arc.name+"/LoadTwo", func(b *testing.B) {
			// What compare of two archived runs reads: the runs, then two
			// of them (from distant row groups) with their rows.
			ids := []string{testMatrix(arc.runs / 3).Run.RunID, testMatrix(arc.runs - 2).Run.RunID}
			cpu := testtool.CPU()
			for b.Loop() {
				a := open(b)
				if _, err := a.Runs(ctx); err != nil {
					b.Fatal(err)
				}
				ms, err := a.Load(ctx, ids...)
				if err != nil || len(ms[0].Measurements) != 5 || len(ms[1].Measurements) != 5 {
					b.Fatalf("load %v: %v", ids, err)
				}
			}
			reportCPU(b, cpu)
		})
		b.Run(arc.name+"/ListCells", func(b *testing.B) {
			// What compare -list reads: the cell-key columns of every run.
			cols := []string{"phase", "context_label", "concurrency", "request_rate"}
			cpu := testtool.CPU()
			for b.Loop() {
				ms, err := open(b).LoadColumns(ctx, cols)
				if err != nil || len(ms) != arc.runs {
					b.Fatalf("%d runs: %v", len(ms), err)
				}
			}
			reportCPU(b, cpu)
			b.ReportMetric(float64(arc.runs*b.N)/b.Elapsed().Seconds(), "runs/s")
		})
		b.Run(arc.name+"/AppendDuplicate", func(b *testing.B) {
			// A new process re-ingesting a known run: the dedupe scan.
			m := testMatrix(arc.runs - 1)
			cpu := testtool.CPU()
			for b.Loop() {
				res, err := open(b).Append(ctx, []*schema.Matrix{m})
				if err != nil || res.Items[0].Outcome != Duplicate {
					b.Fatalf("%v %v", res, err)
				}
			}
			reportCPU(b, cpu)
		})
	}
}
