package pqwrite

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"reflect"
	"runtime"
	"runtime/debug"
	"slices"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"speedmatrix/schema"
)

// refRecord builds an Arrow record of rows (a slice of tb.typ) the slow,
// obvious way: a reflect.Value per cell into pqarrow's own builders. It
// is the reference the page writer is held to.
func refRecord(tb *Table, rows reflect.Value) arrow.RecordBatch {
	rb := array.NewRecordBuilder(mem, tb.schema)
	defer rb.Release()
	for j, c := range tb.cols {
		for i := 0; i < rows.Len(); i++ {
			refAppend(rb.Field(j), rows.Index(i).Field(c.Field))
		}
	}
	return rb.NewRecordBatch()
}

// refAppend appends the Go value v to b (see NewTable for the mapping).
func refAppend(b array.Builder, v reflect.Value) {
	if v.Type() == timeType {
		b.(*array.TimestampBuilder).Append(arrow.Timestamp(v.Interface().(time.Time).UnixMicro()))
		return
	}
	switch v.Kind() {
	case reflect.String:
		b.(*array.StringBuilder).Append(v.String())
	case reflect.Int32:
		b.(*array.Int32Builder).Append(int32(v.Int()))
	case reflect.Int64:
		b.(*array.Int64Builder).Append(v.Int())
	case reflect.Float64:
		b.(*array.Float64Builder).Append(v.Float())
	case reflect.Bool:
		b.(*array.BooleanBuilder).Append(v.Bool())
	case reflect.Pointer:
		if v.IsNil() {
			b.AppendNull()
			return
		}
		refAppend(b, v.Elem())
	case reflect.Slice:
		if v.IsNil() {
			b.AppendNull()
			return
		}
		lb := b.(*array.ListBuilder)
		sb := lb.ValueBuilder().(*array.StructBuilder)
		lb.Append(true)
		for k := 0; k < v.Len(); k++ {
			sb.Append(true)
			e, j := v.Index(k), 0
			for i := 0; i < e.NumField(); i++ {
				if _, ok := jsonName(e.Type().Field(i)); ok {
					refAppend(sb.FieldBuilder(j), e.Field(i))
					j++
				}
			}
		}
	default:
		panic("refAppend: " + v.Type().String())
	}
}

// refFile writes rows as pqarrow writes an Arrow record: the same
// properties, stored schema and row groups (tb.groups) as the archive writes them.
// stream writes the rows as one buffered row group instead.
func refFile(t *testing.T, tb *Table, rows reflect.Value, stream bool) []byte {
	t.Helper()
	return refFileWith(t, tb, rows, stream)
}

// refFileWith is refFile with more writer properties.
func refFileWith(t *testing.T, tb *Table, rows reflect.Value, stream bool, more ...parquet.WriterProperty) []byte {
	t.Helper()
	var buf bytes.Buffer
	fw, err := pqarrow.NewFileWriter(tb.schema, &buf, Props(tb.plain, more...), pqarrow.NewArrowWriterProperties(pqarrow.WithStoreSchema()))
	if err != nil {
		t.Fatal(err)
	}
	rec := refRecord(tb, rows)
	defer rec.Release()
	groups := tb.groups(rows, groupRows)
	if stream {
		groups = [][2]int{{0, rows.Len()}}
	}
	for _, g := range groups {
		part := rec.NewSlice(int64(g[0]), int64(g[1]))
		if err := fw.Write(part); err != nil {
			t.Fatal(err)
		}
		part.Release()
	}
	if err := fw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestSameRowsAsArrow holds the page writer to pqarrow writing an
// Arrow record of the same rows: the same key/value metadata (stored
// Arrow schema included), Parquet schema, row groups with the same row
// counts and column statistics, and the same table read back by pqarrow
// (as pyarrow and DuckDB read it).
func TestSameRowsAsArrow(t *testing.T) {
	runs, seed := seedRows(t)
	edge := []schema.Measurement{
		filled[schema.Measurement](t, 1), {}, filled[schema.Measurement](t, 2),
		{RunID: "z", Printed: []schema.KV{}, Extra: []schema.Metric{}},
		{RunID: "z", TotalTokS: schema.F64(math.Inf(1)), TTFTMs: schema.F64(math.NaN()),
			Extra: []schema.Metric{{Name: "", Value: math.Inf(-1)}}, Printed: []schema.KV{{}, {Key: "k"}}},
	}
	emptyLists := filled[schema.Run](t, 4)
	emptyLists.LaunchFlags, emptyLists.Metadata = []schema.KV{}, []schema.Field{}
	var many []schema.Measurement
	for len(many) < 3000 {
		many = append(many, seed...)
	}
	many = many[:3000]
	tests := []struct {
		name   string
		rows   any
		groups int // row group size (groupRows) for the test
		stream bool
	}{
		{"seed measurements", seed, 8192, false},
		{"seed measurements, a group per run", seed, 10, false},
		{"seed runs", runs, 8192, false},
		{"every field set, zero, empty, odd values", edge, 8192, false},
		{"runs with every field set, zero, empty lists", []schema.Run{filled[schema.Run](t, 1), {}, emptyLists}, 8192, false},
		{"samples", []schema.Sample{filled[schema.Sample](t, 1), {}, filled[schema.Sample](t, 2)}, 8192, false},
		{"3,000 rows in pieces of 1,000, one group", many, 8192, true},
		{"no rows streamed: one empty group", []schema.Measurement{}, 8192, true},
		{"no runs streamed", []schema.Run{}, 8192, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			smallGroups(t, tt.groups)
			rows := reflect.ValueOf(tt.rows)
			tb := tableOfRows(rows)
			var got bytes.Buffer
			if tt.stream {
				got = streamFile(t, tb, rows, 1000)
			} else if err := tb.write(&got, rows); err != nil {
				t.Fatal(err)
			}
			compareFiles(t, got.Bytes(), refFile(t, tb, rows, tt.stream))
		})
	}
}

// TestSameRowsAsArrowRuns is TestSameRowsAsArrow for rows written run by
// run (fileWriter.writeRuns, as a Writer's batch): rows that do not
// carry their run's id are written with it, and the row groups are those
// of the runs' rows in one slice.
func TestSameRowsAsArrowRuns(t *testing.T) {
	_, seed := seedRows(t)
	var runs []Run
	for from := 0; from < len(seed); {
		to := from
		for to < len(seed) && seed[to].RunID == seed[from].RunID {
			to++
		}
		bare := slices.Clone(seed[from:to])
		for i := range bare {
			bare[i].RunID = "" // as a parser leaves them
		}
		for part := 0; part < len(bare); part += 20 { // as if three runs
			runs = append(runs, Run{reflect.ValueOf(bare[part:min(part+20, len(bare))]), fmt.Sprintf("%s-%02d", seed[from].RunID, part)})
		}
		from = to
	}
	var withIDs []schema.Measurement
	for _, r := range runs {
		for _, m := range r.Rows.Interface().([]schema.Measurement) {
			m.RunID = r.ID
			withIDs = append(withIDs, m)
		}
	}
	for _, groups := range []int{8192, 45, 20} {
		t.Run(fmt.Sprintf("groups of %d rows", groups), func(t *testing.T) {
			smallGroups(t, groups)
			tb := tableByName(TableMeasurements)
			var got bytes.Buffer
			fw, err := tb.newFileWriter(&got)
			if err != nil {
				t.Fatal(err)
			}
			if err := fw.WriteRuns(runs); err != nil {
				t.Fatal(err)
			}
			if err := fw.Close(); err != nil {
				t.Fatal(err)
			}
			compareFiles(t, got.Bytes(), refFile(t, tb, reflect.ValueOf(withIDs), false))
		})
	}
}

// streamFile writes rows through writeStream, in pieces of size rows.
func streamFile(t *testing.T, tb *Table, rows reflect.Value, size int) bytes.Buffer {
	t.Helper()
	var buf bytes.Buffer
	streamTo(t, &buf, tb, rows, size)
	return buf
}

// streamTo writes rows through writeStream to w, in pieces of size rows,
// each a copy with no room after it (as AddRows gets them).
func streamTo(t *testing.T, w io.Writer, tb *Table, rows reflect.Value, size int) {
	t.Helper()
	fw, err := tb.newFileWriter(w)
	if err != nil {
		t.Fatal(err)
	}
	err = fw.WriteStream(func(put func(reflect.Value) error) error {
		for from := 0; from < rows.Len(); from += size {
			k := min(size, rows.Len()-from)
			piece := reflect.MakeSlice(rows.Type(), k, k)
			reflect.Copy(piece, rows.Slice(from, from+k))
			if err := put(piece); err != nil {
				return err
			}
		}
		return nil
	})
	if err == nil {
		err = fw.Close()
	}
	if err != nil {
		t.Fatal(err)
	}
}

// TestWriteUnderGC writes rows full of empty strings, lists and pointers
// many times, whole and in clipped pieces (no room after them, as
// AddRows gets them), while the collector runs all the time: the
// writer's views of the rows' strings (rawBytes, which the collector
// does not see) must never point at memory the collector may free, and
// no pointer it makes may point past the rows. Each of the two bugs it
// found stopped the process ("found pointer to free object", "found bad
// pointer in Go heap"), the second in every run of it.
func TestWriteUnderGC(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(1))
	_, seed := seedRows(t)
	var rows []schema.Measurement
	for len(rows) < 4096 {
		rows = append(rows, seed...)
	}
	rows = slices.Clip(rows) // no room after the rows: see writeSpans
	tb := tableByName(TableMeasurements)
	for i := 0; i < 25; i++ {
		if err := writeFile(io.Discard, rows); err != nil {
			t.Fatal(err)
		}
		streamTo(t, io.Discard, tb, reflect.ValueOf(rows), 2*recordRows) // in pieces
		runtime.GC()
	}
}

// TestPlainDoubles checks the encodings the writer chose: doubles without
// a dictionary, run ids with one.
func TestPlainDoubles(t *testing.T) {
	_, seed := seedRows(t)
	var buf bytes.Buffer
	if err := writeFile(&buf, seed); err != nil {
		t.Fatal(err)
	}
	pf, err := file.NewParquetReader(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	rg := pf.MetaData().RowGroup(0)
	doubles := 0
	for c := 0; c < pf.MetaData().Schema.NumColumns(); c++ {
		cc, err := rg.ColumnChunk(c)
		if err != nil {
			t.Fatal(err)
		}
		col := pf.MetaData().Schema.Column(c)
		dict := cc.HasDictionaryPage()
		switch {
		case col.PhysicalType() == parquet.Types.Double:
			doubles++
			if dict {
				t.Errorf("%s: a dictionary", col.Path())
			}
		case col.Path() == "run_id" && !dict:
			t.Errorf("run_id: no dictionary")
		}
	}
	if doubles < 10 {
		t.Fatalf("%d double columns", doubles)
	}
}

// TestStatisticsOnRunIDOnly checks which columns carry min/max
// statistics: run_id, which reads prune row groups on, and no other
// (see writerProps).
func TestStatisticsOnRunIDOnly(t *testing.T) {
	runs, seed := seedRows(t)
	for _, b := range [][]byte{writeBytes(t, seed), writeBytes(t, runs)} {
		pf, err := file.NewParquetReader(bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		sc := pf.MetaData().Schema
		for c := 0; c < sc.NumColumns(); c++ {
			cc, err := pf.MetaData().RowGroup(0).ColumnChunk(c)
			if err != nil {
				t.Fatal(err)
			}
			set, err := cc.StatsSet()
			if err != nil {
				t.Fatal(err)
			}
			if want := sc.Column(c).Path() == "run_id"; set != want {
				t.Errorf("%s: statistics %v, want %v", sc.Column(c).Path(), set, want)
			}
		}
	}
}

// writeBytes returns the Parquet file WriteFile writes of rows.
func writeBytes[T any](t *testing.T, rows []T) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := writeFile(&buf, rows); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}
