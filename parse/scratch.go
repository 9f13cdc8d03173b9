package parse

import "sync"

// scratch is the memory a document's parse needs only while it runs:
// the text's lines, its tables' rows and cells, the pairs and matrix
// cells of the rawDoc, the table rows build checks and the indexes it
// finds them by. Nothing of it reaches the matrix (its measurements,
// printed texts and figures are allocated apart), so a parse takes one
// from scratchPool and gives it back when build is done, and the next
// document reuses its memory.
//
// Note: made anew for each seed document it was 27 KB of the 80 KB a
// parse allocated (15 KB of it build's rows and indexes): BenchmarkParseText
// 88 → 59 KB and 58 → 46 allocations a seed, its CPU time 0.89× (parse.test
// -test.bench 'ParseText$' -test.benchtime 2000x, 12 interleaved runs,
// perf stat task-clock); Ingest1000/command 301 → 294 cpu-µs/doc (10
// interleaved runs, within this machine's noise), and 8% fewer page
// faults for a whole ingest of 1,000 documents (21,900 → 20,100). A
// parse's memory that escapes into the matrix (its measurements, 21 KB,
// and printed texts, 18 KB) is not scratch.
//
// A nil *scratch gives build's parts new memory (a streamed document,
// whose rawDoc outlives the parse, see Rows, and tests of the parts).
type scratch struct {
	lines  []textLine
	rows   arena[rawRow]
	cells  arena[rawCell]
	fields arena[rawField]
	strs   arena[string] // the cells of split table rows (cellChunks)

	table  []tableRow  // readRange's rows
	ptrs   []*tableRow // build's rows, pointing into table
	byKey  rowIndex[rowKey]
	byCell rowIndex[tableCell]
	byCtx  rowIndex[ctxKey]

	// slabs, when set, is the memory readRange reads the measurements
	// into, a Recycler's (not scratch: it goes with the matrix).
	slabs *rowSlabs
}

// scratchPool holds the scratch of finished parses.
var scratchPool = sync.Pool{New: func() any { return new(scratch) }}

// getScratch returns a scratch with nothing in use.
func getScratch() *scratch { return scratchPool.Get().(*scratch) }

// release clears sc and returns it to the pool, unless a large document
// grew it past pooledRows table rows, pooledLines lines or pooledCells
// split cells: that one is left to the collector.
//
// Note: the pool keeps what it holds as long as parses take it again, so
// the scratch of a 60,000-row document (about 20 MB: its lines, rows and
// cells) would stay for the rest of an ingest; a seed's is 27 KB.
func (sc *scratch) release() {
	if cap(sc.table) > pooledRows || cap(sc.lines) > pooledLines || cap(sc.strs.buf) > pooledCells {
		return
	}
	sc.clear()
	scratchPool.Put(sc)
}

// pooledRows, pooledLines and pooledCells bound the scratch release
// returns to the pool: at most about 2.5 MB (its row indexes 1.2 MB).
const (
	pooledRows  = 1 << 12
	pooledLines = 1 << 13
	pooledCells = 1 << 15
)

// clear zeroes what the parse used, so that the pool keeps no document's
// strings or measurements alive and the next parse finds zeroed memory,
// as make would give it.
func (sc *scratch) clear() {
	clear(sc.lines)
	sc.lines = sc.lines[:0]
	sc.rows.reset()
	sc.cells.reset()
	sc.fields.reset()
	sc.strs.reset()
	clear(sc.table)
	sc.table = sc.table[:0]
	clear(sc.ptrs[:cap(sc.ptrs)]) // readRange appends to a copy of it
}

// arena hands out slices of T from one buffer that its parse reuses:
// each zeroed, of length 0 and capacity n exactly (appending beyond it
// copies out of the arena).
type arena[T any] struct{ buf []T }

// take returns a zeroed slice of capacity n. A buffer too small for it is
// replaced by a new one, twice as large up to arenaMax elements (slices
// taken from the old one keep it).
//
// Note: without the bound, the cells of a streamed document of 540,000
// rows went into buffers doubling to millions of strings, each living
// until the last of its rows was read; in buffers of arenaMax each goes
// once its rows are read (cellChunks), as the chunks did before the
// arena. The 60 MB document's peak RSS did not move measurably
// (IngestHugeDoc, 3 interleaved rounds: 233–237 MB before, 232–235 after).
func (a *arena[T]) take(n int) []T {
	if cap(a.buf)-len(a.buf) < n {
		a.buf = make([]T, 0, max(n, min(2*cap(a.buf), arenaMax), 64))
	}
	from := len(a.buf)
	a.buf = a.buf[:from+n]
	return a.buf[from : from : from+n]
}

// arenaMax is the most elements an arena's buffer grows to by doubling
// (a single take may ask for more).
const arenaMax = 1 << 13

// reset zeroes the slices taken and makes the buffer free again.
func (a *arena[T]) reset() {
	clear(a.buf)
	a.buf = a.buf[:0]
}

// tableRows returns n zeroed table rows.
func (sc *scratch) tableRows(n int) []tableRow {
	if sc == nil {
		return make([]tableRow, n)
	}
	if cap(sc.table) < n {
		sc.table = make([]tableRow, n)
	}
	sc.table = sc.table[:n] // zeroed by clear
	return sc.table
}

// rowPtrs returns an empty slice with room for n row pointers.
func (sc *scratch) rowPtrs(n int) []*tableRow {
	if sc == nil {
		return make([]*tableRow, 0, n)
	}
	if cap(sc.ptrs) < n {
		sc.ptrs = make([]*tableRow, 0, n)
	}
	return sc.ptrs[:0]
}

// keyIndex, cellIndex and ctxIndex return an empty index for n keys in
// sc's memory, as newRowIndex makes it (ctxIndex a new one for a nil sc).
func (sc *scratch) keyIndex(n int) *rowIndex[rowKey] { return sc.byKey.reset(n) }

func (sc *scratch) cellIndex(n int) *rowIndex[tableCell] { return sc.byCell.reset(n) }

func (sc *scratch) ctxIndex(n int) *rowIndex[ctxKey] {
	if sc == nil {
		return newRowIndex[ctxKey](n)
	}
	return sc.byCtx.reset(n)
}

// rowSlabs returns the slabs readRange reads measurements into: nil
// (new memory) for a nil sc or one without.
func (sc *scratch) rowSlabs() *rowSlabs {
	if sc == nil {
		return nil
	}
	return sc.slabs
}
