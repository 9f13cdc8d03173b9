package pqwrite

import (
	"bytes"
	"reflect"
	"testing"
	"time"
	"unsafe"
)

// ptrElem is a list element whose fields are pointers: no schema type
// has one, but leaves take them (leaf.childPtr).
type ptrElem struct {
	Name  *string    `json:"name"`
	Value *float64   `json:"value"`
	At    *time.Time `json:"at"`
	Count int32      `json:"count"`
}

// ptrRow is a row of every kind of leaf gather reads: required, optional
// (pointers) and lists, with pointer fields in the list's elements.
type ptrRow struct {
	RunID string     `json:"run_id"`
	When  time.Time  `json:"when"`
	Maybe *int64     `json:"maybe"`
	Seen  *time.Time `json:"seen"`
	Elems []ptrElem  `json:"elems"`
	Flag  bool       `json:"flag"`
}

// TestGatherPointerElements writes rows of ptrRow, whose list elements
// hold pointers set and nil, lists nil, empty and long, and compares the
// file with pqarrow's.
func TestGatherPointerElements(t *testing.T) {
	tb, err := newTable("pointers", reflect.TypeFor[ptrRow]())
	if err != nil {
		t.Fatal(err)
	}
	name, value, at, n := "n", 2.5, time.Date(2026, 12, 6, 1, 2, 3, 4000, time.UTC), int64(7)
	tests := []struct {
		name string
		rows []ptrRow
	}{
		{"nil pointers", []ptrRow{{RunID: "a", Elems: []ptrElem{{}, {}, {Count: 1}}}}},
		{"set pointers", []ptrRow{{RunID: "a", Maybe: &n, Seen: &at, Elems: []ptrElem{{&name, &value, &at, 3}}}}},
		{"mixed", []ptrRow{
			{RunID: "a", When: at, Elems: []ptrElem{{Name: &name}, {Value: &value}, {At: &at}}},
			{RunID: "a", Maybe: &n},
			{RunID: "b", Elems: []ptrElem{}, Flag: true},
			{RunID: "b", Seen: &at, Elems: []ptrElem{{&name, nil, &at, 1}, {nil, &value, nil, 2}}},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rows := reflect.ValueOf(tt.rows)
			var got bytes.Buffer
			if err := tb.write(&got, rows); err != nil {
				t.Fatal(err)
			}
			compareFiles(t, got.Bytes(), refFile(t, tb, rows, false))
		})
	}
}

// TestZeroValueSize checks that zeroValue, which a nil pointer's value
// is read from, is as large as every type the scalars gather.
func TestZeroValueSize(t *testing.T) {
	for _, size := range []uintptr{unsafe.Sizeof(int32(0)), unsafe.Sizeof(int64(0)), unsafe.Sizeof(float64(0)),
		unsafe.Sizeof(false), unsafe.Sizeof(rawBytes{}), unsafe.Sizeof(timeRaw{}), unsafe.Sizeof(time.Time{})} {
		if size > unsafe.Sizeof(zeroValue) {
			t.Errorf("a value of %d bytes, zeroValue has %d", size, unsafe.Sizeof(zeroValue))
		}
	}
}
