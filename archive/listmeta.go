package archive

import (
	"context"
	"os"
	"reflect"
	"sync"
	"time"

	"speedmatrix/schema"
)

// MeasuredAt is when the run was measured, and which column says so:
// started_at (a measuring run's start, or the date a document or result
// file gives, which the parsers put there), else ingested_at, the
// earliest date the archive knows of a run that gives none.
func (l *Listing) MeasuredAt() (t time.Time, column string) {
	if l.StartedAt != nil && !l.StartedAt.IsZero() {
		return l.StartedAt.UTC(), "started_at"
	}
	return l.IngestedAt.UTC(), "ingested_at"
}

// metaListing is the runs table seen through its metadata column.
type metaListing struct {
	RunID      string         `json:"run_id"`
	IngestedAt time.Time      `json:"ingested_at"`
	Metadata   []schema.Field `json:"metadata"`
}

// metaTable is the table of metaListing rows.
var metaTable = sync.OnceValue(func() *table {
	t, err := newTable(TableRuns, reflect.TypeFor[metaListing]())
	if err != nil {
		panic(err) // fixed at compile time; every test catches it
	}
	return t
})

// metaColumns are the columns metaListing holds.
var metaColumns = []string{"run_id", "ingested_at", "metadata"}

// ListMetadata returns the metadata (every key/value pair the source
// printed) of the runs with the given ids, by run id, as Runs would give
// it (the row of the earliest ingest). Only the runs table's run_id,
// ingested_at and metadata columns are read, and only the rows of ids:
// a listing calls it for the few runs whose listed columns are blank.
func (a *Archive) ListMetadata(ctx context.Context, ids ...string) (map[string][]schema.Field, error) {
	out := make(map[string][]schema.Field, len(ids))
	if len(ids) == 0 {
		return out, nil
	}
	keep := newRunSet(ids)
	err := a.underReadLock(ctx, func(l *layout) error {
		stems := l.committed()
		files := make([][][]metaListing, len(stems))
		err := parallel(ctx, len(stems), func(k int) error {
			path := l.files[TableRuns][stems[k]]
			f, err := os.Open(path)
			if err != nil {
				return err
			}
			defer f.Close()
			var s sink[metaListing]
			if err := metaTable().read(f, path, keep, metaColumns, &s); err != nil {
				return damaged(path, err)
			}
			files[k] = s.chunks
			return nil
		})
		if err != nil {
			return err
		}
		first := make(map[string]time.Time, len(ids))
		for _, chunks := range files {
			for _, c := range chunks {
				for _, r := range c {
					if !keep.set[r.RunID] {
						continue
					}
					if t, ok := first[r.RunID]; !ok || r.IngestedAt.Before(t) {
						first[r.RunID] = r.IngestedAt
						out[r.RunID] = r.Metadata
					}
				}
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}
