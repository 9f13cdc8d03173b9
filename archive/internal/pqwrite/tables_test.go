package pqwrite

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"speedmatrix/parse"
	"speedmatrix/schema"
)

// The tables the tests write: the archive's three row types, their
// Arrow schemas derived here as the archive derives them (columns by
// JSON tag, the type mapping of NewTable), and the layout they are cut
// with.

const (
	TableRuns         = "runs"
	TableMeasurements = "measurements"
	TableSamples      = "samples"
)

// Tables lists the test tables' names.
var Tables = []string{TableRuns, TableMeasurements, TableSamples}

var mem = memory.DefaultAllocator

// groupRows and recordRows are the layout the tests write with
// (smallGroups changes the first).
var (
	groupRows  = 8192
	recordRows = DefaultPieceRows
)

// smallGroups makes files written during the test cut row groups of
// about n rows.
func smallGroups(t *testing.T, n int) {
	prev := groupRows
	groupRows = n
	t.Cleanup(func() { groupRows = prev })
}

func testLayout() Layout { return Layout{GroupRows: groupRows, PieceRows: recordRows} }

// write writes rows as one file, cut as the tests' layout says.
func (t *Table) write(w io.Writer, rows reflect.Value) error { return t.Write(w, rows, testLayout()) }

// newFileWriter starts a file cut as the tests' layout says.
func (t *Table) newFileWriter(w io.Writer) (*Writer, error) { return t.NewWriter(w, testLayout()) }

// writeFile writes rows (a slice of a test table's type) as one file.
func writeFile(w io.Writer, rows any) error {
	v := reflect.ValueOf(rows)
	return tableOfRows(v).write(w, v)
}

var (
	tablesOnce sync.Once
	tableMap   map[string]*Table
)

// tableByName returns the test table of the archive's row type name.
func tableByName(name string) *Table {
	tablesOnce.Do(func() {
		tableMap = map[string]*Table{}
		for name, typ := range map[string]reflect.Type{TableRuns: reflect.TypeFor[schema.Run](),
			TableMeasurements: reflect.TypeFor[schema.Measurement](), TableSamples: reflect.TypeFor[schema.Sample]()} {
			t, err := newTable(name, typ)
			if err != nil {
				panic(err)
			}
			tableMap[name] = t
		}
	})
	return tableMap[name]
}

// tableOfRows returns the table of rows, a slice of runs, measurements
// or samples.
func tableOfRows(rows reflect.Value) *Table {
	return tableByName(map[reflect.Type]string{
		reflect.TypeFor[schema.Run](): TableRuns, reflect.TypeFor[schema.Measurement](): TableMeasurements,
		reflect.TypeFor[schema.Sample](): TableSamples}[rows.Type().Elem()])
}

// newTable returns the table of rows of typ, its columns the fields with
// a JSON tag, with the printed texts plain as the archive writes them.
func newTable(name string, typ reflect.Type) (*Table, error) {
	var fields []arrow.Field
	var cols []Column
	for i := range typ.NumField() {
		f := typ.Field(i)
		col, ok := jsonName(f)
		if !ok {
			continue
		}
		dt, nullable, elem, err := arrowType(f.Type)
		if err != nil {
			return nil, fmt.Errorf("%s.%s: %w", typ.Name(), f.Name, err)
		}
		fields = append(fields, arrow.Field{Name: col, Type: dt, Nullable: nullable})
		cols = append(cols, Column{Field: i, Elem: elem})
	}
	md := arrow.NewMetadata([]string{"schema_version", "speedmatrix.table"}, []string{"5", name})
	return NewTable(name, typ, arrow.NewSchema(fields, &md), cols, "printed.list.element.value")
}

// arrowType returns the Arrow type of a Go field type (see NewTable),
// and for a list the indices of its elements' tagged fields.
func arrowType(t reflect.Type) (arrow.DataType, bool, []int, error) {
	if t == timeType {
		return &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}, false, nil, nil
	}
	switch t.Kind() {
	case reflect.String:
		return arrow.BinaryTypes.String, false, nil, nil
	case reflect.Int32:
		return arrow.PrimitiveTypes.Int32, false, nil, nil
	case reflect.Int64:
		return arrow.PrimitiveTypes.Int64, false, nil, nil
	case reflect.Float64:
		return arrow.PrimitiveTypes.Float64, false, nil, nil
	case reflect.Bool:
		return arrow.FixedWidthTypes.Boolean, false, nil, nil
	case reflect.Pointer:
		dt, _, _, err := arrowType(t.Elem())
		return dt, true, nil, err
	case reflect.Slice:
		et := t.Elem()
		var fields []arrow.Field
		var elem []int
		for i := range et.NumField() {
			f := et.Field(i)
			name, ok := jsonName(f)
			if !ok {
				continue
			}
			dt, nullable, _, err := arrowType(f.Type)
			if err != nil {
				return nil, false, nil, err
			}
			fields = append(fields, arrow.Field{Name: name, Type: dt, Nullable: nullable})
			elem = append(elem, i)
		}
		return arrow.ListOfField(arrow.Field{Name: "element", Type: arrow.StructOf(fields...)}), true, elem, nil
	}
	return nil, false, nil, fmt.Errorf("unsupported type %s", t)
}

// jsonName returns the column name of a struct field: its JSON tag.
func jsonName(f reflect.StructField) (string, bool) {
	name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
	return name, f.IsExported() && name != "" && name != "-"
}

// seedRows returns the rows of the repository's seed documents, parsed,
// each run's rows carrying its id, sorted by run id as a batch is.
func seedRows(t testing.TB) ([]schema.Run, []schema.Measurement) {
	t.Helper()
	paths, err := filepath.Glob("../../../testdata/seeds/*.txt")
	if err != nil || len(paths) == 0 {
		t.Fatalf("no seeds: %v", err)
	}
	var runs []schema.Run
	var rows []schema.Measurement
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		ms, err := parse.ParseAll(bytes.NewReader(b), p, "")
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range ms {
			r := m.Run
			r.RunID = schema.ComputeRunID(m)
			r.SchemaVersion = schema.Version
			r.IngestedAt = time.Date(2026, 12, 3, 0, 0, 0, 0, time.UTC)
			runs = append(runs, r)
			for _, x := range m.Measurements {
				x.RunID = r.RunID
				rows = append(rows, x)
			}
		}
	}
	slices.SortStableFunc(rows, func(x, y schema.Measurement) int { return strings.Compare(x.RunID, y.RunID) })
	return runs, rows
}

// fill sets every field of v (a struct) to a value derived from seed:
// pointers non-nil, lists of two elements, times at microsecond
// precision.
func fill(t testing.TB, v reflect.Value, seed int) {
	t.Helper()
	for i := 0; i < v.NumField(); i++ {
		fillValue(t, v.Field(i), v.Type().Field(i).Name, seed+i)
	}
}

func fillValue(t testing.TB, f reflect.Value, name string, seed int) {
	t.Helper()
	if f.Type() == timeType {
		f.Set(reflect.ValueOf(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC).Add(time.Duration(seed) * time.Microsecond)))
		return
	}
	switch f.Kind() {
	case reflect.String:
		f.SetString(fmt.Sprintf("%s-%d ünïcode", name, seed))
	case reflect.Int32, reflect.Int64:
		f.SetInt(int64(seed*1000 + 7))
	case reflect.Float64:
		f.SetFloat(float64(seed) + 0.25)
	case reflect.Bool:
		f.SetBool(seed%2 == 0)
	case reflect.Pointer:
		p := reflect.New(f.Type().Elem())
		fillValue(t, p.Elem(), name, seed)
		f.Set(p)
	case reflect.Slice:
		s := reflect.MakeSlice(f.Type(), 2, 2)
		for k := 0; k < 2; k++ {
			fill(t, s.Index(k), seed*10+k)
		}
		f.Set(s)
	case reflect.Struct:
		fill(t, f, seed)
	default:
		t.Fatalf("fill: field %s has unsupported kind %s", name, f.Kind())
	}
}

// filled returns a T with every field set.
func filled[T any](t testing.TB, seed int) T {
	var x T
	fill(t, reflect.ValueOf(&x).Elem(), seed)
	return x
}
