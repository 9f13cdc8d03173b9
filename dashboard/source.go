package dashboard

import (
	"context"

	"speedmatrix/archive"
	"speedmatrix/schema"
)

// Source is what the dashboard reads of an archive. A store.Store is one,
// whichever kind holds the runs: a directory archive or a shared archive
// of Iceberg tables (store.Open).
type Source interface {
	// String names the archive in messages (credentials redacted).
	String() string
	// Refresh moves the reads to the archive's current state and names
	// it: the name changes whenever the archive does. The listing is
	// read again only when it changed (listing.go).
	Refresh(ctx context.Context) (string, error)
	// ListRuns returns every run's listing columns (the Runs view).
	ListRuns(ctx context.Context) ([]archive.Listing, error)
	// ListMetadata returns the metadata of the runs with the given ids:
	// the few runs whose listed GPU, engine or quantization is blank.
	ListMetadata(ctx context.Context, ids ...string) (map[string][]schema.Field, error)
	// Load returns whole runs by id (Compare, Trend, Run); an id not
	// held wraps archive.ErrNotFound.
	Load(ctx context.Context, ids ...string) ([]*schema.Matrix, error)
	// LoadColumns is Load needing only the named measurement columns
	// (Landscape).
	LoadColumns(ctx context.Context, columns []string, ids ...string) ([]*schema.Matrix, error)
}
