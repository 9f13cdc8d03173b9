package archive

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"iter"
	"os"
	"reflect"
	"slices"
	"strings"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"speedmatrix/schema"
)

// Reading a data file for a streaming merge (see mergeTable): its row
// groups cut into sorted segments, and each segment read back a record
// batch at a time as the rows of one run after another.

// mergeBatchRows is how many rows a segment's reader decodes at a time.
//
// Note: each open segment holds one batch of decoded rows, the record
// batch and its row group's column chunks; small batches keep the many
// segments of a merge cheap, and 1,024 rows are still far above the
// per-batch overhead.
var mergeBatchRows = 1024

// segment is a run of consecutive row groups of one data file whose
// rows ascend by run_id, each run's rows together, so that it can be
// read as a stream in run_id order; sorted is false for a single group
// whose rows do not (files of older versions), which is read whole and
// sorted in memory.
type segment struct {
	path   string
	stem   string
	groups []int
	sorted bool
}

// segments cuts the data file path (of stem) into segments, from its
// run_id column alone.
func segments(path, stem string) (out []segment, err error) {
	defer recoverCorrupt(path, &err)
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	pf, err := file.NewParquetReader(f)
	if err != nil {
		return nil, fmt.Errorf("archive: %s: %w", path, err)
	}
	ignoreStoredSchema(pf.MetaData().KeyValueMetadata())
	fr, err := pqarrow.NewFileReader(pf, pqarrow.ArrowReadProperties{BatchSize: int64(8 * mergeBatchRows)}, mem)
	if err != nil {
		return nil, fmt.Errorf("archive: %s: %w", path, err)
	}
	leaf := pf.MetaData().Schema.ColumnIndexByName("run_id")
	if leaf < 0 {
		return nil, fmt.Errorf("archive: %s: no run_id column", path)
	}
	last := "" // the last id of the segment being cut
	for g := 0; g < pf.NumRowGroups(); g++ {
		if pf.MetaData().RowGroup(g).NumRows() == 0 {
			continue
		}
		first, prev, sorted := "", "", true
		rr, err := fr.GetRecordReader(context.Background(), []int{leaf}, []int{g})
		if err != nil {
			return nil, fmt.Errorf("archive: %s: %w", path, err)
		}
		n := 0
		for rr.Next() {
			s, ok := rr.RecordBatch().Column(0).(*array.String)
			if !ok {
				rr.Release()
				return nil, fmt.Errorf("archive: %s: run_id is not utf8", path)
			}
			for i := 0; i < s.Len(); i++ {
				id := s.Value(i)
				if n == 0 {
					first = strings.Clone(id)
				} else if id < prev {
					sorted = false
				}
				if n == 0 || id != prev {
					prev = strings.Clone(id)
				}
				n++
			}
		}
		err = rr.Err()
		rr.Release()
		if err != nil && err != io.EOF {
			return nil, fmt.Errorf("archive: %s: %w", path, err)
		}
		switch {
		case !sorted:
			out = append(out, segment{path, stem, []int{g}, false})
			last = ""
			continue
		case len(out) > 0 && out[len(out)-1].sorted && last != "" && first > last:
			out[len(out)-1].groups = append(out[len(out)-1].groups, g)
		default:
			out = append(out, segment{path, stem, []int{g}, true})
		}
		last = prev
	}
	return out, nil
}

// runRows are the rows of one run, as a segment yields them.
type runRows[T Row] struct {
	id   string
	rows []T
}

// eachRun yields the rows of seg one run at a time, in run_id order (the
// rows of a run in file order). The rows yielded are the caller's.
func eachRun[T Row](seg segment, errp *error) iter.Seq[runRows[T]] {
	return func(yield func(runRows[T]) bool) {
		t := tableOf[T]()
		if !seg.sorted {
			var all []T
			if err := t.readGroups(seg.path, seg.groups, func(rows reflect.Value) error {
				all = append(all, rows.Interface().([]T)...)
				return nil
			}); err != nil {
				*errp = err
				return
			}
			slices.SortStableFunc(all, func(x, y T) int { return cmp.Compare(rowID(&x), rowID(&y)) })
			for len(all) > 0 {
				id := rowID(&all[0])
				k := 1
				for k < len(all) && rowID(&all[k]) == id {
					k++
				}
				if !yield(runRows[T]{id, slices.Clone(all[:k])}) {
					return
				}
				all = all[k:]
			}
			return
		}
		var cur runRows[T]
		stopped := false
		err := t.readGroups(seg.path, seg.groups, func(v reflect.Value) error {
			rows := v.Interface().([]T)
			for i := range rows {
				id := rowID(&rows[i])
				if len(cur.rows) > 0 && id != cur.id {
					if !yield(cur) {
						stopped = true
						return errStop
					}
					cur = runRows[T]{}
				}
				if len(cur.rows) == 0 {
					cur.id = id
				}
				cur.rows = append(cur.rows, rows[i])
			}
			return nil
		})
		if stopped {
			return
		}
		if err != nil {
			*errp = err
			return
		}
		if len(cur.rows) > 0 {
			yield(cur)
		}
	}
}

// errStop ends a read whose consumer stopped.
var errStop = fmt.Errorf("archive: stopped")

// rowID returns the run id of a row.
func rowID[T Row](r *T) string {
	switch r := any(r).(type) {
	case *schema.Measurement:
		return r.RunID
	case *schema.Sample:
		return r.RunID
	case *schema.Run:
		return r.RunID
	}
	return ""
}

// readGroups decodes the rows of the row groups groups of the file path
// of table t, every column, handing them to f mergeBatchRows at a time
// (a fresh slice of t's type each time, in file order).
func (t *table) readGroups(path string, groups []int, f func(rows reflect.Value) error) (err error) {
	defer recoverCorrupt(path, &err)
	fh, err := os.Open(path)
	if err != nil {
		return err
	}
	defer fh.Close()
	pf, err := file.NewParquetReader(fh)
	if err != nil {
		return fmt.Errorf("archive: %s: %w", path, err)
	}
	if v := pf.MetaData().KeyValueMetadata().FindValue(MetaTable); v != nil && *v != t.name {
		return fmt.Errorf("archive: %s: holds table %q, not %q", path, *v, t.name)
	}
	ignoreStoredSchema(pf.MetaData().KeyValueMetadata())
	fr, err := pqarrow.NewFileReader(pf, pqarrow.ArrowReadProperties{BatchSize: int64(mergeBatchRows)}, mem)
	if err != nil {
		return fmt.Errorf("archive: %s: %w", path, err)
	}
	rr, err := fr.GetRecordReader(context.Background(), nil, groups)
	if err != nil {
		return fmt.Errorf("archive: %s: %w", path, err)
	}
	defer rr.Release()
	sc := rr.Schema()
	bs, err := t.bind(sc, path)
	if err != nil {
		return err
	}
	for rr.Next() {
		rec := rr.RecordBatch()
		n := int(rec.NumRows())
		if n == 0 {
			continue
		}
		rows := reflect.MakeSlice(reflect.SliceOf(t.typ), n, n)
		for _, b := range bs {
			a := rec.Column(b.pos)
			nulls := a.NullN() > 0
			for i := 0; i < n; i++ {
				if nulls && a.IsNull(i) {
					continue
				}
				b.get(a, i, rows.Index(i).Field(b.index))
			}
		}
		if err := f(rows); err != nil {
			return err
		}
	}
	if err := rr.Err(); err != nil && err != io.EOF {
		return fmt.Errorf("archive: %s: %w", path, err)
	}
	return nil
}
