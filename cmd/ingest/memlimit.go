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
// document) and saved no memory: its rows are all live until written.
// The limit goes back when run returns.
func roomFor(size int64) {
	if size < hugeDocSize || !ownLimit.Load() {
		return
	}
	want := memLimit + bytesPerDocByte*size
	limitMu.Lock()
	defer limitMu.Unlock()
	if debug.SetMemoryLimit(-1) < want {
		debug.SetMemoryLimit(want)
	}
}
