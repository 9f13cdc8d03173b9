//go:build !linux

package ingest

// adviseHugeHeap does nothing where huge pages are not advised by
// madvise (see hugeheap_linux.go).
func adviseHugeHeap() (beg, end uintptr, err error) { return 0, 0, nil }
