package archive

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"reflect"
	"runtime"
	"slices"
	"sync"
	"unsafe"

	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/metadata"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	pqschema "github.com/apache/arrow-go/v18/parquet/schema"
)

// WriteFile writes rows as one Parquet file of their table to w: the
// table's Arrow schema, zstd compression, the Arrow schema stored in the
// file, and the schema_version and column-doc pointer as key/value
// metadata. The rows form row groups as a batch of Append does (see
// table.write).
func WriteFile[T Row](w io.Writer, rows []T) error {
	return tableOf[T]().write(w, reflect.ValueOf(rows))
}

// writerProps are the Parquet properties of every file: zstd, and
// dictionary encoding (the default), which suits the repeated run ids,
// phases and labels. plain names leaf columns (dotted paths) written
// without a dictionary. Only run_id has column statistics. The archive's
// page writer (pages.go) reads them as arrow-go's writer would.
//
// Note: the printed texts of measurements (a dozen a row) are written
// without a dictionary (mostly distinct figures): 10% less CPU to append
// 1,000 documents, and zstd makes the file no larger (159 vs 161 KB).
//
// Note: min/max statistics serve readers that skip row groups, and a
// group holds ~180 runs in run_id order, so only run_id's bounds can rule
// a group out (the archive's reads by id; DuckDB's filters on run_id);
// those of the ~60 other columns span about every value in every group.
// Without them the measurements of 1,000 seed documents write 5% less
// CPU and their file is 9% smaller (78.6 vs 86.6 KB), the runs 33% less
// (8.7 vs 13.0 cpu-µs/doc; 17.3 vs 22.4 KB): BenchmarkWriteSeed1000, four
// interleaved runs each, a loaded machine.
func writerProps(plain []string, more ...parquet.WriterProperty) *parquet.WriterProperties {
	opts := []parquet.WriterProperty{parquet.WithCompression(compress.Codecs.Zstd),
		parquet.WithStats(false), parquet.WithStatsFor("run_id", true),
		parquet.WithDictionaryFor("printed.list.element.value", false)}
	for _, p := range plain {
		opts = append(opts, parquet.WithDictionaryFor(p, false))
	}
	return parquet.NewWriterProperties(append(opts, more...)...)
}

// plainDoubles lists the double (float64) leaf columns of a Parquet
// schema, which the archive writes without a dictionary.
//
// Note: measured figures (tok/s, latencies) are mostly distinct, so a
// dictionary of them is hashing for nothing; plain doubles under zstd
// made the measurements file of 1,000 seed documents smaller (87 vs 109
// KB: the repeated figures of these near-identical documents compress
// better as bytes than as dictionary indices) and its write ~5% cheaper
// (BenchmarkWriteSeed1000).
func plainDoubles(sc *pqschema.Schema) []string {
	var out []string
	for i := 0; i < sc.NumColumns(); i++ {
		if c := sc.Column(i); c.PhysicalType() == parquet.Types.Double {
			out = append(out, c.Path())
		}
	}
	return out
}

// fileMeta is what every file of a table starts from: its Parquet schema
// and key/value metadata, made once.
type fileMeta struct {
	once  sync.Once
	root  *pqschema.GroupNode
	sc    *pqschema.Schema
	kv    metadata.KeyValueMetadata
	props *parquet.WriterProperties
	dict  []bool // by leaf: a leaf written with a dictionary (dictleaf.go)
	// bufs holds the *writerBufs of closed file writers for the next.
	bufs sync.Pool
	err  error
}

// meta returns the Parquet schema, key/value metadata and writer
// properties of t's files: the schema and metadata pqarrow writes for t's
// Arrow schema with the schema stored.
//
// Note: they are taken from an empty file pqarrow writes, so that the
// stored Arrow schema (ARROW:schema, which pyarrow reads for the exact
// Arrow types) is pqarrow's own, byte for byte, whatever its version
// normalizes.
func (t *table) meta() (*pqschema.GroupNode, metadata.KeyValueMetadata, *parquet.WriterProperties, error) {
	m := &t.file
	m.once.Do(func() {
		var buf bytes.Buffer
		fw, err := pqarrow.NewFileWriter(t.schema, &buf, writerProps(nil),
			pqarrow.NewArrowWriterProperties(pqarrow.WithStoreSchema()))
		if err == nil {
			err = fw.Close()
		}
		var pf *file.Reader
		if err == nil {
			pf, err = file.NewParquetReader(bytes.NewReader(buf.Bytes()))
		}
		if err != nil {
			m.err = fmt.Errorf("archive: %s: schema: %w", t.name, err)
			return
		}
		m.kv = pf.MetaData().KeyValueMetadata()
		m.root = pf.MetaData().Schema.Root()
		sc := pf.MetaData().Schema
		m.sc = sc
		m.props = writerProps(plainDoubles(sc))
		m.dict = make([]bool, len(t.leaves))
		for i := range t.leaves {
			m.dict[i] = t.leaves[i].sc.newDict != nil && m.props.DictionaryEnabledFor(sc.Column(i).Path())
		}
	})
	return m.root, slices.Clone(m.kv), m.props, m.err
}

// fileWriter writes one Parquet file of a table, its row groups straight
// from Go rows (leaves.go) into pages of its own (pages.go), the footer
// described by arrow-go's metadata builders.
//
// Note: the page writer (pages.go, rle.go, dictleaf.go, gather.go,
// leaves.go, this file) stays because it pays for itself end to end:
// with arrow-go's pqarrow writing Arrow records of the same rows (same
// properties), a whole ingest of 1,000 documents cost 1.73x the CPU
// (456 -> 790 CPU-µs/doc, medians of 5 interleaved rounds) and 1.5x the
// peak RSS (102 -> 151 MB); docs/performance-encoders.md.
//
// Note: the footer is arrow-go's metadata builders', not our own Thrift
// compact footer (footer.go and a Thrift skipper until issue 21): ours
// bought nothing measurable in a whole ingest (1,000 documents 489 ->
// 456 CPU-µs/doc without it, inside the noise; docs/performance-encoders.md).
type fileWriter struct {
	t      *table
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

// newFileWriter starts a Parquet file of table t on w.
func (t *table) newFileWriter(w io.Writer) (*fileWriter, error) {
	_, kv, props, err := t.meta()
	if err != nil {
		return nil, err
	}
	if !littleEndian {
		return nil, fmt.Errorf("archive: %s: a big-endian host: PLAIN values are written as they lie in memory", t.name)
	}
	sc := t.file.sc
	fw := &fileWriter{t: t, w: w, meta: metadata.NewFileMetadataBuilder(sc, props, kv)}
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
func (fw *fileWriter) write(b []byte) error {
	n, err := fw.w.Write(b)
	fw.off += int64(n)
	if err != nil {
		return fmt.Errorf("archive: write %s: %w", fw.t.name, err)
	}
	return nil
}

// closeGroup writes the column chunks of the row group whose rows
// writeSpans took and describes the group in the footer.
func (fw *fileWriter) closeGroup() error {
	rg := fw.meta.AppendRowGroup()
	for _, c := range fw.chunks {
		n, err := c.finish(&fw.s, fw.w, fw.off, rg.NextColumnChunk())
		fw.off += n
		if err != nil {
			return fmt.Errorf("archive: write %s: %w", fw.t.name, err)
		}
	}
	rg.SetNumRows(fw.rows)
	fw.rows = 0
	// arrow-go's file writer numbers its groups as int16 too.
	if err := rg.Finish(0, int16(fw.groups)); err != nil {
		return fmt.Errorf("archive: write %s: %w", fw.t.name, err)
	}
	fw.groups++
	return nil
}

// Close finishes the file: the footer (the file's metadata, its length,
// the magic bytes). The writer's buffers go to the table's next file.
func (fw *fileWriter) Close() error {
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
		return fmt.Errorf("archive: write %s: %w", fw.t.name, err)
	}
	var buf bytes.Buffer
	if _, err := md.WriteTo(&buf, nil); err != nil {
		return fmt.Errorf("archive: write %s: %w", fw.t.name, err)
	}
	buf.Write(binary.LittleEndian.AppendUint32(nil, uint32(buf.Len())))
	buf.Write(parquetMagic)
	return fw.write(buf.Bytes())
}

// recordRows is the most rows handed to a column writer at once.
//
// Note: a row group is written a piece of recordRows rows at a time, each
// leaf column of the piece in turn (into a buffered row group, whose
// columns take writes in any order), so that the piece's rows stay in
// the CPU cache while its ~55 leaves are read out of them: one pass over
// all rows per leaf read each measurement row from memory 55 times, and
// the piece of 4,096 rows (1.8 MB) did not stay in cache either. 512
// rows of measurements are ~230 KB.
var recordRows = 512 // a variable so tests can write groups in pieces

// writeSpans gathers the leaves of the rows of spans into the pages of
// the group being written, recordRows rows at a time.
func (fw *fileWriter) writeSpans(spans []span) error {
	stride := fw.t.typ.Size()
	piece, rows := fw.piece[:0], 0
	write := func() error {
		for i := range fw.t.leaves {
			l := &fw.t.leaves[i]
			if err := l.sc.write(l, fw.chunks[i], piece, stride, &fw.s); err != nil {
				return fmt.Errorf("archive: write %s: %w", fw.t.name, err)
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
			k := min(sp.n-from, recordRows-rows)
			piece = append(piece, span{unsafe.Add(sp.base, uintptr(from)*stride), k, sp.id})
			from, rows = from+k, rows+k
			if rows == recordRows {
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
func (fw *fileWriter) spanOf(rows reflect.Value, from, to int) span {
	if from >= to {
		return span{} // no pointer past the rows (see writeSpans)
	}
	return span{unsafe.Add(rows.UnsafePointer(), uintptr(from)*fw.t.typ.Size()), to - from, ""}
}

// write writes rows as one Parquet file. Rows are cut into row groups of
// about groupRows rows at run boundaries, so that the run_id statistics of
// a group (min and max, written by default) bound the runs it holds;
// callers sort rows by run_id to make those bounds tight.
func (t *table) write(w io.Writer, rows reflect.Value) error {
	bw := bufio.NewWriterSize(w, 1<<16)
	fw, err := t.newFileWriter(bw)
	if err != nil {
		return err
	}
	if err := fw.writeGroups(rows); err != nil {
		fw.Close()
		return err
	}
	if err := fw.Close(); err != nil {
		return err
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("archive: write %s: %w", t.name, err)
	}
	return nil
}

// writeGroups appends rows to the file as row groups (see write). A file
// can take several calls: each adds its own groups.
func (fw *fileWriter) writeGroups(rows reflect.Value) error {
	if rows.Len() == 0 {
		return nil
	}
	for _, g := range fw.t.groups(rows) {
		err := fw.writeSpans([]span{fw.spanOf(rows, g[0], g[1])})
		if err == nil {
			err = fw.closeGroup()
		}
		if err != nil {
			return fmt.Errorf("archive: write %s: %w", fw.t.name, err)
		}
	}
	runtime.KeepAlive(rows)
	return nil
}

// writeRuns appends the rows of runs (each a slice of t.typ) as row
// groups, each run's rows carrying its id: the groups writeGroups makes
// of the runs' rows in one slice, without copying them into one.
func (fw *fileWriter) writeRuns(runs []runRows) error {
	var group []span
	n := 0
	flush := func() error {
		err := fw.writeSpans(group)
		if err == nil {
			err = fw.closeGroup()
		}
		if err != nil {
			return fmt.Errorf("archive: write %s: %w", fw.t.name, err)
		}
		group, n = group[:0], 0
		return nil
	}
	for _, r := range runs {
		k := r.rows.Len()
		if k == 0 {
			continue
		}
		if n > 0 && n+k > groupRows {
			if err := flush(); err != nil {
				return err
			}
		}
		sp := fw.spanOf(r.rows, 0, k)
		sp.id = r.id
		group, n = append(group, sp), n+k
	}
	if n > 0 {
		return flush()
	}
	runtime.KeepAlive(runs)
	return nil
}

// runRows are the rows of one run (a slice of a table's type) and the id
// they are written with.
type runRows struct {
	rows reflect.Value
	id   string
}

// writeStream writes the rows fill calls put with as one buffered row
// group: the group a single write of them all would make (one run's rows
// stay in one group), without holding them all.
func (fw *fileWriter) writeStream(fill func(put func(reflect.Value) error) error) error {
	err := fill(func(rows reflect.Value) error {
		err := fw.writeSpans([]span{fw.spanOf(rows, 0, rows.Len())})
		runtime.KeepAlive(rows)
		return err
	})
	if err != nil {
		return err
	}
	if err := fw.closeGroup(); err != nil {
		return fmt.Errorf("archive: write %s: %w", fw.t.name, err)
	}
	return nil
}

// groupRows is the row count a row group of a data file grows to before
// the next run starts a new one (a single larger run keeps one group).
//
// Note: readers of a few runs skip every row group whose run_id min/max
// statistics cannot hold them, so smaller groups mean less decoded per
// Load by id; each group costs footer metadata and some compression, and
// 8,192 rows (about 180 runs of a 46-cell matrix) keeps both small: on
// 10,000 runs of 46 rows, Load of 2 runs reads 2 of 57 groups.
var groupRows = 8192 // a variable so tests can write many groups of few runs

// groups returns the [start, end) row ranges of the row groups of rows:
// consecutive rows of one run stay in one group, and a group is closed
// before a run that would take it past groupRows.
func (t *table) groups(rows reflect.Value) [][2]int {
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
		if i-start > groupRows && runStart > start {
			out = append(out, [2]int{start, runStart})
			start = runStart
		}
		runStart = i
	}
	return append(out, [2]int{start, n})
}
