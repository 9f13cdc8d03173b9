package archive

import (
	"fmt"
	"io"
	"reflect"

	"speedmatrix/archive/internal/pqwrite"
)

// The archive's Parquet files are written by its own page writer
// (archive/internal/pqwrite) from the Go rows; this file holds the
// archive's choices for them: the columns written without a dictionary,
// and how rows are cut into row groups.

// WriteFile writes rows as one Parquet file of their table to w: the
// table's Arrow schema, zstd compression, the Arrow schema stored in the
// file, and the schema_version and column-doc pointer as key/value
// metadata. The rows form row groups as a batch of Append does (see
// table.write).
func WriteFile[T Row](w io.Writer, rows []T) error {
	return tableOf[T]().write(w, reflect.ValueOf(rows))
}

// plainLeaves are the leaf columns (besides the doubles, which the page
// writer writes without a dictionary whatever the table) written without
// a dictionary.
//
// Note: the printed texts of measurements (a dozen a row) are written
// without a dictionary (mostly distinct figures): 10% less CPU to append
// 1,000 documents, and zstd makes the file no larger (159 vs 161 KB).
var plainLeaves = []string{"printed.list.element.value"}

// groupRows is the row count a row group of a data file grows to before
// the next run starts a new one (a single larger run keeps one group).
//
// Note: readers of a few runs skip every row group whose run_id min/max
// statistics cannot hold them, so smaller groups mean less decoded per
// Load by id; each group costs footer metadata and some compression, and
// 8,192 rows (about 180 runs of a 46-cell matrix) keeps both small: on
// 10,000 runs of 46 rows, Load of 2 runs reads 2 of 57 groups.
var groupRows = 8192 // a variable so tests can write many groups of few runs

// recordRows is the most rows the page writer gathers at once
// (pqwrite.DefaultPieceRows, whose note says why).
var recordRows = pqwrite.DefaultPieceRows // a variable so tests can write groups in pieces

// fileLayout is how the archive's files cut their rows.
func fileLayout() pqwrite.Layout {
	return pqwrite.Layout{GroupRows: groupRows, PieceRows: recordRows}
}

// write writes rows (a slice of t.typ) as one Parquet file. Rows are cut
// into row groups of about groupRows rows at run boundaries, so that the
// run_id statistics of a group bound the runs it holds; callers sort rows
// by run_id to make those bounds tight.
func (t *table) write(w io.Writer, rows reflect.Value) error {
	if err := t.pq.Write(w, rows, fileLayout()); err != nil {
		return fmt.Errorf("archive: %w", err)
	}
	return nil
}

// newFileWriter starts a Parquet file of table t on w, cut as fileLayout says.
func (t *table) newFileWriter(w io.Writer) (*fileWriter, error) {
	fw, err := t.pq.NewWriter(w, fileLayout())
	if err != nil {
		return nil, fmt.Errorf("archive: %w", err)
	}
	return &fileWriter{fw}, nil
}

// fileWriter is a Parquet file of a table being written, its errors
// saying they are the archive's.
type fileWriter struct{ w *pqwrite.Writer }

func (fw *fileWriter) writeGroups(rows reflect.Value) error { return wrap(fw.w.WriteGroups(rows)) }
func (fw *fileWriter) writeRuns(runs []pqwrite.Run) error   { return wrap(fw.w.WriteRuns(runs)) }
func (fw *fileWriter) Close() error                         { return wrap(fw.w.Close()) }

// writeStream is pqwrite's WriteStream; the errors of fill come back as
// fill returned them.
func (fw *fileWriter) writeStream(fill func(put func(reflect.Value) error) error) error {
	var ferr error
	err := fw.w.WriteStream(func(put func(reflect.Value) error) error {
		ferr = fill(func(rows reflect.Value) error { return wrap(put(rows)) })
		return ferr
	})
	if err != nil && err == ferr {
		return err
	}
	return wrap(err)
}

// wrap prefixes a page writer's error with the package's name.
func wrap(err error) error {
	if err != nil {
		return fmt.Errorf("archive: %w", err)
	}
	return nil
}
