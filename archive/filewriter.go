package archive

import (
	"bufio"
	"fmt"
	"io"
	"reflect"
	"sync"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
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
// without a dictionary. Only run_id has column statistics.
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
// and writer properties, made once.
type fileMeta struct {
	once  sync.Once
	props *parquet.WriterProperties
	// appenders are the table's columns' appenders (record.go), by column.
	appenders []appender
	// builders holds the *array.RecordBuilder of closed file writers for
	// the next.
	builders sync.Pool
	err      error
}

// meta returns the writer properties of t's files: writerProps, with the
// double leaves of the Parquet schema pqarrow writes for t's Arrow schema
// without a dictionary.
func (t *table) meta() (*parquet.WriterProperties, error) {
	m := &t.file
	m.once.Do(func() {
		sc, err := pqarrow.ToParquet(t.schema, writerProps(nil), pqarrow.NewArrowWriterProperties(pqarrow.WithStoreSchema()))
		if err != nil {
			m.err = fmt.Errorf("archive: %s: schema: %w", t.name, err)
			return
		}
		m.props = writerProps(plainDoubles(sc))
		for _, c := range t.cols {
			m.appenders = append(m.appenders, appenderOf(c.codec))
		}
	})
	return m.props, m.err
}

// fileWriter writes one Parquet file of a table: the rows go into Arrow
// records (record.go), which arrow-go's pqarrow writes (pages, levels,
// dictionaries, statistics, footer).
//
// Note: the archive wrote the pages, levels, dictionaries and footer
// itself before (pages.go, rle.go, dictleaf.go, gather.go, leaves.go,
// footer.go, thrift.go: ~2,000 lines, much of them unsafe), for a whole
// ingest only 1.0x cheaper than arrow-go's writers
// (docs/performance-encoders.md), below the 1.25x a hand-written encoder
// must buy.
type fileWriter struct {
	t  *table
	pw *pqarrow.FileWriter
	rb *array.RecordBuilder
	// n is the rows in rb; id, when set, the run id they are written
	// with (see span).
	n      int
	closed bool
}

// newFileWriter starts a Parquet file of table t on w.
func (t *table) newFileWriter(w io.Writer) (*fileWriter, error) {
	props, err := t.meta()
	if err != nil {
		return nil, err
	}
	pw, err := pqarrow.NewFileWriter(t.schema, w, props, pqarrow.NewArrowWriterProperties(pqarrow.WithStoreSchema()))
	if err != nil {
		return nil, fmt.Errorf("archive: write %s: %w", t.name, err)
	}
	fw := &fileWriter{t: t, pw: pw}
	if rb, ok := t.file.builders.Get().(*array.RecordBuilder); ok {
		fw.rb = rb
	} else {
		fw.rb = array.NewRecordBuilder(mem, t.schema)
	}
	return fw, nil
}

// Close finishes the file: the footer (the file's metadata, its length,
// the magic bytes).
func (fw *fileWriter) Close() error {
	if fw.closed {
		return nil
	}
	fw.closed = true
	if fw.n > 0 { // rows a failed write left
		fw.rb.NewRecordBatch().Release()
		fw.n = 0
	}
	fw.t.file.builders.Put(fw.rb)
	fw.rb = nil
	if err := fw.pw.Close(); err != nil {
		return fmt.Errorf("archive: write %s: %w", fw.t.name, err)
	}
	return nil
}

// recordRows is the most rows put into one Arrow record: a row group
// is written as records of recordRows rows into one buffered group.
//
// Note: a record's rows are gathered while they are in the CPU cache,
// and a record of a whole group (8,192 rows of measurements, 3.7 MB)
// would be held twice, as rows and as arrays.
var recordRows = 4096 // a variable so tests can write groups in pieces

// span is a run of consecutive rows: rows[from:to] of a slice of the
// table's type. When id is set, the rows are written as carrying that
// run id, whatever their own run_id field holds.
type span struct {
	rows     reflect.Value
	from, to int
	id       string
}

// writeSpans appends the rows of spans to the buffered row group being
// written, recordRows rows at a time.
func (fw *fileWriter) writeSpans(spans []span) error {
	app := fw.t.file.appenders
	for _, sp := range spans {
		for i := sp.from; i < sp.to; i++ {
			row := sp.rows.Index(i)
			for j, c := range fw.t.cols {
				if j == fw.t.runIDCol && sp.id != "" {
					fw.rb.Field(j).(*array.StringBuilder).Append(sp.id)
					continue
				}
				app[j](fw.rb.Field(j), row.Field(c.index))
			}
			if fw.n++; fw.n == recordRows {
				if err := fw.flushRecord(); err != nil {
					return err
				}
			}
		}
	}
	return fw.flushRecord()
}

// flushRecord writes the rows in the record builder to the buffered row
// group.
func (fw *fileWriter) flushRecord() error {
	if fw.n == 0 {
		return nil
	}
	rec := fw.rb.NewRecordBatch()
	defer rec.Release()
	fw.n = 0
	if err := fw.pw.WriteBuffered(rec); err != nil {
		return fmt.Errorf("archive: write %s: %w", fw.t.name, err)
	}
	return nil
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

// writeGroup writes the rows of spans as one row group.
func (fw *fileWriter) writeGroup(spans []span) error {
	if err := fw.pw.NewBufferedRowGroupChecked(); err != nil {
		return fmt.Errorf("archive: write %s: %w", fw.t.name, err)
	}
	return fw.writeSpans(spans)
}

// writeGroups appends rows to the file as row groups (see write). A file
// can take several calls: each adds its own groups.
func (fw *fileWriter) writeGroups(rows reflect.Value) error {
	if rows.Len() == 0 {
		return nil
	}
	for _, g := range fw.t.groups(rows) {
		if err := fw.writeGroup([]span{{rows, g[0], g[1], ""}}); err != nil {
			return err
		}
	}
	return nil
}

// writeRuns appends the rows of runs (each a slice of t.typ) as row
// groups, each run's rows carrying its id: the groups writeGroups makes
// of the runs' rows in one slice, without copying them into one.
func (fw *fileWriter) writeRuns(runs []runRows) error {
	var group []span
	n := 0
	for _, r := range runs {
		k := r.rows.Len()
		if k == 0 {
			continue
		}
		if n > 0 && n+k > groupRows {
			if err := fw.writeGroup(group); err != nil {
				return err
			}
			group, n = group[:0], 0
		}
		group, n = append(group, span{r.rows, 0, k, r.id}), n+k
	}
	if n > 0 {
		return fw.writeGroup(group)
	}
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
	if err := fw.pw.NewBufferedRowGroupChecked(); err != nil {
		return fmt.Errorf("archive: write %s: %w", fw.t.name, err)
	}
	return fill(func(rows reflect.Value) error {
		return fw.writeSpans([]span{{rows, 0, rows.Len(), ""}})
	})
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
	id := func(i int) string { return rows.Index(i).Field(t.runID).String() }
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
