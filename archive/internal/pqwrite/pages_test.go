package pqwrite

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/klauspost/compress/zstd"

	"speedmatrix/schema"
)

// randomRows returns n rows of table tb's type with random values: nil
// and set pointers, nil, empty and longer lists, repeated and distinct
// strings (empty ones too), NaN and infinite figures, zero times.
func randomRows(tb *Table, rng *rand.Rand, n int) reflect.Value {
	rows := reflect.MakeSlice(reflect.SliceOf(tb.typ), n, n)
	strs := []string{"", "a", "b", "decode", "ünïcode", strings.Repeat("long ", 60)}
	var fill func(v reflect.Value)
	fill = func(v reflect.Value) {
		if v.Type() == timeType {
			if rng.IntN(4) > 0 {
				v.Set(reflect.ValueOf(time.UnixMicro(rng.Int64N(1 << 50)).UTC()))
			}
			return
		}
		switch v.Kind() {
		case reflect.String:
			if rng.IntN(3) == 0 {
				v.SetString(strs[rng.IntN(len(strs))] + string(rune('a'+rng.IntN(26))))
			} else {
				v.SetString(strs[rng.IntN(len(strs))])
			}
		case reflect.Int32, reflect.Int64:
			if rng.IntN(2) == 0 {
				v.SetInt(rng.Int64N(5))
			} else {
				v.SetInt(rng.Int64N(1<<31) - 1<<30)
			}
		case reflect.Float64:
			v.SetFloat([]float64{math.NaN(), math.Inf(1), math.Inf(-1), math.Copysign(0, -1), 1.5, rng.NormFloat64()}[rng.IntN(6)])
		case reflect.Bool:
			v.SetBool(rng.IntN(2) == 0)
		case reflect.Pointer:
			if rng.IntN(3) > 0 {
				p := reflect.New(v.Type().Elem())
				fill(p.Elem())
				v.Set(p)
			}
		case reflect.Slice:
			switch k := rng.IntN(8); k {
			case 0: // nil: a null list
			case 1:
				v.Set(reflect.MakeSlice(v.Type(), 0, 0))
			default:
				s := reflect.MakeSlice(v.Type(), k, k)
				for i := range k {
					fill(s.Index(i))
				}
				v.Set(s)
			}
		case reflect.Struct:
			for i := range v.NumField() {
				if v.Type().Field(i).IsExported() {
					fill(v.Field(i))
				}
			}
		}
	}
	for i := range n {
		fill(rows.Index(i))
		if tb.runID >= 0 && i > 0 && rng.IntN(4) > 0 {
			rows.Index(i).Field(tb.runID).Set(rows.Index(i - 1).Field(tb.runID)) // runs of rows
		}
	}
	return rows
}

// sameRandomRows writes random rows of a table with row groups of at
// most groups rows and pages of at most levels levels, whole or
// streamed, and compares the file with pqarrow's (compareFiles).
func sameRandomRows(t *testing.T, seed uint64, n, groups, levels, table int, stream bool) {
	smallGroups(t, groups)
	pagesOf(t, levels)
	tb := tableByName(Tables[table%len(Tables)])
	rows := randomRows(tb, rand.New(rand.NewPCG(seed, 7)), n)
	var got bytes.Buffer
	if stream {
		got = streamFile(t, tb, rows, 1+n/3)
	} else if err := tb.write(&got, rows); err != nil {
		t.Fatal(err)
	}
	compareFiles(t, got.Bytes(), refFile(t, tb, rows, stream))
}

// TestRandomRowsAsArrow compares the writer with pqarrow on random rows
// of every table, in groups and pages of several sizes.
func TestRandomRowsAsArrow(t *testing.T) {
	for seed := range uint64(24) {
		n := []int{1, 7, 100, 700}[seed%4]
		groups := []int{1, 10, 8192}[seed%3]
		levels := []int{1, 5, 64, 1 << 17}[seed/4%4]
		t.Run(Tables[seed%3], func(t *testing.T) {
			sameRandomRows(t, seed, n, groups, levels, int(seed%3), seed%5 == 0)
		})
	}
}

// FuzzRandomRowsAsArrow is TestRandomRowsAsArrow for any seed and sizes.
func FuzzRandomRowsAsArrow(f *testing.F) {
	f.Add(uint64(1), uint16(50), uint16(10), uint16(3), uint8(1), false)
	f.Add(uint64(2), uint16(300), uint16(8192), uint16(1000), uint8(0), true)
	f.Fuzz(func(t *testing.T, seed uint64, n, groups, levels uint16, table uint8, stream bool) {
		sameRandomRows(t, seed, 1+int(n%1000), 1+int(groups), 1+int(levels), int(table), stream)
	})
}

// TestStatisticsOfStreamedRunIDs checks run_id's bounds when the run ids
// of a group are many distinct long strings (the dictionary falls back
// to PLAIN, whose values are views of the rows): the bounds are copies,
// still right after the rows are gone.
func TestStatisticsOfStreamedRunIDs(t *testing.T) {
	var rows []schema.Measurement
	for i := range 5000 { // 2 MB of distinct ids: past the dictionary's limit
		rows = append(rows, schema.Measurement{RunID: fmt.Sprintf("%0400d", i)}) // the largest among the PLAIN ones
	}
	tb := tableByName(TableMeasurements)
	got := streamFile(t, tb, reflect.ValueOf(rows), 500) // copies, dropped after each piece
	compareFiles(t, got.Bytes(), refFile(t, tb, reflect.ValueOf(rows), true))
	if p := chunkPages(t, openBytes(t, got.Bytes()).MetaData().RowGroup(0), 0); !strings.Contains(p, "DATA_PAGE PLAIN") {
		t.Fatalf("run_id: %s, no PLAIN data pages: the dictionary did not fall back", p)
	}
}

// TestDictionaryDroppedBeforeFirstPage has dictionaries outgrow a small
// limit before their first page: their values so far are re-encoded
// PLAIN and the chunk has no dictionary, as pqarrow writes it with the
// same limit.
func TestDictionaryDroppedBeforeFirstPage(t *testing.T) {
	const limit = 1000
	var rows []schema.Measurement
	for i := range 300 { // 300 distinct reasons of 50 bytes, 300 distinct counts
		n := int32(i)
		rows = append(rows, schema.Measurement{RunID: "r", Phase: schema.PhaseDecode, Concurrency: &n,
			StatusReason: fmt.Sprintf("%050d", i)})
	}
	tb := tableByName(TableMeasurements)
	var got bytes.Buffer
	fw, err := tb.newFileWriter(&got)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range fw.chunks {
		c.dictLimit = limit
	}
	if err := fw.WriteGroups(reflect.ValueOf(rows)); err != nil {
		t.Fatal(err)
	}
	if err := fw.Close(); err != nil {
		t.Fatal(err)
	}
	compareFiles(t, got.Bytes(), refFileWith(t, tb, reflect.ValueOf(rows), false, parquet.WithDictionaryPageSizeLimit(limit)))
	md := openBytes(t, got.Bytes()).MetaData()
	for c := range md.Schema.NumColumns() {
		p := chunkPages(t, md.RowGroup(0), c)
		switch path := md.Schema.Column(c).Path(); path {
		case "status_reason", "concurrency":
			if strings.HasPrefix(p, "dictionary true") {
				t.Errorf("%s: %s, want no dictionary", path, p)
			}
		case "run_id", "phase":
			if !strings.HasPrefix(p, "dictionary true") {
				t.Errorf("%s: %s, want a dictionary", path, p)
			}
		}
	}
}

// TestSmallPages streams 3,000 rows into one row group with pages cut
// at 300 levels: no chunk holds more than a page between pieces, and
// the file holds pqarrow's rows.
func TestSmallPages(t *testing.T) {
	pagesOf(t, 300)
	_, seed := seedRows(t)
	var rows []schema.Measurement
	for len(rows) < 3000 {
		rows = append(rows, seed...)
	}
	rows = rows[:3000]
	tb := tableByName(TableMeasurements)
	var got bytes.Buffer
	fw, err := tb.newFileWriter(&got)
	if err != nil {
		t.Fatal(err)
	}
	err = fw.WriteStream(func(put func(reflect.Value) error) error {
		for from := 0; from < len(rows); from += 500 {
			if err := put(reflect.ValueOf(rows[from : from+500])); err != nil {
				return err
			}
			for i, c := range fw.chunks {
				if n := c.pageLevels(); n >= maxPageLevels {
					t.Fatalf("after row %d, leaf %d holds a page of %d levels", from+500, i, n)
				}
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
	compareFiles(t, got.Bytes(), refFile(t, tb, reflect.ValueOf(rows), true))
	// Each piece of 500 rows holds more than 300 levels of every column:
	// a page each at least.
	pf := openBytes(t, got.Bytes())
	for c := 0; c < pf.MetaData().Schema.NumColumns(); c++ {
		pr, err := pf.RowGroup(0).GetColumnPageReader(c)
		if err != nil {
			t.Fatal(err)
		}
		pages := 0
		for pr.Next() {
			if pr.Page().Type().String() == "DATA_PAGE" {
				pages++
			}
		}
		if err := pr.Err(); err != nil {
			t.Fatal(err)
		}
		if pages < 6 {
			t.Errorf("column %s: %d data pages", pf.MetaData().Schema.Column(c).Path(), pages)
		}
	}
}

// TestOneLevelPages writes rows holding empty strings, lists and nulls
// (run_id among them, whose statistics count "" as its minimum) in pages
// of one level each: the file holds pqarrow's rows.
func TestOneLevelPages(t *testing.T) {
	pagesOf(t, 1)
	rows := []schema.Measurement{{}, {RunID: "a", Printed: []schema.KV{{}, {Key: "k"}}}, {}, {RunID: "z", Printed: []schema.KV{}}}
	sameAsArrow(t, rows)
}

// pagesOf cuts pages at n levels for the test.
func pagesOf(t *testing.T, n int) {
	prev := maxPageLevels
	maxPageLevels = n
	t.Cleanup(func() { maxPageLevels = prev })
}

// TestRawFrames checks the frames zstdEncode writes pages under
// rawFrameMax bytes in, raw: zstd decoders (arrow-go's codec, klauspost's
// decoder) read back the same bytes, after whatever dst held.
func TestRawFrames(t *testing.T) {
	codec, err := compress.GetCodec(compress.Codecs.Zstd)
	if err != nil {
		t.Fatal(err)
	}
	dec, err := zstd.NewReader(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer dec.Close()
	for _, n := range []int{0, 1, 15, 16, 64, 200, rawFrameMax - 1, rawFrameMax, 1000} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			src := bytes.Repeat([]byte("levels\x00\x01"), n/8+1)[:n]
			enc, err := zstdEncode([]byte("before"), src)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.HasPrefix(enc, []byte("before")) {
				t.Fatal("the bytes before were changed")
			}
			frame := enc[len("before"):]
			if raw := n < rawFrameMax; raw != (len(frame) == n+9) {
				t.Fatalf("%d bytes in a frame of %d: raw %v", n, len(frame), raw)
			}
			got, err := dec.DecodeAll(frame, nil)
			if err != nil || !bytes.Equal(got, src) {
				t.Fatalf("decoded %q, %v; want %q", got, err, src)
			}
			if got := codec.Decode(make([]byte, n), frame); !bytes.Equal(got, src) {
				t.Fatalf("arrow-go decoded %q, want %q", got, src)
			}
		})
	}
}
