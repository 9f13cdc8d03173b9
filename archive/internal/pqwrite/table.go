package pqwrite

import (
	"bytes"
	"fmt"
	"reflect"
	"slices"
	"sync"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/metadata"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	pqschema "github.com/apache/arrow-go/v18/parquet/schema"
)

// RunID is the name of the column that says which run a row belongs to:
// rows are cut into row groups at its changes, it is the one column with
// statistics, and a span of rows may be written as carrying an id of its
// own (Writer.WriteRuns).
const RunID = "run_id"

// Column says where one top-level column of a table's Arrow schema lies
// in a row of its Go type.
type Column struct {
	// Field is the index of the row's struct field.
	Field int
	// Elem, for a list column (a slice of structs), holds the index in
	// the element struct of each field of the list's element struct
	// type, in the Arrow schema's order; nil for the others.
	Elem []int
}

// Table is how the rows of one Go struct type are written as Parquet
// files of one Arrow schema: its leaf columns and, made once, the
// Parquet schema, key/value metadata and properties of its files.
type Table struct {
	name   string
	typ    reflect.Type
	schema *arrow.Schema
	cols   []Column
	plain  []string // leaf paths written without a dictionary, besides the doubles
	runID  int      // struct field index of the run_id column, or -1
	leaves []leaf   // the Parquet leaf columns, in file order
	file   fileMeta
}

// NewTable describes the files of rows of typ (a struct type) with Arrow
// schema sc, whose top-level fields lie in the rows as cols says (one
// Column per field of sc, in order). The types map as the archive's
// schema does: string to utf8; int32, int64, float64 and bool to
// themselves; time.Time to timestamp[us] (UTC); a pointer to one of them
// to a nullable column (nil is null); a slice of structs of those fields
// to a nullable list of non-null structs (a nil slice is null). The
// leaf columns named in plain (dotted Parquet paths) are written without
// a dictionary; name names the table in errors.
func NewTable(name string, typ reflect.Type, sc *arrow.Schema, cols []Column, plain ...string) (*Table, error) {
	if typ.Kind() != reflect.Struct {
		return nil, fmt.Errorf("table %s: rows of %s, not a struct", name, typ)
	}
	if len(cols) != sc.NumFields() {
		return nil, fmt.Errorf("table %s: %d columns for %d fields of the schema", name, len(cols), sc.NumFields())
	}
	t := &Table{name: name, typ: typ, schema: sc, cols: slices.Clone(cols), plain: slices.Clone(plain), runID: -1}
	for i, c := range cols {
		af := sc.Field(i)
		if c.Field < 0 || c.Field >= typ.NumField() {
			return nil, fmt.Errorf("table %s: column %s: no field %d in %s", name, af.Name, c.Field, typ)
		}
		f := typ.Field(c.Field)
		if af.Name == RunID && f.Type.Kind() == reflect.String {
			t.runID = c.Field
		}
		ls, err := leavesOf(f, c, af.Name == RunID)
		if err != nil {
			return nil, fmt.Errorf("table %s: column %s: %w", name, af.Name, err)
		}
		t.leaves = append(t.leaves, ls...)
	}
	return t, nil
}

// Name returns the table's name.
func (t *Table) Name() string { return t.name }

// Schema returns the table's Arrow schema.
func (t *Table) Schema() *arrow.Schema { return t.schema }

var timeType = reflect.TypeFor[time.Time]()

// scalarOf returns the scalar writing values of Go type typ, or nil.
func scalarOf(typ reflect.Type) *scalar {
	if typ == timeType {
		return timeScalar
	}
	switch typ.Kind() {
	case reflect.String:
		return stringScalar
	case reflect.Int32:
		return int32Scalar
	case reflect.Int64:
		return int64Scalar
	case reflect.Float64:
		return float64Scalar
	case reflect.Bool:
		return boolScalar
	}
	return nil
}

// leavesOf returns the leaves of the column c, the row's field f.
func leavesOf(f reflect.StructField, c Column, runID bool) ([]leaf, error) {
	if sc := scalarOf(f.Type); sc != nil {
		return []leaf{{kind: leafRequired, off: f.Offset, sc: sc, runID: runID && sc == stringScalar}}, nil
	}
	switch f.Type.Kind() {
	case reflect.Pointer:
		if sc := scalarOf(f.Type.Elem()); sc != nil {
			return []leaf{{kind: leafOptional, off: f.Offset, sc: sc}}, nil
		}
	case reflect.Slice:
		et := f.Type.Elem()
		if et.Kind() != reflect.Struct {
			break
		}
		var out []leaf
		for _, j := range c.Elem {
			if j < 0 || j >= et.NumField() {
				return nil, fmt.Errorf("no field %d in %s", j, et)
			}
			ef := et.Field(j)
			l := leaf{kind: leafList, off: f.Offset, size: et.Size(), child: ef.Offset, sc: scalarOf(ef.Type)}
			if l.sc == nil && ef.Type.Kind() == reflect.Pointer {
				l.childPtr, l.sc = true, scalarOf(ef.Type.Elem())
			}
			if l.sc == nil {
				return nil, fmt.Errorf("%s.%s: lists nest one level only", et.Name(), ef.Name)
			}
			out = append(out, l)
		}
		return out, nil
	}
	return nil, fmt.Errorf("no way to write a %s", f.Type)
}

// Props returns the Parquet properties of every file: zstd, and
// dictionary encoding (the default), which suits the repeated run ids,
// phases and labels. plain names leaf columns (dotted paths) written
// without a dictionary. Only run_id has column statistics. The page
// writer (pages.go) reads them as arrow-go's writer would; more are
// arrow-go's options for a file it writes itself (the tests' reference).
//
// Note: min/max statistics serve readers that skip row groups, and a
// group holds ~180 runs in run_id order, so only run_id's bounds can rule
// a group out (the archive's reads by id; DuckDB's filters on run_id);
// those of the ~60 other columns span about every value in every group.
// Without them the measurements of 1,000 seed documents write 5% less
// CPU and their file is 9% smaller (78.6 vs 86.6 KB), the runs 33% less
// (8.7 vs 13.0 cpu-µs/doc; 17.3 vs 22.4 KB): BenchmarkWriteSeed1000, four
// interleaved runs each, a loaded machine.
func Props(plain []string, more ...parquet.WriterProperty) *parquet.WriterProperties {
	opts := []parquet.WriterProperty{parquet.WithCompression(compress.Codecs.Zstd),
		parquet.WithStats(false), parquet.WithStatsFor(RunID, true)}
	for _, p := range plain {
		opts = append(opts, parquet.WithDictionaryFor(p, false))
	}
	return parquet.NewWriterProperties(append(opts, more...)...)
}

// plainDoubles lists the double (float64) leaf columns of a Parquet
// schema, which are written without a dictionary.
//
// Note: measured figures (tok/s, latencies) are mostly distinct, so a
// dictionary of them is hashing for nothing; plain doubles under zstd
// made the measurements file of 1,000 seed documents smaller (87 vs 109
// KB: the repeated figures of these near-identical documents compress
// better as bytes than as dictionary indices) and its write ~5% cheaper
// (BenchmarkWriteSeed1000).
func plainDoubles(sc *pqschema.Schema) []string {
	var out []string
	for i := 0; i < sc.NumColumns(); i++ {
		if c := sc.Column(i); c.PhysicalType() == parquet.Types.Double {
			out = append(out, c.Path())
		}
	}
	return out
}

// fileMeta is what every file of a table starts from: its Parquet schema
// and key/value metadata, made once.
type fileMeta struct {
	once  sync.Once
	sc    *pqschema.Schema
	kv    metadata.KeyValueMetadata
	props *parquet.WriterProperties
	dict  []bool // by leaf: a leaf written with a dictionary (dictleaf.go)
	// bufs holds the *writerBufs of closed file writers for the next.
	bufs sync.Pool
	err  error
}

// meta returns the key/value metadata and writer properties of t's
// files (and sets t.file.sc): the schema and metadata pqarrow writes for
// t's Arrow schema with the schema stored.
//
// Note: they are taken from an empty file pqarrow writes, so that the
// stored Arrow schema (ARROW:schema, which pyarrow reads for the exact
// Arrow types) is pqarrow's own, byte for byte, whatever its version
// normalizes.
func (t *Table) meta() (metadata.KeyValueMetadata, *parquet.WriterProperties, error) {
	m := &t.file
	m.once.Do(func() {
		var buf bytes.Buffer
		fw, err := pqarrow.NewFileWriter(t.schema, &buf, Props(t.plain),
			pqarrow.NewArrowWriterProperties(pqarrow.WithStoreSchema()))
		if err == nil {
			err = fw.Close()
		}
		var pf *file.Reader
		if err == nil {
			pf, err = file.NewParquetReader(bytes.NewReader(buf.Bytes()))
		}
		if err == nil && pf.MetaData().Schema.NumColumns() != len(t.leaves) {
			err = fmt.Errorf("%d leaf columns in the schema, %d in the rows", pf.MetaData().Schema.NumColumns(), len(t.leaves))
		}
		if err == nil {
			for i := range t.leaves {
				if got, want := pf.MetaData().Schema.Column(i).PhysicalType(), t.leaves[i].sc.phys; got != want {
					err = fmt.Errorf("column %s: %s in the schema, %s in the rows", pf.MetaData().Schema.Column(i).Path(), got, want)
					break
				}
			}
		}
		if err != nil {
			m.err = fmt.Errorf("%s: schema: %w", t.name, err)
			return
		}
		m.kv = pf.MetaData().KeyValueMetadata()
		sc := pf.MetaData().Schema
		m.sc = sc
		m.props = Props(append(slices.Clone(t.plain), plainDoubles(sc)...))
		m.dict = make([]bool, len(t.leaves))
		for i := range t.leaves {
			m.dict[i] = t.leaves[i].sc.newDict != nil && m.props.DictionaryEnabledFor(sc.Column(i).Path())
		}
	})
	return slices.Clone(m.kv), m.props, m.err
}
