package main

import (
	"runtime/debug"
	"sync"
	"sync/atomic"
)

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

// hugeHeapFiles is the number of input files from which run advises huge
// pages: a call over fewer documents never grows its heap far.
const hugeHeapFiles = 64

var (
	// ownLimit is set while run owns the soft memory limit (GOMEMLIMIT
	// not set).
	ownLimit atomic.Bool
	limitMu  sync.Mutex
)

// roomFor raises the soft memory limit, when ingest set it, to what a
// document of size bytes needs beside memLimit.
//
// Note: a document whose parse alone needs more than memLimit made the
// collector run without pause (two thirds of 30 CPU-s for one 60 MB
// document) and saved no memory: its rows were all live until written.
// A document read in pieces needs far less: 60 MB moves the limit by
// 90 MB. 20× its size let the heap reach 1.35 GB; 2× gave 273–295 MB
// peak RSS and 1.5× 252 MB for 1 CPU-s more of collection (8.8–9.7
// against 7.6–8.3 CPU-s, interleaved runs on a loaded machine). The limit goes
// back when run returns.
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
