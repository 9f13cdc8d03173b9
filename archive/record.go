package archive

import (
	"reflect"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// appender appends the Go value v of a column (a row's field) to the
// column's Arrow builder b, as doc.go maps Go types to Arrow types.
type appender func(b array.Builder, v reflect.Value)

// appenderOf returns the appender of a column's codec.
func appenderOf(c *codec) appender {
	switch {
	case c.elem != nil:
		inner := appenderOf(c.elem)
		return func(b array.Builder, v reflect.Value) {
			if v.IsNil() {
				b.AppendNull()
				return
			}
			inner(b, v.Elem())
		}
	case c.fields != nil:
		fields := make([]appender, len(c.fields))
		for i, f := range c.fields {
			fields[i] = appenderOf(f.codec)
		}
		return func(b array.Builder, v reflect.Value) {
			if v.IsNil() {
				b.AppendNull()
				return
			}
			lb := b.(*array.ListBuilder)
			sb := lb.ValueBuilder().(*array.StructBuilder)
			lb.Append(true)
			for k := 0; k < v.Len(); k++ {
				sb.Append(true)
				e := v.Index(k)
				for i, f := range c.fields {
					fields[i](sb.FieldBuilder(i), e.Field(f.index))
				}
			}
		}
	}
	switch c.dt.ID() {
	case arrow.STRING:
		return func(b array.Builder, v reflect.Value) { b.(*array.StringBuilder).Append(v.String()) }
	case arrow.INT32:
		return func(b array.Builder, v reflect.Value) { b.(*array.Int32Builder).Append(int32(v.Int())) }
	case arrow.INT64:
		return func(b array.Builder, v reflect.Value) { b.(*array.Int64Builder).Append(v.Int()) }
	case arrow.FLOAT64:
		return func(b array.Builder, v reflect.Value) { b.(*array.Float64Builder).Append(v.Float()) }
	case arrow.BOOL:
		return func(b array.Builder, v reflect.Value) { b.(*array.BooleanBuilder).Append(v.Bool()) }
	case arrow.TIMESTAMP:
		return func(b array.Builder, v reflect.Value) {
			b.(*array.TimestampBuilder).Append(arrow.Timestamp(v.Addr().Interface().(*time.Time).UnixMicro()))
		}
	}
	panic("archive: no appender for " + c.dt.String()) // codecFor makes no other type
}
