package pqwrite

import (
	"encoding/binary"
	"math"
	"unsafe"
)

// dictionary is the dictionary of a dictionary-encoded leaf in one row
// group: its distinct values in order of first appearance, which its
// chunk writes as the dictionary page, and the index of each value,
// which the chunk writes as RLE_DICTIONARY data pages (pages.go).
type dictionary interface {
	// len returns the number of distinct values.
	len() int
	// pageBytes returns the plain size of the dictionary page.
	pageBytes() int
	// rawBytes returns the plain size of all values indexed since reset.
	rawBytes() int
	// appendPlain appends value i PLAIN-encoded.
	appendPlain(dst []byte, i int32) []byte
	// reset empties the dictionary for the next row group, keeping its
	// buffers.
	reset()
}

// dictLeaf gathers the distinct values of a leaf and gives each value
// its index.
//
// Note: arrow-go's dictionary encoder hashed each of the ~800,000 string
// values of 1,000 seed documents (run ids, phases, labels, a dozen
// printed keys a row) with xxh3 and compared it through a BinaryBuilder:
// a quarter of the CPU time of the write (BenchmarkWriteSeed1000). The
// values of a column mostly follow the same value as the last time (a
// run id over a run's rows, the printed keys in the same order in every
// row), so a value is first checked against the one that followed its
// predecessor last time, one comparison, and only a miss looks in a Go
// map. The dictionary is in order of first appearance, as arrow-go's.
//
// Note: the indices go into pages as they come, so a group holds at most
// a page of them (a run of 540,000 rows streamed into one group); a
// dictionary past the page size limit (distinct texts) falls back to
// PLAIN values for the rest of the group (chunk.toPlain).
type dictLeaf[K comparable] struct {
	ids    map[K]int32
	values []K     // distinct, in order of first appearance
	next   []int32 // next[i]: the index that followed value i last time, or -1
	last   int32   // the index of the previous value, or -1
	n      int     // values indexed
}

// index returns the dictionary index of v, adding v if new, and whether
// it was new.
func (d *dictLeaf[K]) index(v K) (int32, bool) {
	d.n++
	if d.last >= 0 {
		if n := d.next[d.last]; n >= 0 && d.values[n] == v {
			d.last = n
			return n, false
		}
	}
	i, ok := d.ids[v]
	if !ok {
		if d.ids == nil {
			d.ids = map[K]int32{}
		}
		i = int32(len(d.values))
		d.ids[v] = i
		d.values = append(d.values, v)
		d.next = append(d.next, -1)
	}
	if d.last >= 0 {
		d.next[d.last] = i
	}
	d.last = i
	return i, !ok
}

// reset empties d, keeping its buffers.
func (d *dictLeaf[K]) reset() {
	clear(d.ids)
	clear(d.values) // keeps no rows alive
	d.values, d.next, d.last, d.n = d.values[:0], d.next[:0], -1, 0
}

// stringDict is the dictionary of a string leaf.
type stringDict struct {
	dictLeaf[string]
	bytes int // the dictionary page's plain size: 4+len of each value
	raw   int // the plain size of the values indexed: 4+len of each
}

func newStringDict() dictionary { return &stringDict{dictLeaf: dictLeaf[string]{last: -1}} }

// appendIndices appends the indices of vals to idx, adding the values
// new to the dictionary.
//
// Note: a value that is the very string (the same bytes in memory) as
// the value predicted (see dictLeaf) is that value without comparing
// their bytes, and the dictionary keeps the latest of equal strings it
// meets: the rows of a document share their printed keys (its header)
// and phases, so only a document's first row compares them. The
// dictionary's values are strings the collector sees, so the memory a
// pointer is compared with is never another string's, even of a piece
// of rows gone (WriteStream). A write of 1,000 seed documents' measurements 50.6 → 47.2
// cpu-µs/doc (6 interleaved rounds).
func (d *stringDict) appendIndices(idx []int32, vals []rawBytes) []int32 {
	idx = grow(idx, len(vals))
	for i := range vals {
		v := vals[i].str()
		d.raw += 4 + len(v)
		if d.last >= 0 {
			if n := d.next[d.last]; n >= 0 {
				if w := d.values[n]; len(w) == len(v) && unsafe.StringData(w) == unsafe.StringData(v) {
					d.last, d.n = n, d.n+1
					idx = append(idx, n)
					continue
				}
			}
		}
		j, added := d.dictLeaf.index(v)
		if added {
			d.bytes += 4 + len(v)
		} else {
			d.values[j] = v
		}
		idx = append(idx, j)
	}
	return idx
}

func (d *stringDict) len() int       { return len(d.values) }
func (d *stringDict) pageBytes() int { return d.bytes }
func (d *stringDict) rawBytes() int  { return d.raw }

func (d *stringDict) appendPlain(dst []byte, i int32) []byte {
	return appendPlainString(dst, d.values[i])
}

func (d *stringDict) reset() {
	d.dictLeaf.reset()
	d.bytes, d.raw = 0, 0
}

// fixedDict is the dictionary of a fixed-width leaf (integers, times).
type fixedDict[T int32 | int64 | float64] struct {
	dictLeaf[T]
}

func newFixedDict[T int32 | int64 | float64]() dictionary {
	return &fixedDict[T]{dictLeaf: dictLeaf[T]{last: -1}}
}

// appendIndices appends the indices of vals to idx, adding the values
// new to the dictionary.
func (d *fixedDict[T]) appendIndices(idx []int32, vals []T) []int32 {
	idx = grow(idx, len(vals))
	for _, v := range vals {
		if d.last >= 0 {
			if n := d.next[d.last]; n >= 0 && d.values[n] == v {
				d.last, d.n = n, d.n+1
				idx = append(idx, n)
				continue
			}
		}
		j, _ := d.index(v)
		idx = append(idx, j)
	}
	return idx
}

func (d *fixedDict[T]) len() int       { return len(d.values) }
func (d *fixedDict[T]) pageBytes() int { return len(d.values) * int(unsafe.Sizeof(T(0))) }
func (d *fixedDict[T]) rawBytes() int  { return d.n * int(unsafe.Sizeof(T(0))) }

func (d *fixedDict[T]) appendPlain(dst []byte, i int32) []byte {
	switch v := any(d.values[i]).(type) {
	case int32:
		return binary.LittleEndian.AppendUint32(dst, uint32(v))
	case int64:
		return binary.LittleEndian.AppendUint64(dst, uint64(v))
	case float64:
		return binary.LittleEndian.AppendUint64(dst, math.Float64bits(v))
	}
	return dst
}
