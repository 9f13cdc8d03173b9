package pqwrite

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"reflect"
	"runtime"
	"unsafe"

	"github.com/apache/arrow-go/v18/parquet/metadata"
)

// Layout is how a file's rows are cut into row groups and pieces: the
// caller's choice (the archive's reads by run id decide the groups).
type Layout struct {
	// GroupRows is the row count a row group grows to before the next
	// run starts a new one (a single larger run keeps one group).
	GroupRows int
	// PieceRows is the most rows gathered into pages at a time; 0 is
	// DefaultPieceRows.
	PieceRows int
}

// Writer writes one Parquet file of a table, its row groups straight
// from Go rows (leaves.go) into pages of its own (pages.go), the footer
// described by arrow-go's metadata builders. Its rows are written where
// they lie in memory: a slice handed to a Write method must not change
// until the method returns.
//
// Note: the footer is arrow-go's metadata builders', not our own Thrift
// compact footer (footer.go and a Thrift skipper until issue 21): ours
// bought nothing measurable in a whole ingest (1,000 documents 489 ->
// 456 CPU-µs/doc without it, inside the noise; docs/performance-encoders.md).
type Writer struct {
	t      *Table
	lay    Layout
	w      io.Writer
	off    int64 // the bytes written to w
	meta   *metadata.FileMetaDataBuilder
	rows   int  // the rows of the group being written
	groups int  // the groups closed
	closed bool // Close was called
	*writerBufs
}

// writerBufs are the buffers of a file writer, which the next file of
// the table takes over once it is closed (fileMeta.bufs).
//
// Note: a chunk's buffers grow to a group's pages (and its dictionary's
// map to the group's values) by appending; made anew for every file, they
// were half of the 17.8 MB a write of 1,000 seed documents' measurements
// allocated (BenchmarkWriteSeed1000, -test.memprofile).
type writerBufs struct {
	chunks []*chunk // by leaf
	s      scratch
	piece  []span // the spans of the piece being written
}

// parquetMagic starts and ends every Parquet file.
var parquetMagic = []byte("PAR1")

// NewWriter starts a Parquet file of table t on w, its rows cut as lay
// says. Close finishes it.
func (t *Table) NewWriter(w io.Writer, lay Layout) (*Writer, error) {
	kv, props, err := t.meta()
	if err != nil {
		return nil, err
	}
	if !littleEndian {
		return nil, fmt.Errorf("%s: a big-endian host: PLAIN values are written as they lie in memory", t.name)
	}
	if lay.PieceRows <= 0 {
		lay.PieceRows = DefaultPieceRows
	}
	sc := t.file.sc
	fw := &Writer{t: t, lay: lay, w: w, meta: metadata.NewFileMetadataBuilder(sc, props, kv)}
	if b, ok := t.file.bufs.Get().(*writerBufs); ok {
		fw.writerBufs = b
	} else {
		fw.writerBufs = &writerBufs{chunks: make([]*chunk, len(t.leaves))}
		for i, d := range t.file.dict {
			var dict dictionary
			if d {
				dict = t.leaves[i].sc.newDict()
			}
			fw.chunks[i] = newChunk(sc.Column(i), props, dict)
		}
	}
	if err := fw.write(parquetMagic); err != nil {
		return nil, err
	}
	return fw, nil
}

// write writes b to the file.
func (fw *Writer) write(b []byte) error {
	n, err := fw.w.Write(b)
	fw.off += int64(n)
	if err != nil {
		return fmt.Errorf("write %s: %w", fw.t.name, err)
	}
	return nil
}

// closeGroup writes the column chunks of the row group whose rows
// writeSpans took and describes the group in the footer.
func (fw *Writer) closeGroup() error {
	rg := fw.meta.AppendRowGroup()
	for _, c := range fw.chunks {
		n, err := c.finish(&fw.s, fw.w, fw.off, rg.NextColumnChunk())
		fw.off += n
		if err != nil {
			return fmt.Errorf("write %s: %w", fw.t.name, err)
		}
	}
	rg.SetNumRows(fw.rows)
	fw.rows = 0
	// arrow-go's file writer numbers its groups as int16 too.
	if err := rg.Finish(0, int16(fw.groups)); err != nil {
		return fmt.Errorf("write %s: %w", fw.t.name, err)
	}
	fw.groups++
	return nil
}

// Close finishes the file: the footer (the file's metadata, its length,
// the magic bytes). The writer's buffers go to the table's next file.
func (fw *Writer) Close() error {
	if fw.closed {
		return nil
	}
	fw.closed = true
	defer func() {
		for _, c := range fw.chunks {
			c.reset() // a group a failed write left open
		}
		fw.t.file.bufs.Put(fw.writerBufs)
		fw.writerBufs = nil
	}()
	md, err := fw.meta.Finish()
	if err != nil {
		return fmt.Errorf("write %s: %w", fw.t.name, err)
	}
	var buf bytes.Buffer
	if _, err := md.WriteTo(&buf, nil); err != nil {
		return fmt.Errorf("write %s: %w", fw.t.name, err)
	}
	buf.Write(binary.LittleEndian.AppendUint32(nil, uint32(buf.Len())))
	buf.Write(parquetMagic)
	return fw.write(buf.Bytes())
}

// DefaultPieceRows is the most rows gathered into pages at once, unless
// a Layout says otherwise.
//
// Note: a row group is written a piece of DefaultPieceRows rows at a time, each
// leaf column of the piece in turn (into a buffered row group, whose
// columns take writes in any order), so that the piece's rows stay in
// the CPU cache while its ~55 leaves are read out of them: one pass over
// all rows per leaf read each measurement row from memory 55 times, and
// the piece of 4,096 rows (1.8 MB) did not stay in cache either. 512
// rows of measurements are ~230 KB.
const DefaultPieceRows = 512

// writeSpans gathers the leaves of the rows of spans into the pages of
// the group being written, lay.PieceRows rows at a time.
func (fw *Writer) writeSpans(spans []span) error {
	stride := fw.t.typ.Size()
	piece, rows := fw.piece[:0], 0
	write := func() error {
		for i := range fw.t.leaves {
			l := &fw.t.leaves[i]
			if err := l.sc.write(l, fw.chunks[i], piece, stride, &fw.s); err != nil {
				return fmt.Errorf("write %s: %w", fw.t.name, err)
			}
		}
		fw.rows += rows
		piece, rows = piece[:0], 0
		return nil
	}
	for _, sp := range spans {
		// Note: base+from×stride only for from < n: a pointer one past
		// the rows (the end of a piece that fills its slice) is a bad
		// pointer to the collector when it finds it on the stack.
		for from := 0; from < sp.n; {
			k := min(sp.n-from, fw.lay.PieceRows-rows)
			piece = append(piece, span{unsafe.Add(sp.base, uintptr(from)*stride), k, sp.id})
			from, rows = from+k, rows+k
			if rows == fw.lay.PieceRows {
				if err := write(); err != nil {
					return err
				}
			}
		}
	}
	var err error
	if rows > 0 {
		err = write()
	}
	clear(piece[:cap(piece)]) // keeps no rows alive
	fw.piece = piece[:0]
	return err
}

// spanOf returns rows[from:to] (a slice of t.typ) as a span.
func (fw *Writer) spanOf(rows reflect.Value, from, to int) span {
	if from >= to {
		return span{} // no pointer past the rows (see writeSpans)
	}
	return span{unsafe.Add(rows.UnsafePointer(), uintptr(from)*fw.t.typ.Size()), to - from, ""}
}

// check reports rows that are not a slice of the table's type: the
// writer reads them through pointers at the type's offsets.
func (t *Table) check(rows reflect.Value) error {
	if rows.Kind() != reflect.Slice || rows.Type().Elem() != t.typ {
		return fmt.Errorf("write %s: rows of %s, want []%s", t.name, rows.Type(), t.typ)
	}
	return nil
}

// Write writes rows (a slice of the table's type) as one Parquet file
// to w, cut into row groups as WriteGroups cuts them.
func (t *Table) Write(w io.Writer, rows reflect.Value, lay Layout) error {
	bw := bufio.NewWriterSize(w, 1<<16)
	fw, err := t.NewWriter(bw, lay)
	if err != nil {
		return err
	}
	if err := fw.WriteGroups(rows); err != nil {
		fw.Close()
		return err
	}
	if err := fw.Close(); err != nil {
		return err
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("write %s: %w", t.name, err)
	}
	return nil
}

// WriteGroups appends rows (a slice of the table's type) to the file as
// row groups of about Layout.GroupRows rows, cut at run boundaries (see
// groups), so that the run_id statistics of a group (min and max) bound
// the runs it holds; callers sort rows by run_id to make those bounds
// tight. A file can take several calls: each adds its own groups.
func (fw *Writer) WriteGroups(rows reflect.Value) error {
	if err := fw.t.check(rows); err != nil {
		return err
	}
	if rows.Len() == 0 {
		return nil
	}
	for _, g := range fw.t.groups(rows, fw.lay.GroupRows) {
		err := fw.writeSpans([]span{fw.spanOf(rows, g[0], g[1])})
		if err == nil {
			err = fw.closeGroup()
		}
		if err != nil {
			return fmt.Errorf("write %s: %w", fw.t.name, err)
		}
	}
	runtime.KeepAlive(rows)
	return nil
}

// Run is the rows of one run (a slice of a table's type) and the run id
// they are written with, whatever their own run_id field holds.
type Run struct {
	Rows reflect.Value
	ID   string
}

// WriteRuns appends the rows of runs as row groups, each run's rows
// carrying its id: the groups WriteGroups makes of the runs' rows in one
// slice, without copying them into one.
func (fw *Writer) WriteRuns(runs []Run) error {
	for _, r := range runs {
		if err := fw.t.check(r.Rows); err != nil {
			return err
		}
	}
	var group []span
	n := 0
	flush := func() error {
		err := fw.writeSpans(group)
		if err == nil {
			err = fw.closeGroup()
		}
		if err != nil {
			return fmt.Errorf("write %s: %w", fw.t.name, err)
		}
		group, n = group[:0], 0
		return nil
	}
	for _, r := range runs {
		k := r.Rows.Len()
		if k == 0 {
			continue
		}
		if n > 0 && n+k > fw.lay.GroupRows {
			if err := flush(); err != nil {
				return err
			}
		}
		sp := fw.spanOf(r.Rows, 0, k)
		sp.id = r.ID
		group, n = append(group, sp), n+k
	}
	if n > 0 {
		return flush()
	}
	runtime.KeepAlive(runs)
	return nil
}

// WriteStream writes the rows fill calls put with (each a slice of the
// table's type) as one buffered row group: the group a single write of
// them all would make (one run's rows stay in one group), without
// holding them all.
func (fw *Writer) WriteStream(fill func(put func(reflect.Value) error) error) error {
	err := fill(func(rows reflect.Value) error {
		if err := fw.t.check(rows); err != nil {
			return err
		}
		err := fw.writeSpans([]span{fw.spanOf(rows, 0, rows.Len())})
		runtime.KeepAlive(rows)
		return err
	})
	if err != nil {
		return err
	}
	if err := fw.closeGroup(); err != nil {
		return fmt.Errorf("write %s: %w", fw.t.name, err)
	}
	return nil
}

// groups returns the [start, end) row ranges of the row groups of rows
// (a slice of the table's type): consecutive rows of one run stay in one
// group, and a group is closed before a run that would take it past
// limit rows.
func (t *Table) groups(rows reflect.Value, limit int) [][2]int {
	n := rows.Len()
	if t.runID < 0 || n == 0 {
		return [][2]int{{0, n}}
	}
	base, stride, off := rows.UnsafePointer(), t.typ.Size(), t.typ.Field(t.runID).Offset
	id := func(i int) string { return *(*string)(unsafe.Add(base, uintptr(i)*stride+off)) }
	var out [][2]int
	start, runStart := 0, 0
	for i := 1; i <= n; i++ {
		if i < n && id(i) == id(i-1) {
			continue
		}
		// rows[runStart:i] is one run.
		if i-start > limit && runStart > start {
			out = append(out, [2]int{start, runStart})
			start = runStart
		}
		runStart = i
	}
	return append(out, [2]int{start, n})
}
