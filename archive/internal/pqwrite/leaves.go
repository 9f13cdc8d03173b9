package pqwrite

import (
	"runtime"
	"time"
	"unsafe"

	"github.com/apache/arrow-go/v18/parquet"
)

// The Parquet side of a table: every leaf column (a top-level scalar, or
// one field of a list's elements) is gathered by a leaf straight from the
// Go rows into its chunk's pages (pages.go), with the definition and
// repetition levels pqarrow would compute for the Arrow type of the
// column (the Go and Arrow types map as NewTable says).
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
	raw      []rawBytes // a piece's strings
	times    []timeRaw  // a piece's times
	fixed    []byte     // a piece's fixed-width values to index, as bytes
	page     []byte     // a page's uncompressed body
	z        []byte     // a page's compressed body
	dictPage []byte     // a chunk's dictionary page, header and body
	plain    []byte     // its uncompressed body
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

// timeRaw is a time.Time of the rows being written, its location
// pointer hidden from the collector as rawBytes hides a string's.
type timeRaw struct {
	wall uint64
	ext  int64
	loc  uintptr
}

// unixMicro returns the time in microseconds since the epoch (which does
// not read the location).
func (t *timeRaw) unixMicro() int64 { return (*time.Time)(unsafe.Pointer(t)).UnixMicro() }

// scalar writes the values of one Go scalar type to a leaf column.
type scalar struct {
	// write gathers the leaf l of the rows of spans (stride bytes apart)
	// into the page c is filling, and cuts the page when it is full.
	write func(l *leaf, c *chunk, spans []span, stride uintptr, s *scratch) error
	// newDict returns an empty dictionary of the type's values; nil for
	// a type never dictionary-encoded (booleans).
	newDict func() dictionary
	// phys is the Parquet type of the leaf column of the type's values.
	phys parquet.Type
}

// asValues views the bytes of b as values of T: b holds values of T
// appended as such (or none), so it is aligned for them. A b without
// room for one value gives nil (the caller's append then allocates).
//
// Note: a buffer last used for values of a smaller type (4 bytes of
// int32 viewed as float64) made the pointer conversion reach past its
// allocation, which the unsafe rules forbid even when no value is read:
// go test -race (checkptr) stopped the command there.
func asValues[T any](b []byte) []T {
	size := int(unsafe.Sizeof(*new(T)))
	if cap(b) < size {
		return nil
	}
	return unsafe.Slice((*T)(unsafe.Pointer(unsafe.SliceData(b))), cap(b)/size)[:len(b)/size]
}

// asBytes views values of T as their bytes.
func asBytes[T any](v []T) []byte {
	size := int(unsafe.Sizeof(*new(T)))
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(v))), cap(v)*size)[:len(v)*size]
}

// fixedScalar is the scalar of a fixed-width type written PLAIN as it is
// in memory (little-endian: see littleEndian).
func fixedScalar[T int32 | int64 | float64](phys parquet.Type) *scalar {
	return &scalar{phys: phys, newDict: newFixedDict[T], write: func(l *leaf, c *chunk, spans []span, stride uintptr, s *scratch) error {
		if c.dictMode() {
			vals, def, rep := gather(l, spans, stride, asValues[T](s.fixed[:0]), c.def, c.rep)
			s.fixed, c.def, c.rep = asBytes(vals), def, rep
			return addFixed(c, vals, s)
		}
		// Gathered straight into the page's bytes.
		vals := asValues[T](c.vals)
		n := len(vals)
		vals, c.def, c.rep = gather(l, spans, stride, vals, c.def, c.rep)
		c.nvals += len(vals) - n
		c.vals = asBytes(vals)
		return c.filled(s)
	}}
}

// addFixed adds vals, the present values of a leaf in the rows of a
// piece (their levels already added), to the page c is filling: their
// dictionary indices, or PLAIN.
func addFixed[T int32 | int64 | float64](c *chunk, vals []T, s *scratch) error {
	if c.dictMode() {
		c.idx = c.dict.(*fixedDict[T]).appendIndices(c.idx, vals)
		c.raw += len(vals) * int(unsafe.Sizeof(T(0)))
	} else {
		b := asBytes(vals)
		c.vals = append(grow(c.vals, len(b)), b...)
	}
	c.nvals += len(vals)
	return c.filled(s)
}

// littleEndian reports whether the host stores integers little-endian,
// as PLAIN values are: the fixed-width values are written as they lie in
// memory, and NewWriter refuses a big-endian host.
var littleEndian = func() bool {
	x := uint16(1)
	return *(*byte)(unsafe.Pointer(&x)) == 1
}()

var (
	// stringScalar writes strings as dictionary indices while the leaf
	// has a dictionary (dictleaf.go), else PLAIN.
	stringScalar = &scalar{phys: parquet.Types.ByteArray, newDict: newStringDict, write: func(l *leaf, c *chunk, spans []span, stride uintptr, s *scratch) error {
		raw, def, rep := gather(l, spans, stride, s.raw[:0], c.def, c.rep)
		s.raw, c.def, c.rep = raw, def, rep
		if c.dictMode() {
			d := c.dict.(*stringDict)
			before := d.raw
			c.idx = d.appendIndices(c.idx, raw)
			c.raw += d.raw - before
		} else {
			size := 0
			for i := range raw {
				size += 4 + raw[i].len
			}
			vals := grow(c.vals, size) // a local: no write barrier per value
			for i := range raw {
				vals = appendPlainString(vals, raw[i].str())
			}
			c.vals = vals
			if c.stats {
				for i := range raw {
					c.noteString(raw[i].str())
				}
			}
		}
		c.nvals += len(raw)
		runtime.KeepAlive(spans) // the rows the views point into
		return c.filled(s)
	}}
	int32Scalar   = fixedScalar[int32](parquet.Types.Int32)
	int64Scalar   = fixedScalar[int64](parquet.Types.Int64)
	float64Scalar = fixedScalar[float64](parquet.Types.Double)
	boolScalar    = &scalar{phys: parquet.Types.Boolean, write: func(l *leaf, c *chunk, spans []span, stride uintptr, s *scratch) error {
		n := len(c.bools)
		c.bools, c.def, c.rep = gather(l, spans, stride, c.bools, c.def, c.rep)
		c.nvals += len(c.bools) - n
		return c.filled(s)
	}}
	// timeScalar writes a time as microseconds since the epoch (the
	// int64 of a timestamp[us] column).
	timeScalar = &scalar{phys: parquet.Types.Int64, newDict: newFixedDict[int64], write: func(l *leaf, c *chunk, spans []span, stride uintptr, s *scratch) error {
		times, def, rep := gather(l, spans, stride, s.times[:0], c.def, c.rep)
		s.times, c.def, c.rep = times, def, rep
		micros := grow(asValues[int64](s.fixed[:0]), len(times))
		for i := range times {
			micros = append(micros, times[i].unixMicro())
		}
		s.fixed = asBytes(micros)
		return addFixed(c, micros, s)
	}}
)
