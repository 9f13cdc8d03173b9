//go:build linux

package hugeheap

import (
	"runtime"
	"runtime/debug"
	"sync"
	"syscall"
	"unsafe"
)

// hugePage is the size of a transparent huge page on the platforms Go
// runs Linux on with the default kernel configuration (x86-64, arm64
// with 4 KB base pages).
const hugePage = 2 << 20

// hugeHeapBytes is how much fresh heap Advise asks the kernel to
// back with huge pages: about the peak heap of a long ingest under the
// soft memory limit (ingest's 128 MB unless GOMEMLIMIT is set; an ingest of
// 1,000 seed-shaped documents peaks at ~95 MB RSS under 128 MB), at most
// maxHugeHeap.
func hugeHeapBytes() int {
	return int(min(debug.SetMemoryLimit(-1)/4*3, maxHugeHeap))
}

// maxHugeHeap bounds the advice where GOMEMLIMIT is large or off: the
// range costs address space only, but the runtime maps it at once.
const maxHugeHeap = 1 << 30

var (
	hugeHeapOnce sync.Once
	// hugeHeapSize, hugeHeapBeg, hugeHeapEnd and hugeHeapErr are what the
	// one advice allocated, covered and returned.
	hugeHeapSize             int
	hugeHeapBeg, hugeHeapEnd uintptr
	hugeHeapErr              error
)

// Advise asks, once per process, that the heap ingest is about
// to fill be backed by transparent huge pages where the kernel leaves
// that to the program (/sys/kernel/mm/transparent_hugepage/enabled set to
// "madvise", Debian's default). It allocates hugeHeapBytes(), which the
// runtime maps fresh, advises that range and drops it: the next
// collection frees it and later allocations reuse the same addresses,
// whose mapping keeps the advice. It returns the advised range [beg,
// end) and madvise's error; on failure nothing changes but the faults.
//
// Note: a long ingest touches each fresh heap page once, and a fault per
// 4 KB page (21,000 for 1,000 documents, ~50 µs per document) was 15% of
// its CPU. With this advice the faults fell to 3,100 and the CPU per
// document 334 → 306 µs (8 interleaved whole processes over 1,000
// documents), peak RSS unchanged (98 → 94 MB). The Go runtime itself
// stopped advising huge pages for its heap in Go 1.21.1 (memory held
// by sparse heaps); ingest's heap is dense, and bounded by the soft
// memory limit the advice is sized by.
//
// Note: measured again as a whole ingest with and without it
// (docs/performance-ingest-pieces.md: interleaved child processes on a
// loaded 2-core machine): 1.42× less CPU per document at 1,000 documents
// (606 → 428 µs, 8 rounds each; paired ratios 1.02–1.79, geometric mean
// 1.44) and 1.07× at 100,000 (248 → 233 µs, 5 rounds, within the noise),
// for 4–7 MB more peak RSS (77 → 83 MB; 146 → 151 MB). It buys more than
// the 1.25× a piece of our own must at 1,000 documents, so it stays.
func Advise() (beg, end uintptr, err error) {
	hugeHeapOnce.Do(func() {
		hugeHeapSize = hugeHeapBytes()
		b := make([]byte, hugeHeapSize)
		p := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
		beg := (p + hugePage - 1) &^ (hugePage - 1)
		end := (p + uintptr(len(b))) &^ (hugePage - 1)
		if beg < end {
			hugeHeapErr = syscall.Madvise(b[beg-p:end-p], syscall.MADV_HUGEPAGE)
			hugeHeapBeg, hugeHeapEnd = beg, end
		}
		runtime.KeepAlive(b)
	})
	return hugeHeapBeg, hugeHeapEnd, hugeHeapErr
}
