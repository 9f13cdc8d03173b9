package pqwrite

import "unsafe"

// gather appends to vals the present values of leaf l in the rows of
// spans (stride bytes apart), each read as the T it is in memory, and
// their definition and repetition levels to def and rep (none for a
// column without them), and returns the three.
//
// Note: the levels are those of the Arrow types pqarrow writes: a
// pointer column is optional (definition level 1 when set); a list column
// is an optional list of required elements, so an element's field has
// definition level 0 for a nil slice, 1 for an empty one and 2 for a
// value (3 when the field is a set pointer), and repetition level 1 for
// every element after a row's first.
//
// Note: the loops read the values as they are and call nothing: a
// conversion per value (a function value: a dictionary's index, a
// time's microseconds) made the compiler keep the loops' slices and
// counters on the stack, reloaded around every call, and appending a
// value at a time did too. The scalars convert or index the gathered
// values in a loop of their own; the loops write into slices grown
// first, and the innermost (optionalValues, listValues) are not inlined,
// which leaves their registers to them alone. A write of 1,000 seed
// documents' measurements 2.11G → 1.71G instructions (cachegrind of 5
// BenchmarkWriteSeed1000), 64.2 → 50.6 cpu-µs/doc (6 interleaved
// rounds); the bytes are the same.
func gather[T any](l *leaf, spans []span, stride uintptr, vals []T, def, rep []int16) ([]T, []int16, []int16) {
	for _, sp := range spans {
		switch l.kind {
		case leafRequired:
			vals = gatherRequired(l, sp, stride, vals)
		case leafOptional:
			vals, def = gatherOptional(sp, l.off, stride, vals, def)
		case leafList:
			vals, def, rep = gatherList(l, sp, stride, vals, def, rep)
		}
	}
	return vals, def, rep
}

// grow returns s with room for n more values: s itself, or a copy with
// at least twice its capacity.
//
// Note: the buffers of a file writer grow to a row group's pages, and
// append (or slices.Grow) grows a large slice by a quarter at a time, so
// that reaching a size allocated about five times it, each time fresh
// memory faulted in page by page; doubling allocates twice the size. A
// whole ingest of 1,000 generated documents: 21,229 → 20,465 and 22,016
// → 20,588 page faults, 98 → 94 and 101 → 95 MB peak RSS, 0.298 → 0.289
// and 0.352 → 0.338 CPU seconds (two series of 10 interleaved runs).
func grow[T any](s []T, n int) []T {
	if cap(s)-len(s) >= n {
		return s
	}
	t := make([]T, len(s), max(2*cap(s), len(s)+n))
	copy(t, s)
	return t
}

// gatherRequired is gather of a required leaf for the rows of one span.
func gatherRequired[T any](l *leaf, sp span, stride uintptr, vals []T) []T {
	vals = grow(vals, sp.n)
	out := vals[len(vals) : len(vals)+sp.n]
	if l.runID && sp.id != "" {
		// The span's id (a string, as T is a string's rawBytes).
		v := *(*T)(unsafe.Pointer(&sp.id))
		for i := range out {
			out[i] = v
		}
		return vals[:len(vals)+sp.n]
	}
	off := l.off // an offset, not a pointer: it passes the last row
	for i := range out {
		out[i] = *(*T)(unsafe.Add(sp.base, off))
		off += stride
	}
	return vals[:len(vals)+sp.n]
}

// gatherOptional is gather of an optional leaf (a pointer at offset off
// of a row) for the rows of one span.
func gatherOptional[T any](sp span, off, stride uintptr, vals []T, def []int16) ([]T, []int16) {
	vals, def = grow(vals, sp.n), grow(def, sp.n)
	k := optionalValues(vals[len(vals):len(vals)+sp.n], def[len(def):len(def)+sp.n], sp.base, off, stride)
	return vals[:len(vals)+k], def[:len(def)+sp.n]
}

// zeroValue is what a nil pointer's value is read as: zeros, at least
// as many as the largest T gathered (a timeRaw).
var zeroValue [32]byte

// valueAt reads the T that q points to, or zeros when q is nil (a
// pointer to zeroValue instead), and says whether q was set (1) or not
// (0). It is small enough to be inlined into the loops below.
func valueAt[T any](q unsafe.Pointer) (T, int) {
	set := 0
	if q != nil {
		set = 1
	} else {
		q = unsafe.Pointer(&zeroValue)
	}
	return *(*T)(q), set
}

// optionalValues puts the values of the pointers at offset off of the
// rows from base on (stride bytes apart, as many as levels) into out,
// their definition levels into levels, and returns how many it put.
//
//go:noinline
func optionalValues[T any](out []T, levels []int16, base unsafe.Pointer, off, stride uintptr) int {
	k := 0
	for i := range levels {
		// Without a branch on whether the row has a value: a nil pointer
		// reads zeros that the next value overwrites.
		v, set := valueAt[T](*(*unsafe.Pointer)(unsafe.Add(base, off)))
		off += stride
		out[k] = v
		levels[i] = int16(set)
		k += set
	}
	return k
}

// gatherList is gather of a list leaf for the rows of one span.
func gatherList[T any](l *leaf, sp span, stride uintptr, vals []T, def, rep []int16) ([]T, []int16, []int16) {
	n := 0 // the levels: an element's each, and one of each empty list
	for i, off := 0, l.off; i < sp.n; i, off = i+1, off+stride {
		n += max(1, (*sliceHeader)(unsafe.Add(sp.base, off)).len)
	}
	vals, def, rep = grow(vals, n), grow(def, n), grow(rep, n)
	k := listValues(l, sp, stride, vals[len(vals):len(vals)+n], def[len(def):len(def)+n], rep[len(rep):len(rep)+n])
	return vals[:len(vals)+k], def[:len(def)+n], rep[:len(rep)+n]
}

// listValues puts the values of leaf l in the elements of the rows of sp
// into out, and the levels of the rows (as many as def and rep hold)
// into def and rep; it returns how many values it put.
//
//go:noinline
func listValues[T any](l *leaf, sp span, stride uintptr, out []T, def, rep []int16) int {
	top := int16(2)
	if l.childPtr {
		top = 3
	}
	size, k, at := l.size, 0, 0
	for i, off := 0, l.off; i < sp.n; i, off = i+1, off+stride {
		h := *(*sliceHeader)(unsafe.Add(sp.base, off))
		if h.len == 0 {
			def[at], rep[at] = 0, 0 // a nil slice: a null list
			if h.data != nil {
				def[at] = 1 // an empty one (empty slices point somewhere)
			}
			at++
			continue
		}
		levels, reps := def[at:at+h.len], rep[at:at+h.len]
		for j := range reps {
			reps[j] = 1
		}
		reps[0] = 0
		e := l.child // the offset of the field in an element
		if l.childPtr {
			for j := range levels {
				v, set := valueAt[T](*(*unsafe.Pointer)(unsafe.Add(h.data, e)))
				e += size
				out[k] = v
				levels[j] = top - 1 + int16(set)
				k += set
			}
		} else {
			vals := out[k : k+h.len]
			for j := range vals {
				vals[j] = *(*T)(unsafe.Add(h.data, e))
				e += size
				levels[j] = top
			}
			k += h.len
		}
		at += h.len
	}
	return k
}

// sliceHeader is the memory layout of any Go slice.
type sliceHeader struct {
	data     unsafe.Pointer
	len, cap int
}
