package archive

import (
	"bytes"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

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

// TestSmallPages streams 3,000 rows into one row group with pages cut
// at 300 levels: no chunk holds more than a page between pieces, and
// the file holds pqarrow's rows.
func TestSmallPages(t *testing.T) {
	pagesOf(t, 300)
	_, seed := seedRows(t)
	var rows []schema.Measurement
	for len(rows) < 3000 {
		rows = append(rows, seed...)
	}
	rows = rows[:3000]
	tb := tableByName(TableMeasurements)
	var got bytes.Buffer
	fw, err := tb.newFileWriter(&got)
	if err != nil {
		t.Fatal(err)
	}
	err = fw.writeStream(func(put func(reflect.Value) error) error {
		for from := 0; from < len(rows); from += 500 {
			if err := put(reflect.ValueOf(rows[from : from+500])); err != nil {
				return err
			}
			for i, c := range fw.chunks {
				if n := c.pageLevels(); n >= maxPageLevels {
					t.Fatalf("after row %d, leaf %d holds a page of %d levels", from+500, i, n)
				}
			}
		}
		return nil
	})
	if err == nil {
		err = fw.Close()
	}
	if err != nil {
		t.Fatal(err)
	}
	compareFiles(t, got.Bytes(), refFile(t, tb, reflect.ValueOf(rows), true))
	// Each piece of 500 rows holds more than 300 levels of every column:
	// a page each at least.
	pf := openBytes(t, got.Bytes())
	for c := 0; c < pf.MetaData().Schema.NumColumns(); c++ {
		pr, err := pf.RowGroup(0).GetColumnPageReader(c)
		if err != nil {
			t.Fatal(err)
		}
		pages := 0
		for pr.Next() {
			if pr.Page().Type().String() == "DATA_PAGE" {
				pages++
			}
		}
		if err := pr.Err(); err != nil {
			t.Fatal(err)
		}
		if pages < 6 {
			t.Errorf("column %s: %d data pages", pf.MetaData().Schema.Column(c).Path(), pages)
		}
	}
}

// TestOneLevelPages writes rows holding empty strings, lists and nulls
// (run_id among them, whose statistics count "" as its minimum) in pages
// of one level each: the file holds pqarrow's rows.
func TestOneLevelPages(t *testing.T) {
	pagesOf(t, 1)
	rows := []schema.Measurement{{}, {RunID: "a", Printed: []schema.KV{{}, {Key: "k"}}}, {}, {RunID: "z", Printed: []schema.KV{}}}
	sameAsArrow(t, rows)
}

// pagesOf cuts pages at n levels for the test.
func pagesOf(t *testing.T, n int) {
	prev := maxPageLevels
	maxPageLevels = n
	t.Cleanup(func() { maxPageLevels = prev })
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
