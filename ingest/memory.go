package ingest

import (
	"os"
	"runtime/debug"
	"sync"
	"sync/atomic"
)

// gcPercent is the garbage collector's target while ingest runs, unless
// GOGC is set. Parsing allocates much short-lived garbage and little
// that lives (a window of parsed documents and one batch of rows): 400
// quarters the collector's work against the default, and memLimit bounds
// the heap it lets grow.
//
// Note: against 200, 400 took 10% less CPU for 1,000 documents (0.98 →
// 0.89 ms each, 8 interleaved runs) for 10 MB more peak RSS; at 10,000
// the soft limit governs and both give 155 MB.
const gcPercent = 400

// memLimit is the heap size at which the collector works harder, unless
// GOMEMLIMIT is set: a soft bound that keeps the peak RSS of a long
// ingest flat (the live data is one window of documents and one batch of
// rows, tens of MB), where the heap would otherwise grow to gcPercent
// above each peak and the runtime return it to the system only slowly.
const memLimit = 128 << 20

// TuneMemory sets the process's collector for an ingest: gcPercent
// unless GOGC is set, the soft limit memLimit unless GOMEMLIMIT is set
// (which roomFor then moves for large documents). The returned function
// puts back what it changed. The settings are the process's: one call
// at a time.
func TuneMemory() (restore func()) {
	var undo []func()
	if _, set := os.LookupEnv("GOGC"); !set {
		old := debug.SetGCPercent(gcPercent)
		undo = append(undo, func() { debug.SetGCPercent(old) })
	}
	if _, set := os.LookupEnv("GOMEMLIMIT"); !set {
		old := debug.SetMemoryLimit(memLimit)
		ownLimit.Store(true)
		undo = append(undo, func() {
			ownLimit.Store(false)
			debug.SetMemoryLimit(old)
		})
	}
	return func() {
		for i := len(undo) - 1; i >= 0; i-- {
			undo[i]()
		}
	}
}

// bytesPerDocByte is about how much heap one document's parse and
// write hold per byte of it at their peak: a 60 MB "All measurements"
// table held ~1 GB (its rows as measurements with their printed texts,
// and the table's cells while they are read).
const bytesPerDocByte = 20

// hugeDocSize is the size from which a document moves the soft memory limit.
const hugeDocSize = 4 << 20

// streamedSize is about the size from which a seed-shaped document is
// read in pieces (more than 65,536 rows, see parse.ParseAllStream). Such
// a document holds about twice its size at its peak (its text, a line of
// each row, a key of each row and of each cell) and some tens of MB of
// pieces and Parquet pages: 180 MB for 60 MB. The limit moves by one and
// a half times its size.
const streamedSize = 6 << 20

var (
	// ownLimit is set while TuneMemory owns the soft memory limit
	// (GOMEMLIMIT not set).
	ownLimit atomic.Bool
	limitMu  sync.Mutex
)

// roomFor raises the soft memory limit, when TuneMemory set it, to what
// a document of size bytes needs beside memLimit.
//
// Note: a document whose parse alone needs more than memLimit made the
// collector run without pause (two thirds of 30 CPU-s for one 60 MB
// document) and saved no memory: its rows were all live until written.
// A document read in pieces needs far less: 60 MB moves the limit by
// 90 MB. 20× its size let the heap reach 1.35 GB; 2× gave 273–295 MB
// peak RSS and 1.5× 252 MB for 1 CPU-s more of collection (8.8–9.7
// against 7.6–8.3 CPU-s, interleaved runs on a loaded machine). The
// limit goes back when TuneMemory's restore is called.
func roomFor(size int64) {
	if size < hugeDocSize || !ownLimit.Load() {
		return
	}
	need := bytesPerDocByte * size
	if size > streamedSize {
		need = 3 * size / 2
	}
	want := memLimit + need
	limitMu.Lock()
	defer limitMu.Unlock()
	if debug.SetMemoryLimit(-1) < want {
		debug.SetMemoryLimit(want)
	}
}

// hugeHeapFiles is the number of input files from which Files advises
// huge pages (hugeheap.Advise): a call over fewer documents never grows
// its heap far.
const hugeHeapFiles = 64
