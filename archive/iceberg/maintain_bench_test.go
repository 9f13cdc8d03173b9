package iceberg

import (
	"context"
	"os"
	"strconv"
	"testing"
	"time"

	"speedmatrix/internal/testtool"
)

// BenchmarkMaintain appends SPEEDMATRIX_MAINTAIN_RUNS runs (default
// 5,000; 46 measurement rows each) 1,000 at a time to a table on a SQLite
// catalog with a local warehouse, then times Maintain's compaction of
// them and reports its CPU per measurement row:
//
//	go test ./archive/iceberg -run '^$' -bench Maintain -benchtime 1x -cpuprofile /tmp/maintain.prof
func BenchmarkMaintain(b *testing.B) {
	n := 5000
	if v := os.Getenv("SPEEDMATRIX_MAINTAIN_RUNS"); v != "" {
		n, _ = strconv.Atoi(v)
	}
	ctx := context.Background()
	for range b.N {
		b.StopTimer()
		a := openRef(b, sqliteRef(b))
		for from := 0; from < n; from += 1000 {
			if _, err := a.Append(ctx, benchMatrices(from, min(from+1000, n))); err != nil {
				b.Fatal(err)
			}
		}
		b.StartTimer()
		t0, c0 := time.Now(), testtool.CPU()
		tms, err := a.Maintain(ctx, 0, false)
		if err != nil {
			b.Fatal(err)
		}
		cpu := testtool.CPU() - c0
		b.ReportMetric(float64(cpu.Microseconds())/float64(n*46), "CPU-µs/row")
		b.Logf("maintain of %d runs: %v wall, %v CPU; %+v", n, time.Since(t0).Round(time.Millisecond), cpu.Round(time.Millisecond), tms[1].Compacted)
	}
}
