package schema

import "testing"

func TestPointers(t *testing.T) {
	a, b := F64(1.5), F64(1.5)
	if a == b || *a != 1.5 {
		t.Fatal("F64 must return a fresh pointer to its value")
	}
	if *I64(-7) != -7 || *I32(42) != 42 {
		t.Fatal("I64/I32 lost their value")
	}
}
