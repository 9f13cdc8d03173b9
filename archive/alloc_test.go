package archive

import (
	"bytes"
	"reflect"
	"testing"
	"unsafe"

	"speedmatrix/schema"
)

// TestPoolAllocatorSameBytes writes the same files with buffers that are
// all new (as arrow-go's GoAllocator gives them) and with the pool
// poisoning every buffer it frees and every one it hands out again:
// byte for byte the same files, so no column writer reads a buffer after
// freeing it or counts on a reused one being zero, over several writes
// (so that buffers do get reused), in row groups and streamed.
func TestPoolAllocatorSameBytes(t *testing.T) {
	runs, seed := seedRows(t)
	var many []schema.Measurement
	for len(many) < 3000 {
		many = append(many, seed...)
	}
	edge := []schema.Measurement{filled[schema.Measurement](t, 1), {}, filled[schema.Measurement](t, 2),
		{RunID: "z", Printed: []schema.KV{}, Extra: []schema.Metric{}}}
	tests := []struct {
		name   string
		rows   any
		groups int
		stream bool
	}{
		{"seed measurements", seed, 8192, false},
		{"seed measurements, a group per run", seed, 10, false},
		{"seed runs", runs, 8192, false},
		{"edge rows", edge, 8192, false},
		{"samples", []schema.Sample{filled[schema.Sample](t, 1), {}, filled[schema.Sample](t, 2)}, 8192, false},
		{"streamed in pieces", many, 8192, true},
	}
	write := func(t *testing.T, tb *table, rows reflect.Value, stream bool) []byte {
		if stream {
			b := streamFile(t, tb, rows, 1000)
			return b.Bytes()
		}
		var b bytes.Buffer
		if err := tb.write(&b, rows); err != nil {
			t.Fatal(err)
		}
		return b.Bytes()
	}
	defer writeAlloc.reset(0, false)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			smallGroups(t, tt.groups)
			rows := reflect.ValueOf(tt.rows)
			tb := tableOfRows(rows)
			writeAlloc.reset(0, true)
			want := write(t, tb, rows, tt.stream)
			writeAlloc.reset(0xA5, false)
			for i := range 3 {
				if got := write(t, tb, rows, tt.stream); !bytes.Equal(got, want) {
					t.Fatalf("write %d with reused, poisoned buffers: %d bytes differ from the %d of new buffers", i, len(got), len(want))
				}
			}
			if writeAlloc.held == 0 {
				t.Fatal("no buffer was freed to the pool: nothing was tested")
			}
		})
	}
}

// TestPoolAllocator checks the allocator's own rules: sizes, alignment,
// zeroed buffers, contents kept when growing, and what it keeps.
func TestPoolAllocator(t *testing.T) {
	a := &poolAllocator{}
	for _, size := range []int{0, 1, 63, 64, 65, 1000, 1 << 20, 1<<24 + 1} {
		b := a.Allocate(size)
		if len(b) != size || uintptr(unsafeData(b))%alignment != 0 {
			t.Fatalf("Allocate(%d): len %d, cap %d, address %#x", size, len(b), cap(b), unsafeData(b))
		}
		for i := range b {
			b[i] = 7
		}
		a.Free(b)
	}
	// The sizes up to 64 reuse one buffer; 16 MB + 1 is not kept.
	if a.held != 64+128+1024+1<<20 {
		t.Fatalf("held %d bytes, want one buffer of each class used up to 16 MB", a.held)
	}
	b := a.Allocate(1000) // the freed 1,024-byte buffer, zeroed again
	if cap(b) != 1024 || bytes.Count(b, []byte{0}) != 1000 {
		t.Fatalf("reused buffer: cap %d, %d zero bytes of %d", cap(b), bytes.Count(b, []byte{0}), len(b))
	}
	copy(b, "kept")
	g := a.Reallocate(5000, b)
	if len(g) != 5000 || string(g[:4]) != "kept" {
		t.Fatalf("Reallocate: len %d, starts %q", len(g), g[:4])
	}
	held := a.held
	a.Free(make([]byte, 100)) // not a size class: not kept
	a.Free(make([]byte, 96))
	if a.held != held {
		t.Fatalf("kept %d bytes of buffers of no size class", a.held-held)
	}
}

// unsafeData returns the address of b's first byte.
func unsafeData(b []byte) uintptr { return uintptr(unsafe.Pointer(unsafe.SliceData(b))) }

// reset empties a's pool and sets its test switches.
func (a *poolAllocator) reset(poison byte, noReuse bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.free, a.held, a.poison, a.noReuse = [maxClass + 1][][]byte{}, 0, poison, noReuse
}
