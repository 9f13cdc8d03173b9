package archive

import (
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"speedmatrix/archive/internal/pqwrite"
	"speedmatrix/schema"
)

// The tables of an archive, each a directory of Parquet files.
const (
	TableRuns         = "runs"
	TableMeasurements = "measurements"
	TableSamples      = "samples"
)

// Tables lists the table names.
var Tables = []string{TableRuns, TableMeasurements, TableSamples}

// Parquet key/value metadata written into every file.
const (
	// MetaSchemaVersion holds schema.Version as a decimal string.
	MetaSchemaVersion = "schema_version"
	// MetaTable holds the table name (runs, measurements, samples).
	MetaTable = "speedmatrix.table"
	// MetaColumnDoc points at the document describing every column.
	MetaColumnDoc = "speedmatrix.columns_doc"
	// ColumnDoc is the value of MetaColumnDoc.
	ColumnDoc = "docs/schema.md (speedmatrix repository): meaning, unit and formula of every column"
)

// Row is the set of Go types stored as rows of an archive table.
type Row interface {
	schema.Run | schema.Measurement | schema.Sample
}

// Column describes one column of a table as Arrow sees it.
type Column struct {
	Name     string // the JSON tag of the struct field
	Type     string // Arrow type, e.g. "utf8", "float64", "timestamp[us, tz=UTC]"
	Nullable bool
}

// Columns returns the columns of table (one of Tables) in file order, or
// nil for an unknown table.
func Columns(table string) []Column {
	t := tableByName(table)
	if t == nil {
		return nil
	}
	out := make([]Column, len(t.cols))
	for i, c := range t.cols {
		out[i] = Column{Name: c.name, Type: c.codec.dt.String(), Nullable: c.codec.nullable}
	}
	return out
}

// getter copies element i of an Arrow array into the settable value v.
type getter func(a arrow.Array, i int, v reflect.Value)

// codec maps one Go type to one Arrow type, both ways.
type codec struct {
	dt       arrow.DataType
	nullable bool
	// elem is the codec of a pointer's target; nil for the others.
	elem *codec
	// fields are the element fields of a list; nil for the others.
	fields []listField
	// bind returns the getter for a column of type dt as found in a file,
	// or an error when dt cannot be read into the Go type.
	bind func(dt arrow.DataType) (getter, error)
}

// listField is one field of the elements of a list column.
type listField struct {
	name  string
	index int // struct field index
	codec *codec
}

// column is one top-level field of a row struct.
type column struct {
	name  string
	index int // struct field index
	codec *codec
}

// table is the one place where a row type becomes an Arrow schema.
type table struct {
	name   string
	typ    reflect.Type
	cols   []column
	schema *arrow.Schema
	// pq writes the table's files (archive/internal/pqwrite).
	pq *pqwrite.Table
}

var (
	tablesOnce sync.Once
	tableList  []*table
)

// tableByName returns the table description of name, or nil.
func tableByName(name string) *table {
	for _, t := range allTables() {
		if t.name == name {
			return t
		}
	}
	return nil
}

// tableOf returns the table storing rows of type T.
func tableOf[T Row]() *table {
	typ := reflect.TypeFor[T]()
	for _, t := range allTables() {
		if t.typ == typ {
			return t
		}
	}
	panic("archive: no table for " + typ.String())
}

// allTables builds the table descriptions once, by reflection over the
// schema structs' JSON tags: a field added to schema/types.go becomes a
// column without touching this package.
func allTables() []*table {
	tablesOnce.Do(func() {
		for _, x := range []struct {
			name string
			typ  reflect.Type
		}{
			{TableRuns, reflect.TypeFor[schema.Run]()},
			{TableMeasurements, reflect.TypeFor[schema.Measurement]()},
			{TableSamples, reflect.TypeFor[schema.Sample]()},
		} {
			t, err := newTable(x.name, x.typ)
			if err != nil {
				// The row types are fixed at compile time; an unsupported
				// field kind is a programming error caught by every test.
				panic(err)
			}
			tableList = append(tableList, t)
		}
	})
	return tableList
}

func newTable(name string, typ reflect.Type) (*table, error) {
	t := &table{name: name, typ: typ}
	var fields []arrow.Field
	for i := 0; i < typ.NumField(); i++ {
		f := typ.Field(i)
		col, ok := jsonName(f)
		if !ok {
			continue
		}
		c, err := codecFor(f.Type)
		if err != nil {
			return nil, fmt.Errorf("archive: %s.%s: %w", typ.Name(), f.Name, err)
		}
		t.cols = append(t.cols, column{name: col, index: i, codec: c})
		fields = append(fields, arrow.Field{Name: col, Type: c.dt, Nullable: c.nullable})
	}
	md := arrow.NewMetadata(
		[]string{MetaSchemaVersion, MetaTable, MetaColumnDoc},
		[]string{strconv.Itoa(int(schema.Version)), name, ColumnDoc},
	)
	t.schema = arrow.NewSchema(fields, &md)
	pcols := make([]pqwrite.Column, len(t.cols))
	for i, c := range t.cols {
		pcols[i].Field = c.index
		for _, f := range c.codec.fields {
			pcols[i].Elem = append(pcols[i].Elem, f.index)
		}
	}
	var err error
	if t.pq, err = pqwrite.NewTable(name, typ, t.schema, pcols, plainLeaves...); err != nil {
		return nil, fmt.Errorf("archive: %w", err)
	}
	return t, nil
}

// jsonName returns the column name of a struct field: its JSON tag.
func jsonName(f reflect.StructField) (string, bool) {
	if !f.IsExported() {
		return "", false
	}
	tag := f.Tag.Get("json")
	name, _, _ := strings.Cut(tag, ",")
	if name == "-" {
		return "", false
	}
	if name == "" {
		return "", false
	}
	return name, true
}

var timeType = reflect.TypeFor[time.Time]()

// timestampType is how every time is stored: microseconds, UTC.
var timestampType = &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}

// codecFor returns the codec of a Go field type.
func codecFor(t reflect.Type) (*codec, error) {
	if t == timeType {
		return timeCodec(), nil
	}
	switch t.Kind() {
	case reflect.String:
		return stringCodec(), nil
	case reflect.Int32:
		return intCodec(arrow.PrimitiveTypes.Int32), nil
	case reflect.Int64:
		return intCodec(arrow.PrimitiveTypes.Int64), nil
	case reflect.Float64:
		return floatCodec(), nil
	case reflect.Bool:
		return boolCodec(), nil
	case reflect.Pointer:
		inner, err := codecFor(t.Elem())
		if err != nil {
			return nil, err
		}
		if inner.nullable {
			return nil, fmt.Errorf("pointer to nullable type %s", t.Elem())
		}
		return pointerCodec(t, inner), nil
	case reflect.Slice:
		if t.Elem().Kind() != reflect.Struct {
			return nil, fmt.Errorf("unsupported slice type %s", t)
		}
		return listCodec(t)
	}
	return nil, fmt.Errorf("unsupported type %s", t)
}

// errType reports a column whose type in a file differs from ours.
func errType(got, want arrow.DataType) error {
	return fmt.Errorf("type %s, want %s", got, want)
}

func stringCodec() *codec {
	c := &codec{dt: arrow.BinaryTypes.String}
	c.bind = func(dt arrow.DataType) (getter, error) {
		// Note: values repeat down a column (run_id over a run's rows,
		// phase, labels), so a value equal to the previous one reuses its
		// copy: one allocation per change instead of per cell. A getter
		// serves one read, on one goroutine.
		var prev string
		keep := func(s string) string {
			if s != prev {
				prev = strings.Clone(s)
			}
			return prev
		}
		switch dt.ID() {
		case arrow.STRING:
			return func(a arrow.Array, i int, v reflect.Value) {
				v.SetString(keep(a.(*array.String).Value(i)))
			}, nil
		case arrow.LARGE_STRING:
			return func(a arrow.Array, i int, v reflect.Value) {
				v.SetString(keep(a.(*array.LargeString).Value(i)))
			}, nil
		}
		return nil, errType(dt, c.dt)
	}
	return c
}

func intCodec(dt arrow.DataType) *codec {
	c := &codec{dt: dt}
	c.bind = func(got arrow.DataType) (getter, error) {
		// An int32 column widens into an int64 field; nothing narrows.
		switch {
		case got.ID() == arrow.INT32:
			return func(a arrow.Array, i int, v reflect.Value) { v.SetInt(int64(a.(*array.Int32).Value(i))) }, nil
		case got.ID() == arrow.INT64 && dt.ID() == arrow.INT64:
			return func(a arrow.Array, i int, v reflect.Value) { v.SetInt(a.(*array.Int64).Value(i)) }, nil
		}
		return nil, errType(got, dt)
	}
	return c
}

func floatCodec() *codec {
	c := &codec{dt: arrow.PrimitiveTypes.Float64}
	c.bind = func(dt arrow.DataType) (getter, error) {
		if dt.ID() != arrow.FLOAT64 {
			return nil, errType(dt, c.dt)
		}
		return func(a arrow.Array, i int, v reflect.Value) { v.SetFloat(a.(*array.Float64).Value(i)) }, nil
	}
	return c
}

func boolCodec() *codec {
	c := &codec{dt: arrow.FixedWidthTypes.Boolean}
	c.bind = func(dt arrow.DataType) (getter, error) {
		if dt.ID() != arrow.BOOL {
			return nil, errType(dt, c.dt)
		}
		return func(a arrow.Array, i int, v reflect.Value) { v.SetBool(a.(*array.Boolean).Value(i)) }, nil
	}
	return c
}

// zeroMicros is time.Time{} in Unix microseconds: a zero time round-trips
// to the zero time.Time rather than to 0001-01-01 in UTC.
var zeroMicros = time.Time{}.UnixMicro()

func timeCodec() *codec {
	c := &codec{dt: timestampType}
	c.bind = func(dt arrow.DataType) (getter, error) {
		ts, ok := dt.(*arrow.TimestampType)
		if !ok {
			return nil, errType(dt, c.dt)
		}
		toTime, err := ts.GetToTimeFunc()
		if err != nil {
			return nil, err
		}
		unit := ts.Unit
		return func(a arrow.Array, i int, v reflect.Value) {
			x := a.(*array.Timestamp).Value(i)
			var t time.Time
			if !(unit == arrow.Microsecond && int64(x) == zeroMicros) {
				t = toTime(x).UTC()
			}
			*v.Addr().Interface().(*time.Time) = t
		}, nil
	}
	return c
}

// pointerCodec makes a nullable column of a pointer field: nil is null.
func pointerCodec(t reflect.Type, inner *codec) *codec {
	c := &codec{dt: inner.dt, nullable: true, elem: inner}
	c.bind = func(dt arrow.DataType) (getter, error) {
		get, err := inner.bind(dt)
		if err != nil {
			return nil, err
		}
		elem := t.Elem()
		return func(a arrow.Array, i int, v reflect.Value) {
			if a.IsNull(i) {
				return
			}
			p := reflect.New(elem)
			get(a, i, p.Elem())
			v.Set(p)
		}, nil
	}
	return c
}

// listCodec makes list<struct<…>> of a slice of structs (KV, Field,
// Metric): a nil slice is null, an empty one an empty list. Elements are
// named "element", as pqarrow writes and reads them back.
func listCodec(t reflect.Type) (*codec, error) {
	et := t.Elem()
	var children []listField
	var fields []arrow.Field
	for i := 0; i < et.NumField(); i++ {
		f := et.Field(i)
		name, ok := jsonName(f)
		if !ok {
			continue
		}
		cc, err := codecFor(f.Type)
		if err != nil {
			return nil, fmt.Errorf("%s.%s: %w", et.Name(), f.Name, err)
		}
		children = append(children, listField{name, i, cc})
		fields = append(fields, arrow.Field{Name: name, Type: cc.dt, Nullable: cc.nullable})
	}
	st := arrow.StructOf(fields...)
	c := &codec{dt: arrow.ListOfField(arrow.Field{Name: "element", Type: st}), nullable: true,
		fields: children}
	c.bind = func(dt arrow.DataType) (getter, error) {
		var elemType arrow.DataType
		switch lt := dt.(type) {
		case *arrow.ListType:
			elemType = lt.Elem()
		case *arrow.LargeListType:
			elemType = lt.Elem()
		default:
			return nil, errType(dt, c.dt)
		}
		gst, ok := elemType.(*arrow.StructType)
		if !ok {
			return nil, errType(dt, c.dt)
		}
		type bound struct {
			pos   int // child position in the file's struct
			index int // Go field index
			get   getter
		}
		var bs []bound
		for _, ch := range children {
			pos, ok := gst.FieldIdx(ch.name)
			if !ok {
				continue // a field added later: zero in old files
			}
			get, err := ch.codec.bind(gst.Field(pos).Type)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", ch.name, err)
			}
			bs = append(bs, bound{pos, ch.index, get})
		}
		return func(a arrow.Array, i int, v reflect.Value) {
			if a.IsNull(i) {
				return
			}
			la := a.(array.ListLike)
			start, end := la.ValueOffsets(i)
			vals := la.ListValues().(*array.Struct)
			n := int(end - start)
			s := reflect.MakeSlice(t, n, n)
			for k := 0; k < n; k++ {
				e := s.Index(k)
				for _, b := range bs {
					b.get(vals.Field(b.pos), int(start)+k, e.Field(b.index))
				}
			}
			v.Set(s)
		}, nil
	}
	return c, nil
}
