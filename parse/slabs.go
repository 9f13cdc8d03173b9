package parse

import (
	"fmt"
	"io"
	"sync"

	"speedmatrix/schema"
)

// Recycler reuses the memory of parsed documents' measurements: the
// measurements themselves, their printed texts and the figures their
// pointer fields point to (a rowSlabs, about 40 KB for a seed document).
// Its ParseAllStream and ParseAllStreamBytes read a document's rows into
// memory a Release gave back, when there is some, and Release takes it
// back once its caller no longer reads the matrix's measurements. A nil
// *Recycler reads every document into new memory (the package's
// ParseAllStream) and releases nothing. Its methods may be called from
// several goroutines. The zero Recycler is ready for use.
//
// Note: the memory of a document's rows was two thirds of what its parse
// allocated (40 of ~60 KB) and lived until the archive wrote its batch;
// under ingest's soft memory limit that allocation set how often the
// collector ran. Recycled, a whole ingest (GODEBUG=gctrace=1; valgrind
// --tool=cachegrind --cache-sim=no for instructions; CPU time of
// interleaved runs) of 100,000 generated seed-shaped documents ran 43
// collections instead of 121, in 7.2% fewer instructions (213.5G →
// 198.1G) and 24.2 s of CPU instead of 26.1 (3 runs each), at the same
// peak RSS (151 MB); of 10,000 4 collections instead of
// 10, 3.0% fewer instructions (19.77G → 19.18G), 2.50 s instead of 2.58
// (6 runs; another series of 8 on a busier machine: 3.05 and 3.04); of
// 1,000, 2 collections either way, 2.1% fewer instructions.
//
// Note: Release zeroes the rows it takes back, not take before reuse:
// the free list then keeps no document's strings alive, and a matrix
// released while something still reads it reads zeroes (the tests'
// poison). Zeroing at take instead (when the memory is reused) was not
// cheaper: 19.29G instructions for the same 10,000 documents.
type Recycler struct {
	mu   sync.Mutex
	held map[*schema.Matrix]*rowSlabs // parsed, not yet released
	free []*rowSlabs                  // released, zeroed
	rows int                          // the measurements free can hold
}

// rowSlabs is the memory readRange reads one document's rows into: its
// measurements, their printed texts (w a row) and the figures they point
// to. In a Recycler's free list every element up to its capacity is zero,
// as make gives it.
type rowSlabs struct {
	ms      []schema.Measurement
	printed []schema.KV
	floats  []float64
	ints    []int64
	int32s  []int32
}

// freeRows bounds the measurements a Recycler's free list holds (and so
// its memory, about 0.9 KB a measurement with its texts and figures);
// slabs of more than maxSlabRows measurements are left to the collector.
//
// Note: an archive Writer gives back a whole batch at once (16,384 rows,
// ~356 seed documents), which parses then take one by one, so the bound
// is a batch's rows: a window of 1,024 rows (22 documents) kept the
// rest of each batch from being reused and saved one collection of 10
// at 10,000 documents. The memory it holds is what the batch held
// before the write, so peak RSS did not grow (10,000 documents: 146 →
// 140 MB, 8 interleaved runs; 1,000: 107 → 82 MB, 6).
var freeRows = 1 << 14 // a variable so tests can bound it lower

// maxSlabRows is the most measurements of one document a Recycler keeps.
const maxSlabRows = 1 << 12

// ParseAllStream is the package's ParseAllStream whose matrix's
// measurements are in rc's memory (see Recycler).
func (rc *Recycler) ParseAllStream(r io.Reader, name, format string, see func([]schema.Measurement)) (ms []*schema.Matrix, rows *Rows, err error) {
	b, err := readAll(r)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: read: %w", name, err)
	}
	return rc.ParseAllStreamBytes(b, name, format, see) // b is readAll's alone
}

// ParseAllStreamBytes is the package's ParseAllStreamBytes whose matrix's
// measurements are in rc's memory (see Recycler).
func (rc *Recycler) ParseAllStreamBytes(b []byte, name, format string, see func([]schema.Measurement)) (ms []*schema.Matrix, rows *Rows, err error) {
	if len(b) > MaxDocumentBytes {
		return nil, nil, errorf(name, 0, "larger than %d MiB: not a speed-test document", MaxDocumentBytes>>20)
	}
	defer func() {
		if p := recover(); p != nil {
			ms, rows, err = nil, nil, errorf(name, 0, "internal error reading this document (please report it with the file): %v", p)
		}
	}()
	return parseAllStream(b, name, format, true, true, see, rc)
}

// Release gives back the memory of m's measurements, if rc read them: m
// is left without measurements (m.Run stays as it was). Call it once
// nothing reads them any more (an archive Writer wrote them, see its
// Written); a matrix rc did not read is left as it is.
func (rc *Recycler) Release(m *schema.Matrix) {
	if rc == nil {
		return
	}
	rc.mu.Lock()
	s := rc.held[m]
	delete(rc.held, m)
	rc.mu.Unlock()
	if s == nil {
		return
	}
	m.Measurements = nil
	rc.put(s)
}

// take returns slabs to read a document's rows into: released ones when
// rc has some, new ones otherwise, or nil for a nil rc.
func (rc *Recycler) take() *rowSlabs {
	if rc == nil {
		return nil
	}
	rc.mu.Lock()
	defer rc.mu.Unlock()
	n := len(rc.free)
	if n == 0 {
		return new(rowSlabs)
	}
	s := rc.free[n-1]
	rc.free[n-1] = nil
	rc.free = rc.free[:n-1]
	rc.rows -= cap(s.ms)
	return s
}

// hold records that m's measurements are in s, for Release.
func (rc *Recycler) hold(m *schema.Matrix, s *rowSlabs) {
	if rc == nil || s == nil {
		return
	}
	rc.mu.Lock()
	defer rc.mu.Unlock()
	if rc.held == nil {
		rc.held = map[*schema.Matrix]*rowSlabs{}
	}
	rc.held[m] = s
}

// put zeroes the used part of s and adds it to the free list, unless it
// is too large or the list full.
func (rc *Recycler) put(s *rowSlabs) {
	if rc == nil || s == nil || cap(s.ms) > maxSlabRows {
		return
	}
	clear(s.ms)
	clear(s.printed)
	s.ms, s.printed = s.ms[:0], s.printed[:0]
	rc.mu.Lock()
	defer rc.mu.Unlock()
	if rc.rows+cap(s.ms) > freeRows {
		return
	}
	rc.free = append(rc.free, s)
	rc.rows += cap(s.ms)
}

// slabs returns the memory of n rows of w cells each: zeroed
// measurements and printed texts, and empty figure slabs. They are in
// s's memory (which keeps them, for the Recycler), or new for a nil s.
func (s *rowSlabs) slabs(n, w int) ([]schema.Measurement, []schema.KV, slab[float64], slab[int64], slab[int32]) {
	if s == nil {
		return make([]schema.Measurement, n), make([]schema.KV, n*w),
			slab[float64]{make([]float64, 0, 6*n)}, slab[int64]{make([]int64, 0, 3*n)}, slab[int32]{make([]int32, 0, n)}
	}
	// Zero up to its capacity (see rowSlabs), or new.
	s.ms = grown(s.ms, n)
	s.printed = grown(s.printed, n*w)
	// The figures are written as they are handed out: no need to zero.
	if cap(s.floats) < 6*n {
		s.floats = make([]float64, 0, 6*n)
	}
	if cap(s.ints) < 3*n {
		s.ints = make([]int64, 0, 3*n)
	}
	if cap(s.int32s) < n {
		s.int32s = make([]int32, 0, n)
	}
	return s.ms, s.printed, slab[float64]{s.floats[:0]}, slab[int64]{s.ints[:0]}, slab[int32]{s.int32s[:0]}
}

// grown returns b (zero up to its capacity) with length n, or a new slice
// when b has not the room.
func grown[T any](b []T, n int) []T {
	if cap(b) < n {
		return make([]T, n)
	}
	return b[:n]
}
