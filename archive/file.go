package archive

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"reflect"
	"runtime"
	"strings"
	"sync"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/metadata"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
)

var mem = memory.DefaultAllocator

// WriteFile writes rows as one Parquet file of their table to w: the
// table's Arrow schema, zstd compression, the Arrow schema stored in the
// file, and the schema_version and column-doc pointer as key/value
// metadata. The rows form one row group.
func WriteFile[T Row](w io.Writer, rows []T) error {
	return tableOf[T]().write(w, reflect.ValueOf(rows))
}

// readRows reads the rows of a file of T's table whose run_id keep
// accepts (every row when keep is nil). Rows left out are not decoded.
func readRows[T Row](path string, keep func(runID string) bool) ([]T, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []T
	err = tableOf[T]().read(f, path, keep, func(n int) reflect.Value {
		base := len(out)
		out = append(out, make([]T, n)...)
		return reflect.ValueOf(out[base:])
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// ReadFile reads every row of a Parquet file of T's table. Columns are
// matched by name: a column the file lacks leaves the field zero (nil for
// pointers), a column the struct lacks is ignored, so files written before
// a column was added stay readable.
func ReadFile[T Row](path string) ([]T, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []T
	err = tableOf[T]().read(f, path, nil, func(n int) reflect.Value {
		base := len(out)
		out = append(out, make([]T, n)...)
		return reflect.ValueOf(out[base:])
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// writerProps are the Parquet properties of every file: zstd, and
// dictionary encoding (the default), which suits the repeated run ids,
// phases and labels.
func writerProps() *parquet.WriterProperties {
	return parquet.NewWriterProperties(parquet.WithCompression(compress.Codecs.Zstd))
}

// record builds one Arrow record of rows (a slice of t.typ). Columns are
// independent builders, so they are filled by one goroutine per CPU.
func (t *table) record(rows reflect.Value) arrow.RecordBatch {
	rb := array.NewRecordBuilder(mem, t.schema)
	defer rb.Release()
	n := rows.Len()
	if n == 0 {
		return rb.NewRecordBatch()
	}
	// rows stays referenced until the record is built, so its backing
	// array cannot move or be freed under base.
	base := rows.UnsafePointer()
	next := make(chan int, len(t.cols))
	for j := range t.cols {
		next <- j
	}
	close(next)
	var wg sync.WaitGroup
	for w := 0; w < min(runtime.GOMAXPROCS(0), len(t.cols)); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range next {
				c := t.cols[j]
				fb := rb.Field(j)
				fb.Reserve(n)
				c.codec.fill(fb, unsafe.Add(base, t.typ.Field(c.index).Offset), t.typ.Size(), n)
			}
		}()
	}
	wg.Wait()
	return rb.NewRecordBatch()
}

// writeOnly hides a writer's Close: pqarrow's FileWriter.Close closes
// an io.Closer it writes to, and the caller owns w.
type writeOnly struct{ io.Writer }

// write writes rows as one Parquet file with one row group.
func (t *table) write(w io.Writer, rows reflect.Value) error {
	bw := bufio.NewWriterSize(w, 1<<16)
	fw, err := pqarrow.NewFileWriter(t.schema, writeOnly{bw}, writerProps(),
		pqarrow.NewArrowWriterProperties(pqarrow.WithStoreSchema()))
	if err != nil {
		return fmt.Errorf("archive: %s: %w", t.name, err)
	}
	if rows.Len() > 0 {
		rec := t.record(rows)
		err = fw.Write(rec)
		rec.Release()
		if err != nil {
			fw.Close()
			return fmt.Errorf("archive: write %s: %w", t.name, err)
		}
	}
	if err := fw.Close(); err != nil {
		return fmt.Errorf("archive: write %s: %w", t.name, err)
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("archive: write %s: %w", t.name, err)
	}
	return nil
}

// openParquet opens a Parquet file for reading and checks that it belongs
// to table t (when it says which table it holds).
func (t *table) openParquet(r parquet.ReaderAtSeeker, name string) (*pqarrow.FileReader, error) {
	pf, err := file.NewParquetReader(r)
	if err != nil {
		return nil, fmt.Errorf("archive: %s: %w", name, err)
	}
	if v := pf.MetaData().KeyValueMetadata().FindValue(MetaTable); v != nil && *v != t.name {
		return nil, fmt.Errorf("archive: %s: holds table %q, not %q", name, *v, t.name)
	}
	ignoreStoredSchema(pf.MetaData().KeyValueMetadata())
	// Note: readers reserve BatchSize rows per column up front, so a
	// batch no larger than the file keeps small files cheap to read.
	batch := min(max(pf.NumRows(), 1), 1<<16)
	fr, err := pqarrow.NewFileReader(pf, pqarrow.ArrowReadProperties{BatchSize: batch}, mem)
	if err != nil {
		return nil, fmt.Errorf("archive: %s: %w", name, err)
	}
	return fr, nil
}

// read decodes every row of a Parquet file of table t. grow is called once
// per record batch with its row count and returns a slice of t.typ of that
// length to fill.
func (t *table) read(r parquet.ReaderAtSeeker, name string, keep func(string) bool, grow func(n int) reflect.Value) (err error) {
	defer recoverCorrupt(name, &err)
	fr, err := t.openParquet(r, name)
	if err != nil {
		return err
	}
	if fr.ParquetReader().NumRows() == 0 {
		return nil
	}
	sc, err := fr.Schema()
	if err != nil {
		return fmt.Errorf("archive: %s: %w", name, err)
	}
	type bound struct {
		pos   int
		index int
		get   getter
	}
	var bs []bound
	for _, c := range t.cols {
		idx := sc.FieldIndices(c.name)
		if len(idx) == 0 {
			continue
		}
		get, err := c.codec.bind(sc.Field(idx[0]).Type)
		if err != nil {
			return fmt.Errorf("archive: %s: column %s: %w", name, c.name, err)
		}
		bs = append(bs, bound{idx[0], c.index, get})
	}
	rr, err := fr.GetRecordReader(context.Background(), nil, nil)
	if err != nil {
		return fmt.Errorf("archive: %s: %w", name, err)
	}
	defer rr.Release()
	idPos := -1
	if keep != nil {
		idx := sc.FieldIndices("run_id")
		if len(idx) == 0 || sc.Field(idx[0]).Type.ID() != arrow.STRING {
			return fmt.Errorf("archive: %s: no utf8 run_id column to filter on", name)
		}
		idPos = idx[0]
	}
	var sel []int // rows of the batch to decode
	for rr.Next() {
		rec := rr.RecordBatch()
		n := int(rec.NumRows())
		sel = sel[:0]
		if idPos >= 0 {
			ids := rec.Column(idPos).(*array.String)
			for i := 0; i < n; i++ {
				if keep(ids.Value(i)) {
					sel = append(sel, i)
				}
			}
		} else {
			for i := 0; i < n; i++ {
				sel = append(sel, i)
			}
		}
		if len(sel) == 0 {
			continue
		}
		rows := grow(len(sel))
		for _, b := range bs {
			a := rec.Column(b.pos)
			nulls := a.NullN() > 0
			for k, i := range sel {
				if nulls && a.IsNull(i) {
					continue
				}
				b.get(a, i, rows.Index(k).Field(b.index))
			}
		}
	}
	if err := rr.Err(); err != nil && err != io.EOF {
		return fmt.Errorf("archive: %s: %w", name, err)
	}
	return nil
}

// readRunIDs reads only the run_id column of a runs file: the dedupe
// check needs nothing else, and skipping the other columns keeps it fast.
func readRunIDs(path string) (_ []string, err error) {
	defer recoverCorrupt(path, &err)
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fr, err := tableByName(TableRuns).openParquet(f, path)
	if err != nil {
		return nil, err
	}
	leaf := fr.ParquetReader().MetaData().Schema.ColumnIndexByName("run_id")
	if leaf < 0 {
		return nil, fmt.Errorf("archive: %s: no run_id column", path)
	}
	rr, err := fr.GetRecordReader(context.Background(), []int{leaf}, nil)
	if err != nil {
		return nil, fmt.Errorf("archive: %s: %w", path, err)
	}
	defer rr.Release()
	ids := make([]string, 0, fr.ParquetReader().NumRows())
	for rr.Next() {
		s, ok := rr.RecordBatch().Column(0).(*array.String)
		if !ok {
			return nil, fmt.Errorf("archive: %s: run_id is %s, want utf8", path, rr.RecordBatch().Column(0).DataType())
		}
		for i := 0; i < s.Len(); i++ {
			ids = append(ids, strings.Clone(s.Value(i)))
		}
	}
	if err := rr.Err(); err != nil && err != io.EOF {
		return nil, fmt.Errorf("archive: %s: %w", path, err)
	}
	return ids, nil
}

// recoverCorrupt turns a panic inside the Parquet decoder into an error:
// a damaged file (a disk error, a copy cut short) must fail the read, not
// the process.
func recoverCorrupt(name string, err *error) {
	if p := recover(); p != nil {
		*err = fmt.Errorf("archive: %s: corrupt Parquet file: %v", name, p)
	}
}

// ignoreStoredSchema hides the Arrow schema stored in a file's key/value
// metadata from pqarrow, which then derives the Arrow types from the
// Parquet schema alone (the same types for every column we write).
//
// Note: arrow-go decodes the stored schema (a flatbuffer) without bounds
// checks: a damaged one makes it allocate without limit and kill the
// process (found by FuzzReadFile). We match columns by name and check
// their types ourselves, so the stored schema adds nothing to our reads;
// other readers (pyarrow) still find it in the file.
func ignoreStoredSchema(kv metadata.KeyValueMetadata) {
	for _, e := range kv {
		if e != nil && e.Key == "ARROW:schema" {
			e.Key = "ARROW:schema (not read by speedmatrix)"
		}
	}
}
