package archive

import (
	"fmt"
	"reflect"
	"runtime"
	"time"
	"unsafe"

	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"
)

// The Parquet side of a table: every leaf column (a top-level scalar, or
// one field of a list's elements) is written by a leaf straight from the
// Go rows into arrow-go's column writers, with the definition and
// repetition levels pqarrow would compute for the Arrow type of the
// column (columns.go).
//
// Note: an Arrow record of the rows was the way in before: each value was
// copied into a builder, then pqarrow walked the record to compute the
// levels and copy the values out again, for about half of the CPU time of
// a write. Reading the rows' memory directly skips both copies; the files
// are the same (TestSameRowsAsArrow compares them with pqarrow's).

// leafKind is how a leaf's values sit in a row.
type leafKind int

const (
	leafRequired leafKind = iota // a non-null field: one value per row
	leafOptional                 // a pointer field: nil is null
	leafList                     // a field of the elements of a slice field
)

// leaf writes one Parquet leaf column of a table.
type leaf struct {
	kind leafKind
	off  uintptr // offset of the row's field
	// For leafList: the size of an element, the offset of the field in
	// it, and whether that field is a pointer (nil is null).
	size, child uintptr
	childPtr    bool
	sc          *scalar
	runID       bool // the run_id column: a span's id, when it has one
}

// span is a run of consecutive rows in memory: n rows of the table's
// type from base on. When id is set, the rows are written as carrying
// that run id, whatever their own run_id field holds.
type span struct {
	base unsafe.Pointer
	n    int
	id   string
}

// scratch holds the buffers one file writer reuses between leaves and
// row groups.
type scratch struct {
	def, rep []int16
	raw      []rawBytes
	i32      []int32
	i64      []int64
	f64      []float64
	bools    []bool
}

// rawBytes is a parquet.ByteArray (a slice header) whose pointer the
// garbage collector does not see: a view of a string of the rows being
// written, which the rows keep alive.
//
// Note: with byte arrays the buffer of a write was a slice of pointers,
// and while the collector marked (much of an ingest) every value stored
// and cleared went through a write barrier: a fifth of the CPU time of a
// write. A buffer without pointers needs neither barriers nor clearing,
// and keeps nothing alive once the write returns.
type rawBytes struct {
	data     uintptr
	len, cap int
}

// scalar writes the values of one Go scalar type to a leaf column.
type scalar struct {
	// write writes the leaf l of the rows of spans (stride bytes apart)
	// to cw, which is the column writer of the scalar's physical type.
	write func(l *leaf, cw file.ColumnChunkWriter, spans []span, stride uintptr, s *scratch) error
}

// batchWriter is the typed column writer of values of type T.
type batchWriter[T any] interface {
	WriteBatch(values []T, defLevels, repLevels []int16) (int64, error)
}

// writeBatch writes values with their levels to cw, which must be a W.
func writeBatch[T any, W batchWriter[T]](cw file.ColumnChunkWriter, vals []T, def, rep []int16) error {
	w, ok := cw.(W)
	if !ok {
		return fmt.Errorf("archive: column %s: writer %T", cw.Descr().Path(), cw)
	}
	_, err := w.WriteBatch(vals, def, rep)
	return err
}

// plainScalar is the scalar of a type written as it is in memory.
func plainScalar[T any, W batchWriter[T]](buf func(*scratch) *[]T) *scalar {
	return &scalar{func(l *leaf, cw file.ColumnChunkWriter, spans []span, stride uintptr, s *scratch) error {
		b := buf(s)
		vals, def, rep := gather[T](l, spans, stride, s, (*b)[:0], nil)
		*b = vals
		return writeBatch[T, W](cw, vals, def, rep)
	}}
}

// noBytes is where the empty string's view points: not nil, which
// arrow-go's statistics would leave out of the min and max. It is a
// global, which never moves and is never freed.
//
// Note: an empty slice literal's address here was a stack address of
// the package's init; once that stack was freed and its memory reused by
// the heap, the collector found the views pointing at free objects and
// stopped the process ("found pointer to free object", under GOGC=5 in
// BenchmarkWriteSeed1000).
var (
	noBytesAt [1]byte
	noBytes   = uintptr(unsafe.Pointer(&noBytesAt))
)

var (
	stringScalar = &scalar{func(l *leaf, cw file.ColumnChunkWriter, spans []span, stride uintptr, s *scratch) error {
		// The column writer copies the bytes (into its dictionary or
		// page), so a view of the string's memory is enough.
		raw, def, rep := gather(l, spans, stride, s, s.raw[:0], func(p unsafe.Pointer) rawBytes {
			str := *(*string)(p)
			if str == "" {
				return rawBytes{data: noBytes}
			}
			return rawBytes{uintptr(unsafe.Pointer(unsafe.StringData(str))), len(str), len(str)}
		})
		s.raw = raw
		vals := unsafe.Slice((*parquet.ByteArray)(unsafe.Pointer(unsafe.SliceData(raw))), len(raw))
		err := writeBatch[parquet.ByteArray, *file.ByteArrayColumnChunkWriter](cw, vals, def, rep)
		runtime.KeepAlive(spans) // the rows the views point into
		return err
	}}
	int32Scalar   = plainScalar[int32, *file.Int32ColumnChunkWriter](func(s *scratch) *[]int32 { return &s.i32 })
	int64Scalar   = plainScalar[int64, *file.Int64ColumnChunkWriter](func(s *scratch) *[]int64 { return &s.i64 })
	float64Scalar = plainScalar[float64, *file.Float64ColumnChunkWriter](func(s *scratch) *[]float64 { return &s.f64 })
	boolScalar    = plainScalar[bool, *file.BooleanColumnChunkWriter](func(s *scratch) *[]bool { return &s.bools })
	// timeScalar writes a time as microseconds since the epoch (the
	// int64 of a timestamp[us] column).
	timeScalar = &scalar{func(l *leaf, cw file.ColumnChunkWriter, spans []span, stride uintptr, s *scratch) error {
		vals, def, rep := gather(l, spans, stride, s, s.i64[:0], func(p unsafe.Pointer) int64 {
			return (*time.Time)(p).UnixMicro()
		})
		s.i64 = vals
		return writeBatch[int64, *file.Int64ColumnChunkWriter](cw, vals, def, rep)
	}}
)

// leavesOf returns the leaves of a table's columns, in the order of the
// Parquet schema's leaf columns.
func leavesOf(typ reflect.Type, cols []column) ([]leaf, error) {
	var out []leaf
	for _, c := range cols {
		switch {
		case c.codec.scalar != nil:
			out = append(out, leaf{kind: leafRequired, off: typ.Field(c.index).Offset, sc: c.codec.scalar,
				runID: c.name == "run_id" && c.codec.scalar == stringScalar})
		case c.codec.elem != nil:
			out = append(out, leaf{kind: leafOptional, off: typ.Field(c.index).Offset, sc: c.codec.elem.scalar})
		case c.codec.fields != nil:
			for _, f := range c.codec.fields {
				l := leaf{kind: leafList, off: typ.Field(c.index).Offset, size: c.codec.elemSize, child: f.offset, sc: f.codec.scalar}
				if f.codec.elem != nil {
					l.childPtr, l.sc = true, f.codec.elem.scalar
				}
				if l.sc == nil {
					return nil, fmt.Errorf("archive: column %s.%s: lists nest one level only", c.name, f.name)
				}
				out = append(out, l)
			}
		default:
			return nil, fmt.Errorf("archive: column %s: no way to write it", c.name)
		}
	}
	return out, nil
}

// gather appends to vals the present values of leaf l in the rows of
// spans (stride bytes apart), converted by conv (read as they are when
// conv is nil), and returns them with their definition and repetition
// levels (nil for a column without them).
//
// Note: the levels are those of the Arrow types pqarrow writes: a
// pointer column is optional (definition level 1 when set); a list column
// is an optional list of required elements, so an element's field has
// definition level 0 for a nil slice, 1 for an empty one and 2 for a
// value (3 when the field is a set pointer), and repetition level 1 for
// every element after a row's first.
func gather[T any](l *leaf, spans []span, stride uintptr, s *scratch,
	vals []T, conv func(unsafe.Pointer) T) (_ []T, def, rep []int16) {
	switch l.kind {
	case leafRequired:
		for k := range spans {
			sp := &spans[k]
			if l.runID && sp.id != "" {
				v := conv(unsafe.Pointer(&sp.id))
				for i := 0; i < sp.n; i++ {
					vals = append(vals, v)
				}
				continue
			}
			for i := 0; i < sp.n; i++ {
				vals = append(vals, convert(unsafe.Add(sp.base, uintptr(i)*stride+l.off), conv))
			}
		}
	case leafOptional:
		def = s.def[:0]
		for _, sp := range spans {
			for i := 0; i < sp.n; i++ {
				q := *(*unsafe.Pointer)(unsafe.Add(sp.base, uintptr(i)*stride+l.off))
				if q == nil {
					def = append(def, 0)
					continue
				}
				def = append(def, 1)
				vals = append(vals, convert(q, conv))
			}
		}
		s.def = def
	case leafList:
		def, rep = s.def[:0], s.rep[:0]
		for _, sp := range spans {
			vals, def, rep = gatherList(l, sp, stride, vals, def, rep, conv)
		}
		s.def, s.rep = def, rep
	}
	return vals, def, rep
}

// convert returns the value at p: conv's, or the T stored there when
// conv is nil.
func convert[T any](p unsafe.Pointer, conv func(unsafe.Pointer) T) T {
	if conv == nil {
		return *(*T)(p)
	}
	return conv(p)
}

// gatherList is gather of a list leaf for the rows of one span.
func gatherList[T any](l *leaf, sp span, stride uintptr, vals []T, def, rep []int16,
	conv func(unsafe.Pointer) T) ([]T, []int16, []int16) {
	top := int16(2)
	if l.childPtr {
		top = 3
	}
	for i := 0; i < sp.n; i++ {
		h := (*sliceHeader)(unsafe.Add(sp.base, uintptr(i)*stride+l.off))
		if h.len == 0 {
			d := int16(0) // a nil slice: a null list
			if h.data != nil {
				d = 1 // an empty one (empty slices point somewhere)
			}
			def, rep = append(def, d), append(rep, 0)
			continue
		}
		for k := 0; k < h.len; k++ {
			rep = append(rep, int16(min(k, 1)))
			e := unsafe.Add(h.data, uintptr(k)*l.size+l.child)
			if l.childPtr {
				if e = *(*unsafe.Pointer)(e); e == nil {
					def = append(def, top-1)
					continue
				}
			}
			def = append(def, top)
			vals = append(vals, convert(e, conv))
		}
	}
	return vals, def, rep
}
