package store

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"speedmatrix/archive"
	"speedmatrix/archive/iceberg"
	"speedmatrix/schema"
)

// Store is what the commands need of an archive, whichever kind holds it.
// *archive.Archive (wrapped by Open) and a namespace of Iceberg tables
// implement it, with the same results for the same runs.
type Store interface {
	// String names the archive for messages: the directory, or the
	// table reference with its credentials redacted.
	String() string
	// Append adds the runs of ms the archive does not hold (one Item per
	// matrix, Duplicate for a run id it holds).
	Append(ctx context.Context, ms []*schema.Matrix) (archive.Result, error)
	// Runs returns every run, sorted by ingested_at, then run_id.
	Runs(ctx context.Context) ([]schema.Run, error)
	// ListRuns returns every run's listing columns, sorted as Runs.
	ListRuns(ctx context.Context) ([]archive.Listing, error)
	// ListMetadata returns the metadata of the runs with the given ids,
	// reading nothing else (ids not held are absent).
	ListMetadata(ctx context.Context, ids ...string) (map[string][]schema.Field, error)
	// Load returns the runs with the given ids with their measurements
	// and samples, in the order asked; an id not held is an error
	// wrapping archive.ErrNotFound.
	Load(ctx context.Context, ids ...string) ([]*schema.Matrix, error)
	// LoadColumns is Load needing only the named measurement and sample
	// columns (a table reads them all: the others are extra, not wrong).
	LoadColumns(ctx context.Context, columns []string, ids ...string) ([]*schema.Matrix, error)
	// Drop removes the runs with the given ids, with their measurements
	// and samples, and returns what it removed.
	Drop(ctx context.Context, ids []string) ([]*schema.Matrix, error)
	// Refresh moves the reads to the archive's current state and names
	// that state: the name changes whenever the archive does (refresh.go).
	// A long-lived reader (serve) calls it to see other writers' runs; a
	// command, which reads one state throughout, never does.
	Refresh(ctx context.Context) (string, error)
	// Close releases connections (nothing for a directory).
	Close() error
}

// Options say how Open opens an archive.
type Options struct {
	// Create makes a missing directory or table namespace (writers);
	// readers leave it false and get a clear error for a typo instead
	// of an empty archive.
	Create bool
	// Timeout bounds each catalog and store call of a table
	// (iceberg.DefaultTimeout when 0). A directory has no such calls.
	Timeout time.Duration
}

// IsTable reports whether ref names Iceberg tables rather than a
// directory: it starts with "iceberg+".
func IsTable(ref string) bool { return iceberg.IsRef(ref) }

// Open opens the archive ref names: a table reference (IsTable) through
// its catalog, anything else as a directory. Without Options.Create a
// directory must exist and the tables must have been written once.
func Open(ctx context.Context, ref string, opt Options) (Store, error) {
	if IsTable(ref) {
		r, err := iceberg.ParseRef(ref)
		if err != nil {
			return nil, err
		}
		a, err := iceberg.Open(ctx, r, iceberg.Options{Create: opt.Create, Timeout: opt.Timeout})
		if err != nil {
			return nil, err
		}
		return &tableStore{a: a}, nil
	}
	if ref == "" {
		return nil, errors.New("no archive: give -archive DIR or a table reference (iceberg+…)")
	}
	if !opt.Create {
		st, err := os.Stat(ref)
		if err != nil {
			return nil, fmt.Errorf("archive: %w", err)
		}
		if !st.IsDir() {
			return nil, fmt.Errorf("archive %s: not a directory", ref)
		}
	}
	a, err := archive.Open(ref)
	if err != nil {
		return nil, err
	}
	return dirStore{a}, nil
}

// Dir returns the directory archive behind s, or nil when s is a table:
// locks, damaged batches, -check and -compact are the directory's alone.
func Dir(s Store) *archive.Archive {
	if d, ok := s.(dirStore); ok {
		return d.Archive
	}
	return nil
}

// Table returns the Iceberg archive behind s, or nil when s is a
// directory.
func Table(s Store) *iceberg.Archive {
	if t, ok := s.(*tableStore); ok {
		return t.a
	}
	return nil
}

// dirStore is the directory archive as a Store.
type dirStore struct{ *archive.Archive }

func (d dirStore) String() string { return d.Dir() }
func (d dirStore) Close() error   { return nil }

// Wrap returns the directory archive a as a Store, for a command that
// opened it itself (to set its lock timeout and damage policy first).
func Wrap(a *archive.Archive) Store { return dirStore{a} }
