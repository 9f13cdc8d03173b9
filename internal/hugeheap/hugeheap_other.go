//go:build !linux

package hugeheap

// Advise does nothing where huge pages are not advised by
// madvise (see hugeheap_linux.go).
func Advise() (beg, end uintptr, err error) { return 0, 0, nil }
