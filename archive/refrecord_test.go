package archive

import (
	"reflect"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// refRecord builds an Arrow record of rows (a slice of tb.typ) the slow,
// obvious way: a reflect.Value per cell into pqarrow's own builders. It
// is the reference the archive's writer is held to.
func refRecord(tb *table, rows reflect.Value) arrow.RecordBatch {
	rb := array.NewRecordBuilder(mem, tb.schema)
	defer rb.Release()
	for j, c := range tb.cols {
		for i := 0; i < rows.Len(); i++ {
			refAppend(rb.Field(j), rows.Index(i).Field(c.index))
		}
	}
	return rb.NewRecordBatch()
}

// refAppend appends the Go value v to b (see doc.go for the mapping).
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
