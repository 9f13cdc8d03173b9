package pqwrite

import (
	"bytes"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"unsafe"

	"speedmatrix/schema"
)

// TestDictLeafIndex checks the indices a dictLeaf gives values: the
// order of first appearance, whether a value follows the one it
// followed last time (the quick path) or not.
func TestDictLeafIndex(t *testing.T) {
	tests := []struct {
		name   string
		in     []string
		want   []int32
		values []string
	}{
		{"repeats", []string{"r", "r", "r"}, []int32{0, 0, 0}, []string{"r"}},
		{"a cycle", []string{"k1", "k2", "k3", "k1", "k2", "k3"}, []int32{0, 1, 2, 0, 1, 2}, []string{"k1", "k2", "k3"}},
		{"the cycle broken", []string{"a", "b", "a", "c", "a", "b", "b"}, []int32{0, 1, 0, 2, 0, 1, 1}, []string{"a", "b", "c"}},
		{"empty strings", []string{"", "x", "", ""}, []int32{0, 1, 0, 0}, []string{"", "x"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := &dictLeaf[string]{last: -1}
			for round := 0; round < 2; round++ { // again after reset
				var got []int32
				for _, s := range tt.in {
					i, _ := d.index(strings.Clone(s))
					got = append(got, i)
				}
				if !slices.Equal(got, tt.want) || !slices.Equal(d.values, tt.values) {
					t.Fatalf("round %d: indices %v, values %q; want %v, %q", round, got, d.values, tt.want, tt.values)
				}
				d.reset()
			}
		})
	}
}

// TestStringDictSameStrings checks stringDict.appendIndices, which takes
// a value that is the very string the dictionary holds (same bytes in
// memory) without comparing it, against dictLeaf.index, which compares
// every value: the same indices, values and sizes, whether the strings
// share memory, are copies, or start at the same byte with another
// length.
func TestStringDictSameStrings(t *testing.T) {
	text := "keyvalue"
	key, kv, value := text[:3], text[:4], text[3:]
	tests := []struct {
		name string
		in   []string
	}{
		{"shared", []string{key, value, key, value, key, value}},
		{"copies", []string{key, strings.Clone(value), strings.Clone(key), value, strings.Clone(key), strings.Clone(value)}},
		{"a longer string at the same byte", []string{key, value, kv, value, key, value, kv, kv}},
		{"empty strings", []string{"", key, "", text[:0], text[8:], key, ""}},
		{"a cycle of shared and copied", []string{key, value, text, key, strings.Clone(value), text, strings.Clone(key), value, text}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := newStringDict().(*stringDict)
			ref := &dictLeaf[string]{last: -1}
			for round := 0; round < 2; round++ { // again after reset
				raw := make([]rawBytes, len(tt.in))
				var want []int32
				wantRaw, wantBytes := 0, 0
				for i, s := range tt.in {
					raw[i] = *(*rawBytes)(unsafe.Pointer(&s))
					j, added := ref.index(s)
					want = append(want, j)
					wantRaw += 4 + len(s)
					if added {
						wantBytes += 4 + len(s)
					}
				}
				// In two calls, as two pieces of a group.
				got := d.appendIndices(nil, raw[:len(raw)/2])
				got = d.appendIndices(got, raw[len(raw)/2:])
				if !slices.Equal(got, want) || !slices.Equal(d.values, ref.values) {
					t.Fatalf("round %d: indices %v, values %q; want %v, %q", round, got, d.values, want, ref.values)
				}
				if d.rawBytes() != wantRaw || d.pageBytes() != wantBytes || d.n != ref.n {
					t.Fatalf("round %d: raw %d, page %d, n %d; want %d, %d, %d", round, d.rawBytes(), d.pageBytes(), d.n, wantRaw, wantBytes, ref.n)
				}
				d.reset()
				ref.reset()
			}
		})
	}
}

// TestDictLeafLargeDictionary writes a group whose distinct strings
// outgrow the dictionary page limit (1 MB): the column falls back to
// plain pages after the first batch as pqarrow's does (compareFiles
// checks the page encodings of string columns), and the rows read back
// the same.
func TestDictLeafLargeDictionary(t *testing.T) {
	var rows []schema.Measurement
	for i := 0; i < 3000; i++ { // 3,000 distinct reasons of 1 KB: 3 MB
		rows = append(rows, schema.Measurement{RunID: "r", Phase: schema.PhaseDecode,
			StatusReason: strings.Repeat(fmt.Sprintf("%04d", i), 250), Printed: []schema.KV{{Key: "k", Value: "v"}}})
	}
	sameAsArrow(t, rows)
}

// sameAsArrow writes rows as one file and compares it with pqarrow's.
func sameAsArrow(t *testing.T, rows []schema.Measurement) {
	t.Helper()
	tb := tableByName(TableMeasurements)
	var got bytes.Buffer
	if err := tb.write(&got, reflect.ValueOf(rows)); err != nil {
		t.Fatal(err)
	}
	compareFiles(t, got.Bytes(), refFile(t, tb, reflect.ValueOf(rows), false))
}
