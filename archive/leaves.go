package archive

import (
	"fmt"
	"reflect"
	"runtime"
	"time"
	"unsafe"
)

// The Parquet side of a table: every leaf column (a top-level scalar, or
// one field of a list's elements) is gathered by a leaf straight from the
// Go rows into its chunk's pages (pages.go), with the definition and
// repetition levels pqarrow would compute for the Arrow type of the
// column (columns.go).
//
// Note: an Arrow record of the rows was the way in before: each value was
// copied into a builder, then pqarrow walked the record to compute the
// levels and copy the values out again, for about half of the CPU time of
// a write. Reading the rows' memory directly skips both copies; the files
// hold the same rows (TestSameRowsAsArrow compares them with pqarrow's).

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
	raw      []rawBytes
	page     []byte // a page's uncompressed body
	z        []byte // a page's compressed body
	dictPage []byte // a chunk's dictionary page, header and body
	plain    []byte // its uncompressed body
}

// rawBytes is a string of the rows being written (a slice header) whose
// pointer the garbage collector does not see: the rows keep it alive.
//
// Note: with strings (or byte slices) the buffer of a write was a slice
// of pointers, and while the collector marked (much of an ingest) every
// value stored and cleared went through a write barrier: a fifth of the
// CPU time of a write. A buffer without pointers needs neither barriers
// nor clearing, and keeps nothing alive once the write returns.
type rawBytes struct {
	data uintptr
	len  int
}

// str returns the string r views.
func (r *rawBytes) str() string { return *(*string)(unsafe.Pointer(r)) }

// scalar writes the values of one Go scalar type to a leaf column.
type scalar struct {
	// write gathers the leaf l of the rows of spans (stride bytes apart)
	// into the page c is filling, and cuts the page when it is full.
	write func(l *leaf, c *chunk, spans []span, stride uintptr, s *scratch) error
	// newDict returns an empty dictionary of the type's values; nil for
	// a type never dictionary-encoded (booleans).
	newDict func() dictionary
}

// fixedScalar is the scalar of a fixed-width type written PLAIN as it is
// in memory (little-endian: see littleEndian), converted by conv, or read
// as it is when conv is nil.
func fixedScalar[T int32 | int64 | float64](conv func(unsafe.Pointer) T) *scalar {
	size := int(unsafe.Sizeof(T(0)))
	return &scalar{newDict: func() dictionary { return newFixedDict(conv) }, write: func(l *leaf, c *chunk, spans []span, stride uintptr, s *scratch) error {
		if c.dictMode() {
			return c.addIndices(l, spans, stride, s)
		}
		// The page's bytes, seen as values: they were appended as values,
		// so they are aligned as values.
		vals := unsafe.Slice((*T)(unsafe.Pointer(unsafe.SliceData(c.vals))), cap(c.vals)/size)[:len(c.vals)/size]
		n := len(vals)
		vals, c.def, c.rep = gather(l, spans, stride, vals, c.def, c.rep, conv)
		c.nvals += len(vals) - n
		c.vals = unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(vals))), cap(vals)*size)[:len(vals)*size]
		return c.filled(s)
	}}
}

// addIndices gathers the leaf l of the rows of spans into the page c is
// filling as dictionary indices.
func (c *chunk) addIndices(l *leaf, spans []span, stride uintptr, s *scratch) error {
	n, raw := len(c.idx), c.dict.rawBytes()
	c.idx, c.def, c.rep = gather(l, spans, stride, c.idx, c.def, c.rep, c.index)
	c.nvals += len(c.idx) - n
	c.raw += c.dict.rawBytes() - raw
	return c.filled(s)
}

// littleEndian reports whether the host stores integers little-endian,
// as PLAIN values are: the fixed-width values are written as they lie in
// memory, and newFileWriter refuses a big-endian host.
var littleEndian = func() bool {
	x := uint16(1)
	return *(*byte)(unsafe.Pointer(&x)) == 1
}()

var (
	// stringScalar writes strings as dictionary indices while the leaf
	// has a dictionary (dictleaf.go), else PLAIN.
	stringScalar = &scalar{newDict: newStringDict, write: func(l *leaf, c *chunk, spans []span, stride uintptr, s *scratch) error {
		if c.dictMode() {
			return c.addIndices(l, spans, stride, s)
		}
		raw, def, rep := gather(l, spans, stride, s.raw[:0], c.def, c.rep, func(p unsafe.Pointer) rawBytes {
			str := *(*string)(p)
			return rawBytes{uintptr(unsafe.Pointer(unsafe.StringData(str))), len(str)}
		})
		s.raw, c.def, c.rep = raw, def, rep
		vals := c.vals // a local: no write barrier per value
		for i := range raw {
			vals = appendPlainString(vals, raw[i].str())
		}
		c.vals = vals
		if c.stats {
			for i := range raw {
				c.noteString(raw[i].str())
			}
		}
		c.nvals += len(raw)
		runtime.KeepAlive(spans) // the rows the views point into
		return c.filled(s)
	}}
	int32Scalar   = fixedScalar[int32](nil)
	int64Scalar   = fixedScalar[int64](nil)
	float64Scalar = fixedScalar[float64](nil)
	boolScalar    = &scalar{write: func(l *leaf, c *chunk, spans []span, stride uintptr, s *scratch) error {
		n := len(c.bools)
		c.bools, c.def, c.rep = gather[bool](l, spans, stride, c.bools, c.def, c.rep, nil)
		c.nvals += len(c.bools) - n
		return c.filled(s)
	}}
	// timeScalar writes a time as microseconds since the epoch (the
	// int64 of a timestamp[us] column).
	timeScalar = fixedScalar(func(p unsafe.Pointer) int64 { return (*time.Time)(p).UnixMicro() })
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
// conv is nil), and their definition and repetition levels to def and
// rep (none for a column without them), and returns the three.
//
// Note: the levels are those of the Arrow types pqarrow writes: a
// pointer column is optional (definition level 1 when set); a list column
// is an optional list of required elements, so an element's field has
// definition level 0 for a nil slice, 1 for an empty one and 2 for a
// value (3 when the field is a set pointer), and repetition level 1 for
// every element after a row's first.
func gather[T any](l *leaf, spans []span, stride uintptr, vals []T, def, rep []int16,
	conv func(unsafe.Pointer) T) ([]T, []int16, []int16) {
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
	case leafList:
		for _, sp := range spans {
			vals, def, rep = gatherList(l, sp, stride, vals, def, rep, conv)
		}
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
