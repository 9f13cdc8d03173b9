package archive

import (
	"context"
	"fmt"
	"io"
	"os"
	"reflect"
	"slices"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/metadata"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
)

var mem = memory.DefaultAllocator

// readRows reads the rows of a file of T's table whose run_id keep
// holds (every row when keep is nil), with only the columns named in cols
// (every column when cols is nil; run_id is always read). Row groups whose
// run_id statistics rule out every kept id are skipped, and rows left out
// are not converted. The rows come in chunks (one slice per record batch
// or more), in file order.
func readRows[T Row](path string, keep *runSet, cols []string) ([][]T, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out sink[T]
	if err := tableOf[T]().read(f, path, keep, cols, &out); err != nil {
		return nil, damaged(path, err)
	}
	return out.chunks, nil
}

// rowSink receives the rows a read converts.
type rowSink interface {
	// reserve makes room for n rows: a read of every row of a file knows
	// their count, and growing a slice of wide rows by doubling costs as
	// much as the conversion.
	reserve(n int)
	// grow appends n zero rows and returns them to fill.
	grow(n int) reflect.Value
}

// sink is the rowSink of slices of T: a new chunk when the last one is
// full, so rows are never copied to grow.
type sink[T any] struct{ chunks [][]T }

func (s *sink[T]) reserve(n int) { s.chunks = append(s.chunks, make([]T, 0, n)) }

func (s *sink[T]) grow(n int) reflect.Value {
	k := len(s.chunks) - 1
	if k < 0 || cap(s.chunks[k])-len(s.chunks[k]) < n {
		s.chunks = append(s.chunks, make([]T, 0, n))
		k++
	}
	c := s.chunks[k]
	s.chunks[k] = c[:len(c)+n]
	return reflect.ValueOf(s.chunks[k][len(c):])
}

// rows returns the rows of every chunk as one slice.
func (s *sink[T]) rows() []T {
	if len(s.chunks) == 1 {
		return s.chunks[0]
	}
	return slices.Concat(s.chunks...)
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
	var out sink[T]
	if err := tableOf[T]().read(f, path, nil, nil, &out); err != nil {
		return nil, err
	}
	return out.rows(), nil
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

// read decodes the rows of a Parquet file of table t that keep holds
// (all when keep is nil), in the columns named in cols (all when nil).
// The rows go to out, one grow per record batch.
func (t *table) read(r parquet.ReaderAtSeeker, name string, keep *runSet, cols []string, out rowSink) (err error) {
	defer recoverCorrupt(name, &err)
	fr, err := t.openParquet(r, name)
	if err != nil {
		return err
	}
	pr := fr.ParquetReader()
	if pr.NumRows() == 0 {
		return nil
	}
	idLeaf := pr.MetaData().Schema.ColumnIndexByName("run_id")
	if keep != nil && idLeaf < 0 {
		return fmt.Errorf("archive: %s: no run_id column to filter on", name)
	}
	var groups []int // nil: every row group
	if keep != nil {
		groups = pruneGroups(pr, idLeaf, keep)
		if len(groups) == 0 {
			return nil
		}
	}
	var leaves []int // nil: every column
	if cols != nil {
		want := map[string]bool{"run_id": true}
		for _, c := range cols {
			want[c] = true
		}
		sch := pr.MetaData().Schema
		for i := 0; i < sch.NumColumns(); i++ {
			if path := sch.Column(i).ColumnPath(); len(path) > 0 && want[path[0]] {
				leaves = append(leaves, i)
			}
		}
	}
	if keep == nil {
		out.reserve(int(pr.NumRows()))
	}
	rr, err := fr.GetRecordReader(context.Background(), leaves, groups)
	if err != nil {
		return fmt.Errorf("archive: %s: %w", name, err)
	}
	defer rr.Release()
	sc := rr.Schema()
	bs, err := t.bind(sc, name)
	if err != nil {
		return err
	}
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
				if keep.has(ids.Value(i)) {
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
		rows := out.grow(len(sel))
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

// boundColumn is a column of a table found in a record's schema: its
// position there, the field of the row type it fills, and the getter
// that converts its values.
type boundColumn struct {
	pos   int
	index int
	get   getter
}

// bind finds t's columns in the schema sc of a file named name (a column
// the file lacks is left out) and binds each to its getter.
func (t *table) bind(sc *arrow.Schema, name string) ([]boundColumn, error) {
	var bs []boundColumn
	for _, c := range t.cols {
		idx := sc.FieldIndices(c.name)
		if len(idx) == 0 {
			continue
		}
		get, err := c.codec.bind(sc.Field(idx[0]).Type)
		if err != nil {
			return nil, fmt.Errorf("archive: %s: column %s: %w", name, c.name, err)
		}
		bs = append(bs, boundColumn{idx[0], c.index, get})
	}
	return bs, nil
}

// pruneGroups returns the row groups of pr whose run_id column (leaf idLeaf)
// may hold an id of keep: those without usable min/max statistics (files
// of older versions, other writers) and those whose range holds one.
func pruneGroups(pr *file.Reader, idLeaf int, keep *runSet) []int {
	md := pr.MetaData()
	groups := []int{}
	for g := 0; g < pr.NumRowGroups(); g++ {
		rg := md.RowGroup(g)
		if rg.NumRows() == 0 {
			continue
		}
		if lo, hi, ok := stringBounds(rg, idLeaf); ok && !keep.overlaps(lo, hi) {
			continue
		}
		groups = append(groups, g)
	}
	return groups
}

// stringBounds returns the min and max statistics of a byte-array column
// chunk, when the file has them and they are trustworthy (arrow-go drops
// those of writers known to sort byte arrays wrongly).
func stringBounds(rg *metadata.RowGroupMetaData, leaf int) (lo, hi string, ok bool) {
	cc, err := rg.ColumnChunk(leaf)
	if err != nil {
		return "", "", false
	}
	st, err := cc.Statistics()
	if err != nil || st == nil || !st.HasMinMax() {
		return "", "", false
	}
	bs, isBA := st.(*metadata.ByteArrayStatistics)
	if !isBA {
		return "", "", false
	}
	return string(bs.Min()), string(bs.Max()), true
}

// groupedFile reports whether every row group of a data file has run_id
// min/max statistics, the groups' ranges ascend without overlap, and a
// group larger than groupRows holds one run only.
func groupedFile(path string) (ok bool, err error) {
	defer recoverCorrupt(path, &err)
	pf, err := file.OpenParquetFile(path, false)
	if err != nil {
		return false, fmt.Errorf("archive: %s: %w", path, err)
	}
	defer pf.Close()
	md := pf.MetaData()
	leaf := md.Schema.ColumnIndexByName("run_id")
	if leaf < 0 {
		return false, nil
	}
	last := ""
	for g := 0; g < pf.NumRowGroups(); g++ {
		rg := md.RowGroup(g)
		lo, hi, ok := stringBounds(rg, leaf)
		if !ok || g > 0 && lo <= last || rg.NumRows() > int64(groupRows) && lo != hi {
			return false, nil
		}
		last = hi
	}
	return true, nil
}

// runSet is the set of run ids a read keeps.
type runSet struct {
	sorted []string // distinct, ascending
	set    map[string]bool
}

// newRunSet returns the set of ids.
func newRunSet(ids []string) *runSet {
	s := &runSet{set: make(map[string]bool, len(ids))}
	for _, id := range ids {
		if !s.set[id] {
			s.set[id] = true
			s.sorted = append(s.sorted, id)
		}
	}
	slices.Sort(s.sorted)
	return s
}

// has reports whether id is in the set.
func (s *runSet) has(id string) bool { return s.set[id] }

// overlaps reports whether an id of the set lies in [lo, hi].
func (s *runSet) overlaps(lo, hi string) bool {
	i, _ := slices.BinarySearch(s.sorted, lo)
	return i < len(s.sorted) && s.sorted[i] <= hi
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
