package pqwrite

import (
	"io"
	"reflect"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
)

// TestTableRefuses checks what NewTable and a Writer refuse, since they
// read rows through pointers at the offsets they are handed: columns
// that are not the schema's, fields that do not exist or that a leaf
// cannot write, a schema whose Parquet types are not the rows' Go types,
// and rows of another type.
func TestTableRefuses(t *testing.T) {
	type row struct {
		ID    string  `json:"run_id"`
		N     int32   `json:"n"`
		Ratio float64 `json:"ratio"`
		Deep  [][]int `json:"deep"`
	}
	typ := reflect.TypeFor[row]()
	field := func(name string, dt arrow.DataType) arrow.Field { return arrow.Field{Name: name, Type: dt} }
	schema := func(fs ...arrow.Field) *arrow.Schema { return arrow.NewSchema(fs, nil) }
	good := schema(field("run_id", arrow.BinaryTypes.String), field("n", arrow.PrimitiveTypes.Int32))
	tests := []struct {
		name string
		sc   *arrow.Schema
		cols []Column
		want string // in NewTable's error, or else NewWriter's
	}{
		{"a column short", good, []Column{{Field: 0}}, "1 columns for 2 fields"},
		{"no such field", good, []Column{{Field: 0}, {Field: 9}}, "no field 9"},
		{"a slice of slices", schema(field("deep", arrow.ListOf(arrow.PrimitiveTypes.Int64))), []Column{{Field: 3}}, "no way to write"},
		{"int32 rows as utf8", schema(field("run_id", arrow.BinaryTypes.String), field("n", arrow.BinaryTypes.String)),
			[]Column{{Field: 0}, {Field: 1}}, "column n: BYTE_ARRAY in the schema, INT32 in the rows"},
		{"a float as an int64", schema(field("ratio", arrow.PrimitiveTypes.Int64)), []Column{{Field: 2}}, "INT64 in the schema, DOUBLE in the rows"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tb, err := NewTable("t", typ, tt.sc, tt.cols)
			if err == nil {
				_, err = tb.NewWriter(io.Discard, testLayout())
			}
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %v, want one saying %q", err, tt.want)
			}
		})
	}
	tb, err := NewTable("t", typ, good, []Column{{Field: 0}, {Field: 1}})
	if err != nil {
		t.Fatal(err)
	}
	fw, err := tb.NewWriter(io.Discard, testLayout())
	if err != nil {
		t.Fatal(err)
	}
	defer fw.Close()
	if err := fw.WriteGroups(reflect.ValueOf([]int64{1, 2})); err == nil || !strings.Contains(err.Error(), "rows of []int64") {
		t.Fatalf("rows of another type: error %v", err)
	}
	if err := fw.WriteRuns([]Run{{Rows: reflect.ValueOf([]string{"x"}), ID: "r"}}); err == nil {
		t.Fatal("runs of another type: no error")
	}
	if err := fw.WriteGroups(reflect.ValueOf([]row{{ID: "a", N: 1}})); err != nil {
		t.Fatal(err)
	}
}
