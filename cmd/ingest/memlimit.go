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
// read in pieces (more than 65,536 rows, see parse.ParseAllStream); what
// such a document holds at its peak is about streamedBytesPerDocByte per
// byte of it (its text, a line of each row, a key of each row and each
// cell) and some tens of MB of pieces and Parquet pages.
const (
	streamedSize            = 6 << 20
	streamedBytesPerDocByte = 2
)

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
// 120 MB (20× its size did let the heap reach 1.35 GB). The limit goes
// back when run returns.
func roomFor(size int64) {
	if size < hugeDocSize || !ownLimit.Load() {
		return
	}
	need := bytesPerDocByte * size
	if size > streamedSize {
		need = max(bytesPerDocByte*streamedSize, streamedBytesPerDocByte*size)
	}
	want := memLimit + need
	limitMu.Lock()
	defer limitMu.Unlock()
	if debug.SetMemoryLimit(-1) < want {
		debug.SetMemoryLimit(want)
	}
}
