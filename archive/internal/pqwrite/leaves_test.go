package pqwrite

import (
	"testing"
	"unsafe"
)

// TestAsValues: a buffer views as the values appended to it, and one
// without room for a value (last used for a smaller type) as nil, never
// as a pointer reaching past its allocation (go test -race's checkptr
// stops the process at such a conversion).
func TestAsValues(t *testing.T) {
	small := asBytes([]int32{7})[:0] // 4 bytes of capacity
	if got := asValues[float64](small); got != nil {
		t.Errorf("asValues[float64] of %d bytes of capacity = %v (cap %d), want nil", cap(small), got, cap(got))
	}
	if got := asValues[float64](nil); got != nil {
		t.Errorf("asValues[float64](nil) = %v, want nil", got)
	}
	held := asBytes([]float64{1.5, 2.5})
	got := asValues[float64](held)
	if len(got) != 2 || got[0] != 1.5 || got[1] != 2.5 {
		t.Errorf("asValues[float64] of two values = %v", got)
	}
	if unsafe.SliceData(got) != (*float64)(unsafe.Pointer(unsafe.SliceData(held))) {
		t.Error("asValues copied instead of viewing the bytes")
	}
	more := append(asValues[float64](small), 3.5) // the caller's append allocates
	if len(more) != 1 || more[0] != 3.5 {
		t.Errorf("append to the view of a small buffer = %v", more)
	}
}
