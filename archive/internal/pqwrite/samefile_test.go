package pqwrite

import (
	"bytes"
	"fmt"
	"reflect"
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/metadata"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
)

// compareFiles compares the Parquet file got with want (see
// TestSameRowsAsArrow).
func compareFiles(t *testing.T, got, want []byte) {
	t.Helper()
	g, w := openBytes(t, got), openBytes(t, want)
	gm, wm := g.MetaData(), w.MetaData()
	if !reflect.DeepEqual(kvs(gm.KeyValueMetadata()), kvs(wm.KeyValueMetadata())) {
		t.Fatalf("key/value metadata:\n got %v\nwant %v", kvs(gm.KeyValueMetadata()), kvs(wm.KeyValueMetadata()))
	}
	if !gm.Schema.Equals(wm.Schema) {
		t.Fatalf("Parquet schema:\n got %s\nwant %s", gm.Schema, wm.Schema)
	}
	if gv, wv := gm.Version(), wm.Version(); gv != wv || gm.GetCreatedBy() != wm.GetCreatedBy() {
		t.Fatalf("version %v, created by %q; want %v, %q", gv, gm.GetCreatedBy(), wv, wm.GetCreatedBy())
	}
	if g.NumRowGroups() != w.NumRowGroups() {
		t.Fatalf("%d row groups, want %d", g.NumRowGroups(), w.NumRowGroups())
	}
	for k := 0; k < g.NumRowGroups(); k++ {
		grg, wrg := gm.RowGroup(k), wm.RowGroup(k)
		if grg.NumRows() != wrg.NumRows() {
			t.Fatalf("row group %d: %d rows, want %d", k, grg.NumRows(), wrg.NumRows())
		}
		for c := 0; c < gm.Schema.NumColumns(); c++ {
			path := gm.Schema.Column(c).Path()
			if gs, ws := chunkStats(t, grg, c), chunkStats(t, wrg, c); gs != ws {
				t.Fatalf("row group %d, column %s: statistics\n got %s\nwant %s", k, path, gs, ws)
			}
			// Every leaf's values and levels, as arrow-go's column reader
			// reads them.
			gl, wl := leafValues(t, g, k, c), leafValues(t, w, k, c)
			if gl != wl {
				t.Fatalf("row group %d, column %s: values and levels\n got %.300s\nwant %.300s", k, path, gl, wl)
			}
			// Encoded as pqarrow encodes them (doubles plain by choice:
			// plainDoubles); how many pages is the page size's matter.
			if gm.Schema.Column(c).PhysicalType() == parquet.Types.Double {
				continue
			}
			if ge, we := chunkPages(t, grg, c), chunkPages(t, wrg, c); ge != we {
				t.Fatalf("row group %d, column %s: pages\n got %s\nwant %s", k, path, ge, we)
			}
		}
	}
	read := func(pf *file.Reader) arrow.Table {
		fr, err := pqarrow.NewFileReader(pf, pqarrow.ArrowReadProperties{}, mem)
		if err != nil {
			t.Fatal(err)
		}
		tbl, err := fr.ReadTable(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		return tbl
	}
	gt, wt := read(g), read(w)
	defer gt.Release()
	defer wt.Release()
	if !gt.Schema().Equal(wt.Schema()) || !gt.Schema().Metadata().Equal(wt.Schema().Metadata()) {
		t.Fatalf("Arrow schema read back:\n got %s\nwant %s", gt.Schema(), wt.Schema())
	}
	if gt.NumRows() != wt.NumRows() {
		t.Fatalf("%d rows, want %d", gt.NumRows(), wt.NumRows())
	}
	for c := 0; c < int(wt.NumCols()); c++ {
		if !array.ChunkedApproxEqual(gt.Column(c).Data(), wt.Column(c).Data(), array.WithNaNsEqual(true), array.WithAbsTolerance(0)) {
			t.Fatalf("column %s read back differently", wt.Schema().Field(c).Name)
		}
	}
}

// kvs lists key/value metadata as "key=value" strings.
func kvs(kv metadata.KeyValueMetadata) []string {
	var out []string
	for _, e := range kv {
		v := ""
		if e.Value != nil {
			v = *e.Value
		}
		out = append(out, e.Key+"="+v)
	}
	return out
}

// chunkPages describes column chunk c of rg as readers see its
// encodings: whether it has a dictionary page, its values' count and
// encodings, and the kinds of page it holds (type and encoding, not
// how many of each).
func chunkPages(t *testing.T, rg *metadata.RowGroupMetaData, c int) string {
	t.Helper()
	cc, err := rg.ColumnChunk(c)
	if err != nil {
		t.Fatal(err)
	}
	var pages []string // arrow-go lists them in no fixed order
	for _, e := range cc.EncodingStats() {
		pages = append(pages, fmt.Sprintf("%v %v", e.PageType, e.Encoding))
	}
	slices.Sort(pages)
	encs := slices.Clone(cc.Encodings())
	slices.Sort(encs)
	return fmt.Sprintf("dictionary %v, %d values, %v, encodings %v, compression %v, type %v",
		cc.HasDictionaryPage(), cc.NumValues(), pages, encs, cc.Compression(), cc.Type())
}

// leafValues reads column c of row group k of pf with arrow-go's column
// reader and describes its values and levels.
func leafValues(t *testing.T, pf *file.Reader, k, c int) string {
	t.Helper()
	cr, err := pf.RowGroup(k).Column(c)
	if err != nil {
		t.Fatal(err)
	}
	n := pf.MetaData().RowGroup(k).NumRows() * 64 // levels: lists hold more
	def, rep := make([]int16, n), make([]int16, n)
	var total int64
	var vals any
	switch r := cr.(type) {
	case *file.Int32ColumnChunkReader:
		total, vals = readLeaf(t, r, n, def, rep)
	case *file.Int64ColumnChunkReader:
		total, vals = readLeaf(t, r, n, def, rep)
	case *file.Float64ColumnChunkReader:
		total, vals = readLeaf(t, r, n, def, rep)
	case *file.BooleanColumnChunkReader:
		total, vals = readLeaf(t, r, n, def, rep)
	case *file.ByteArrayColumnChunkReader:
		var v []parquet.ByteArray
		total, v = readLeaf(t, r, n, def, rep)
		s := make([]string, len(v))
		for i := range v {
			s[i] = string(v[i])
		}
		vals = s
	default:
		t.Fatalf("column %d: reader %T", c, cr)
	}
	if cr.HasNext() {
		t.Fatalf("column %d: more than %d levels", c, n)
	}
	desc := pf.MetaData().Schema.Column(c)
	if desc.MaxDefinitionLevel() == 0 {
		def = nil
	}
	if desc.MaxRepetitionLevel() == 0 {
		rep = nil
	}
	// NaN prints as NaN, so equal NaNs compare equal.
	return fmt.Sprintf("%d levels, def %v, rep %v, values %v", total, def[:min(len(def), int(total))],
		rep[:min(len(rep), int(total))], vals)
}

// batchReader is arrow-go's column reader of values of type T.
type batchReader[T any] interface {
	ReadBatch(batchSize int64, values []T, defLvls, repLvls []int16) (int64, int, error)
}

// readLeaf reads up to n levels of r into def and rep, and returns how
// many it read and the values among them.
func readLeaf[T any](t *testing.T, r batchReader[T], n int64, def, rep []int16) (int64, []T) {
	t.Helper()
	v := make([]T, n)
	total, got, err := r.ReadBatch(n, v, def, rep)
	if err != nil {
		t.Fatal(err)
	}
	return total, v[:got]
}

// openBytes opens the Parquet file b.
func openBytes(t *testing.T, b []byte) *file.Reader {
	t.Helper()
	pf, err := file.NewParquetReader(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	return pf
}

// chunkStats describes the statistics of column chunk c of rg.
func chunkStats(t *testing.T, rg *metadata.RowGroupMetaData, c int) string {
	t.Helper()
	cc, err := rg.ColumnChunk(c)
	if err != nil {
		t.Fatal(err)
	}
	st, err := cc.Statistics()
	if err != nil {
		t.Fatal(err)
	}
	if st == nil {
		return "none"
	}
	s := fmt.Sprintf("values %d, nulls %d", st.NumValues(), st.NullCount())
	if st.HasMinMax() {
		s += fmt.Sprintf(", min %x, max %x", st.EncodeMin(), st.EncodeMax())
	}
	return s
}
