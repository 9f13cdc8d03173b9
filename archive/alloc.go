package archive

import (
	"math/bits"
	"sync"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow/memory"
)

// poolAllocator is the memory.Allocator of the archive's Parquet writers:
// arrow-go's Go allocator, except that a buffer the writers free (a
// column writer's dictionary indices, statistics, dictionary pages) is
// kept and handed out again instead of left to the collector.
//
// Note: arrow-go makes a column writer for every column of every row
// group, and each grows its buffers again from nothing (Reallocate
// allocating and copying at every doubling): the dictionary index
// buffers alone were 10 of the 56 MB a write of 1,000 seed documents'
// measurements allocates (BenchmarkWriteSeed1000, -benchmem), and
// collection is a quarter of that benchmark's CPU. Buffers come in
// powers of two from 64 bytes to maxPooled, 64-byte aligned as
// GoAllocator's are, and are zeroed when handed out again as a new one
// would be; at most poolBytes are kept (4 MB gave the same allocations).
// The measurements of 1,000 seed documents: 56.3 → 45.6 MB allocated,
// 121 → 112 CPU-µs/doc (`archive.test -test.run XXX -test.bench
// WriteSeed1000 -test.benchtime 15x -test.benchmem`, main's binary and
// this one in turn, 8 rounds, load 4–5); the same bytes written
// (TestPoolAllocatorSameBytes).
type poolAllocator struct {
	mu   sync.Mutex
	free [maxClass + 1][][]byte // by size class: freed buffers of 1<<class bytes
	held int                    // bytes in free
	// poison, when set (tests), fills a buffer with it when freed and a
	// reused one instead of zeroes: a write that read a buffer after
	// freeing it, or relied on a reused one being zero, would show it.
	poison byte
	// noReuse (tests) keeps nothing: every buffer is new, as
	// GoAllocator's are.
	noReuse bool
}

const (
	minClass  = 6  // 64 bytes
	maxClass  = 24 // 16 MB: a larger buffer is not kept
	poolBytes = 8 << 20
	alignment = 64
)

// writeAlloc is the allocator of every file writer's properties.
var writeAlloc = &poolAllocator{}

var _ memory.Allocator = writeAlloc

// class returns the size class of a buffer of size bytes.
func class(size int) int {
	if size <= 1<<minClass {
		return minClass
	}
	return bits.Len(uint(size - 1))
}

// Allocate implements memory.Allocator: a zeroed buffer of size bytes.
func (a *poolAllocator) Allocate(size int) []byte {
	c := class(size)
	if c > maxClass {
		return alloc(size, size)
	}
	a.mu.Lock()
	if n := len(a.free[c]); n > 0 {
		b := a.free[c][n-1]
		a.free[c][n-1] = nil
		a.free[c] = a.free[c][:n-1]
		a.held -= cap(b)
		a.mu.Unlock()
		b = b[:size]
		if a.poison != 0 {
			for i := range b {
				b[i] = a.poison
			}
		} else {
			clear(b)
		}
		return b
	}
	a.mu.Unlock()
	return alloc(size, 1<<c)
}

// alloc returns a new buffer of length size and capacity capacity,
// starting at a 64-byte boundary.
func alloc(size, capacity int) []byte {
	buf := make([]byte, capacity+alignment)
	shift := int(-uintptr(unsafe.Pointer(unsafe.SliceData(buf))) & (alignment - 1))
	return buf[shift : shift+size : shift+capacity]
}

// Reallocate implements memory.Allocator: b grown to size bytes, its
// contents kept; b is freed when it had to move.
func (a *poolAllocator) Reallocate(size int, b []byte) []byte {
	if cap(b) >= size {
		return b[:size]
	}
	n := a.Allocate(size)
	copy(n, b)
	a.Free(b)
	return n
}

// Free implements memory.Allocator: b is kept for reuse when it is a
// buffer of a size class (one this allocator made) and the pool has room.
func (a *poolAllocator) Free(b []byte) {
	c := cap(b)
	if a.noReuse || c < 1<<minClass || c > 1<<maxClass || c&(c-1) != 0 || uintptr(unsafe.Pointer(unsafe.SliceData(b)))&(alignment-1) != 0 {
		return
	}
	b = b[:c]
	if a.poison != 0 {
		for i := range b {
			b[i] = a.poison
		}
	}
	a.mu.Lock()
	if a.held+c <= poolBytes {
		a.free[bits.Len(uint(c))-1] = append(a.free[bits.Len(uint(c))-1], b)
		a.held += c
	}
	a.mu.Unlock()
}
