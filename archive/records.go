package archive

import (
	"fmt"
	"reflect"
	"time"

	"github.com/apache/arrow-go/v18/arrow"

	"speedmatrix/schema"
)

// The archive seen as Arrow records, for other table formats that store
// the same rows (archive/iceberg): the schema of each table, the rows of a
// record batch read back, and the run row a write stores.

// ArrowSchema returns the Arrow schema of table (one of Tables) as the
// archive writes it, with the file metadata (schema_version, table name,
// columns document), or nil for an unknown table.
func ArrowSchema(table string) *arrow.Schema {
	t := tableByName(table)
	if t == nil {
		return nil
	}
	return t.schema
}

// RecordRows converts the rows of rec into T's table rows. Columns are
// matched by name as ReadFile matches them: a column rec lacks leaves the
// field zero (nil for pointers), a column T lacks is ignored; strings and
// lists may be large, int32 widens into int64.
func RecordRows[T Row](rec arrow.RecordBatch) ([]T, error) {
	t := tableOf[T]()
	n := int(rec.NumRows())
	out := make([]T, n)
	if n == 0 {
		return out, nil
	}
	rows := reflect.ValueOf(out)
	sc := rec.Schema()
	for _, c := range t.cols {
		idx := sc.FieldIndices(c.name)
		if len(idx) == 0 {
			continue
		}
		get, err := c.codec.bind(sc.Field(idx[0]).Type)
		if err != nil {
			return nil, fmt.Errorf("archive: column %s: %w", c.name, err)
		}
		a := rec.Column(idx[0])
		nulls := a.NullN() > 0
		for i := 0; i < n; i++ {
			if nulls && a.IsNull(i) {
				continue
			}
			get(a, i, rows.Index(i).Field(c.index))
		}
	}
	return out, nil
}

// PrepareRun returns the runs row Append stores for m: its run id
// (computed when empty), schema_version, ingested_at (now when zero) and
// cell count filled in; it fails when a measurement or sample names
// another run.
func PrepareRun(m *schema.Matrix, now time.Time) (schema.Run, error) {
	return prepare(m, now)
}
