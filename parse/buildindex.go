package parse

import "math/bits"

// This file holds the tables build finds a document's rows in: by key
// (a duplicated row), by cell (what a matrix cell is checked against)
// and by context (a prefill figure's row).
//
// Note: they were Go maps, made anew for every document (two of 46
// entries and one of 6 for a seed): making them, inserting and looking
// up were 0.19 of 9.27 s in a profile of Ingest1000/command (main
// 6c89db0, `-benchtime 20x`), with a 40-byte key hashed by aeshash at
// each insert and lookup. An open-addressing table of a power-of-two
// size, its keys hashed by a multiplication, does the same in one
// allocation per table: the instructions of a seed's parse in map code
// (inserts, lookups, aeshash, key compares) and these tables, 35.1K
// before and 15.7K after, of 1.1M outside SHA-256 (`valgrind
// --tool=cachegrind parse.test -test.bench '^BenchmarkParseText$/000'
// -test.benchtime 1000x -test.cpu 1`; timings on the loaded machine
// could not tell 2% apart).

// indexKey is a key of a rowIndex: comparable, with a hash of its own.
type indexKey interface {
	comparable
	hash() uint64
}

// rowIndex maps keys to rows by open addressing (linear probing) in a
// table at most half full, or three quarters for more than
// denseIndexRows keys.
//
// Note: a table of 540,000 rows (a 60 MB document parsed whole, not
// streamed) at most half full would take 2²¹ slots of 48 bytes, 100 MB,
// where a Go map made for them takes 58.8 MB (measured by
// runtime.MemStats); at most three quarters full it takes 2²⁰, 50 MB.
type rowIndex[K indexKey] struct {
	slots []indexSlot[K]
	shift uint // 64 - log2(len(slots)): a hash's top bits are its slot
}

// indexSlot is a slot of a rowIndex; a nil row marks it empty.
type indexSlot[K indexKey] struct {
	key K
	row *tableRow
}

// newRowIndex returns an index with room for n keys.
func newRowIndex[K indexKey](n int) *rowIndex[K] {
	return new(rowIndex[K]).reset(n)
}

// reset empties x and sizes it for n keys, reusing its slots when they
// are enough (see scratch).
func (x *rowIndex[K]) reset(n int) *rowIndex[K] {
	logSize := max(3, bits.Len(uint(2*n))) // at most half full
	if n > denseIndexRows {
		logSize = bits.Len(uint(n + n/3)) // at most three quarters
	}
	if size := 1 << logSize; cap(x.slots) >= size {
		x.slots = x.slots[:size]
		clear(x.slots)
	} else {
		x.slots = make([]indexSlot[K], size)
	}
	x.shift = uint(64 - logSize)
	return x
}

// denseIndexRows is the most keys a rowIndex keeps at most half full.
const denseIndexRows = 1 << 12

// at returns where the row of k is: nil if k has none yet, in which case
// the caller must store one there (a slot with a key and no row would be
// taken for an empty one).
func (x *rowIndex[K]) at(k K) **tableRow {
	mask := uint64(len(x.slots) - 1)
	for i := (k.hash() * fibonacci) >> x.shift; ; i = (i + 1) & mask {
		s := &x.slots[i]
		if s.row == nil {
			s.key = k
			return &s.row
		}
		if s.key == k {
			return &s.row
		}
	}
}

// get returns the row of k, or nil.
func (x *rowIndex[K]) get(k K) *tableRow {
	mask := uint64(len(x.slots) - 1)
	for i := (k.hash() * fibonacci) >> x.shift; ; i = (i + 1) & mask {
		s := &x.slots[i]
		if s.row == nil || s.key == k {
			return s.row
		}
	}
}

// fibonacci spreads a hash over its top bits (2⁶⁴ / the golden ratio).
const fibonacci = 0x9E3779B97F4A7C15

// hash mixes a cell's numbers; rowIndex spreads the result.
func (c tableCell) hash() uint64 {
	return uint64(c.ctx)*0xD6E8FEB86659FD93 ^ uint64(uint32(c.conc))<<8 ^ uint64(uint32(c.phase))
}

// hash mixes a row key's numbers.
func (k rowKey) hash() uint64 {
	return k.tableCell.hash() ^ uint64(k.repeat)*0xFF51AFD7ED558CCD ^ k.rate ^ k.hasRate<<63
}

// ctxKey is a context's token count, as a rowIndex key.
type ctxKey int64

func (c ctxKey) hash() uint64 { return uint64(c) }

// cellRows finds the first row of a cell of the table (checkMatrix's
// rows): a rowIndex for a whole document, a map for a streamed one.
type cellRows interface {
	firstRow(tableCell) *tableRow
}

func (x *rowIndex[K]) firstRow(c K) *tableRow { return x.get(c) }

// cellMap is a map of cells to their first rows as cellRows.
type cellMap map[tableCell]*tableRow

func (m cellMap) firstRow(c tableCell) *tableRow { return m[c] }
