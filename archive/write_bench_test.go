package archive

import (
	"fmt"
	"reflect"
	"testing"

	"speedmatrix/internal/testtool"
	"speedmatrix/schema"
)

// seedBatch returns the rows of n seed-shaped documents (the two seeds
// repeated under distinct run ids), sorted by run id as a batch is.
func seedBatch(b *testing.B, n int) ([]schema.Run, []schema.Measurement) {
	b.Helper()
	runs, rows := seedRows(b)
	perRun := map[string][]schema.Measurement{}
	for _, r := range rows {
		perRun[r.RunID] = append(perRun[r.RunID], r)
	}
	var outRuns []schema.Run
	var outRows []schema.Measurement
	for i := 0; i < n; i++ {
		r := runs[i%len(runs)]
		src := perRun[r.RunID]
		r.RunID = fmt.Sprintf("%064x", i) // ascending, as sorted
		outRuns = append(outRuns, r)
		for _, m := range src {
			m.RunID = r.RunID
			outRows = append(outRows, m)
		}
	}
	return outRuns, outRows
}

// BenchmarkWriteSeed1000 writes the measurements and runs of 1,000
// seed-shaped documents (46 rows each) as one Parquet file per table, as a
// Writer's batches do: the archive's share of an ingest after parsing.
// It reports CPU time per document besides wall time (the machine is
// shared).
func BenchmarkWriteSeed1000(b *testing.B) {
	const n = 1000
	runs, rows := seedBatch(b, n)
	for _, tt := range []struct {
		name string
		rows reflect.Value
	}{{TableMeasurements, reflect.ValueOf(rows)}, {TableRuns, reflect.ValueOf(runs)}} {
		b.Run(tt.name, func(b *testing.B) {
			tb := tableByName(tt.name)
			b.ReportAllocs()
			var size countWriter
			cpu := testtool.CPU()
			for b.Loop() {
				size = 0
				if err := tb.write(&size, tt.rows); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64((testtool.CPU()-cpu).Microseconds())/float64(n*b.N), "cpu-µs/doc")
			b.ReportMetric(float64(tt.rows.Len()), "rows/op")
			b.ReportMetric(float64(size), "file-bytes")
		})
	}
}

// countWriter counts the bytes written to it.
type countWriter int64

func (c *countWriter) Write(p []byte) (int, error) {
	*c += countWriter(len(p))
	return len(p), nil
}
