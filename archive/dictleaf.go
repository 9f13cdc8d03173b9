package archive

import (
	"context"
	"fmt"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
)

// dictLeaf gathers a dictionary-encoded string leaf of one row group as
// its distinct values (in order of first appearance) and the index of
// each value, and writes them at the group's end as an Arrow dictionary
// array: the column writer takes the dictionary once and the indices as
// they are, instead of hashing every value into its own memo table.
//
// Note: arrow-go's dictionary encoder hashed each of the ~800,000 string
// values of 1,000 seed documents (run ids, phases, labels, a dozen
// printed keys a row) with xxh3 and compared it through a BinaryBuilder:
// a quarter of the CPU time of the write (BenchmarkWriteSeed1000). The
// values of a column mostly follow the same value as the last time (a
// run id over a run's rows, the printed keys in the same order in every
// row), so a value is first checked against the one that followed its
// predecessor last time, one string comparison, and only a miss looks in
// a Go map. The pages are the ones arrow-go writes from the values
// (dictionary in order of first appearance, same indices), and
// TestSameRowsAsArrow holds the file to pqarrow's.
//
// Note: a group's values are held until its end, so a group of more than
// spillValues values or a dictionary past the page size limit (a run of
// 540,000 rows streamed into one group; distinct texts) goes to the
// column writer as values from then on (spill), as every group did
// before: gathering the whole of IngestHugeDoc's run took its peak from
// 240 to 321 MB and its CPU from 4.9 to 6.6 s. The column writer's own
// dictionary then falls back to plain pages past the limit as it always
// did, which the indices path does not.
type dictLeaf struct {
	ids    map[string]int32
	values []string // distinct, in order of first appearance
	next   []int32  // next[i]: the index that followed value i last time, or -1
	last   int32    // the index of the previous value, or -1
	bytes  int      // the dictionary page's plain size: 4+len of each value
	idx    []int32  // the index of each value of the group
	def    []int16  // the group's definition and repetition levels
	rep    []int16
	conv   func(unsafe.Pointer) int32 // index of the string at a pointer
	limit  int                        // the dictionary page size limit
	dense  bool                       // the group's values go to the column writer as they come
}

// spillValues is the most values (or levels) of a group a dictLeaf
// holds: 1 MB of indices, 64 printed texts a row in a group of 4,096.
var spillValues = 1 << 18 // a variable so tests can spill small groups

// newDictLeaf returns an empty dictLeaf for a column whose dictionary
// page size limit is limit.
func newDictLeaf(limit int) *dictLeaf {
	d := &dictLeaf{ids: map[string]int32{}, last: -1, limit: limit}
	d.conv = func(p unsafe.Pointer) int32 { return d.index(*(*string)(p)) }
	return d
}

// index returns the dictionary index of s, adding s if new.
func (d *dictLeaf) index(s string) int32 {
	if d.last >= 0 {
		if n := d.next[d.last]; n >= 0 && d.values[n] == s {
			d.last = n
			return n
		}
	}
	i, ok := d.ids[s]
	if !ok {
		i = int32(len(d.values))
		d.ids[s] = i
		d.values = append(d.values, s)
		d.next = append(d.next, -1)
		d.bytes += 4 + len(s)
	}
	if d.last >= 0 {
		d.next[d.last] = i
	}
	d.last = i
	return i
}

// add gathers leaf l of the rows of spans (stride bytes apart) into the
// group's indices and levels, or writes them to the column writer col
// returns once the group has gone dense (see spill).
func (d *dictLeaf) add(l *leaf, spans []span, stride uintptr, s *scratch, col func() (file.ColumnChunkWriter, error)) error {
	if d.dense {
		cw, err := col()
		if err != nil {
			return err
		}
		return l.sc.write(l, cw, spans, stride, s)
	}
	idx, def, rep := gather(l, spans, stride, s, d.idx, d.conv)
	d.idx = idx
	if def != nil {
		d.def = append(d.def, def...)
	}
	if rep != nil {
		d.rep = append(d.rep, rep...)
	}
	if len(d.idx) < spillValues && len(d.def) < spillValues && d.bytes < d.limit {
		return nil
	}
	cw, err := col()
	if err != nil {
		return err
	}
	return d.spill(cw)
}

// spill writes the values gathered so far to cw as values and has the
// rest of the group follow them there.
func (d *dictLeaf) spill(cw file.ColumnChunkWriter) error {
	err := d.writeValues(cw)
	d.reset()
	d.dense = true
	return err
}

// writeValues writes the gathered values to cw as values (materialized
// from the dictionary, one copy of each distinct value), with their
// levels.
func (d *dictLeaf) writeValues(cw file.ColumnChunkWriter) error {
	distinct := make([]parquet.ByteArray, len(d.values))
	for i, v := range d.values {
		distinct[i] = parquet.ByteArray(v)
		if v == "" {
			distinct[i] = noBytesAt[:0] // not nil: see noBytes
		}
	}
	vals := make([]parquet.ByteArray, len(d.idx))
	for k, i := range d.idx {
		vals[k] = distinct[i]
	}
	def, rep := d.levels()
	return writeBatch[parquet.ByteArray, *file.ByteArrayColumnChunkWriter](cw, vals, def, rep)
}

// levels returns the gathered definition and repetition levels, nil for
// a column without them.
func (d *dictLeaf) levels() (def, rep []int16) {
	if len(d.def) > 0 {
		def = d.def
	}
	if len(d.rep) > 0 {
		rep = d.rep
	}
	return def, rep
}

// reset empties d for the next row group, keeping its buffers.
func (d *dictLeaf) reset() {
	clear(d.ids)
	clear(d.values) // keeps no rows alive
	d.values, d.next, d.last, d.bytes = d.values[:0], d.next[:0], -1, 0
	d.idx, d.def, d.rep = d.idx[:0], d.def[:0], d.rep[:0]
	d.dense = false
}

// flush writes the group's values of the leaf to cw, a byte-array column
// writer with dictionary encoding, and empties d for the next group.
func (d *dictLeaf) flush(cw file.ColumnChunkWriter) error {
	defer d.reset()
	def, rep := d.levels()
	if d.dense || def == nil && len(d.idx) == 0 {
		return nil // written as they came
	}
	if cw.CurrentEncoder().Encoding() != parquet.Encodings.PlainDict {
		return d.writeValues(cw)
	}
	dict := d.dictionary()
	defer dict.Release()
	indices := array.NewInt32Data(array.NewData(arrow.PrimitiveTypes.Int32, len(d.idx),
		[]*memory.Buffer{nil, memory.NewBufferBytes(arrow.Int32Traits.CastToBytes(d.idx))}, nil, 0, 0))
	defer indices.Release()
	arr := array.NewDictionaryArray(&arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int32, ValueType: arrow.BinaryTypes.String},
		indices, dict)
	defer arr.Release()
	if err := pqarrow.WriteArrowToColumn(context.Background(), cw, arr, def, rep, false); err != nil {
		return fmt.Errorf("column %s: %w", cw.Descr().Path(), err)
	}
	return nil
}

// dictionary returns the distinct values as an Arrow string array whose
// bytes are copies (the column writer keeps the array).
func (d *dictLeaf) dictionary() *array.String {
	offsets := make([]int32, len(d.values)+1)
	data := make([]byte, 0, d.bytes-4*len(d.values))
	for i, v := range d.values {
		data = append(data, v...)
		offsets[i+1] = int32(len(data))
	}
	return array.NewStringData(array.NewData(arrow.BinaryTypes.String, len(d.values),
		[]*memory.Buffer{nil, memory.NewBufferBytes(arrow.Int32Traits.CastToBytes(offsets)), memory.NewBufferBytes(data)},
		nil, 0, 0))
}
