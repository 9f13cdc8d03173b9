package iceberg

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	ice "github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/catalog"
	sqlcat "github.com/apache/iceberg-go/catalog/sql"
	iceio "github.com/apache/iceberg-go/io"
	_ "github.com/apache/iceberg-go/io/gocloud/s3" // s3:// warehouses
	"github.com/apache/iceberg-go/table"
	_ "github.com/jackc/pgx/v5/stdlib" // database/sql driver "pgx"
	_ "modernc.org/sqlite"             // database/sql driver "sqlite", pure Go

	"speedmatrix/archive"
	"speedmatrix/schema"
)

// CatalogName is the catalog name rows of the SQL catalog carry
// (catalog_name): a Spark or Trino JDBC catalog reading the same
// database must use this name.
const CatalogName = "speedmatrix"

// DefaultTimeout bounds each catalog or store call when Options.Timeout
// is zero.
const DefaultTimeout = 60 * time.Second

// DefaultRetries is how many times a table's commit is retried after
// conflicts when Options.Retries is 0.
//
// Note: with 8, one append in about 50 of 6 processes appending to one
// namespace at once (TestProcessesAppendConcurrently, 2 loaded cores)
// lost 9 races in a row on one table and failed; the backoff is capped
// at 1.6 s plus jitter, so 20 waits at most about 25 s before it gives up.
const DefaultRetries = 20

// Options tune Open.
type Options struct {
	// Create makes the namespace and its three tables when missing
	// (writers); readers leave it false and get a clear error instead.
	Create bool
	// Timeout bounds every catalog and store call (DefaultTimeout when 0).
	Timeout time.Duration
	// Retries bounds the commits retried after a conflict (another
	// writer committed first) for each table of an Append (DefaultRetries
	// when 0).
	Retries int
}

// Archive is the namespace of a table reference holding the runs,
// measurements and samples tables, opened through its catalog.
type Archive struct {
	ref     Ref
	cat     catalog.Catalog
	closeDB func() error
	opt     Options

	// beforeCommit, when set (tests), runs before each table commit.
	beforeCommit func(tbl string)
	// onStep, when set (tests), is told each step of a table's commit:
	// "write" before its data file is written, "commit" after it was
	// (file is its location) and before the catalog commit, "committed"
	// after the catalog took it.
	onStep func(step, tbl, file string)
	// conflicts counts the commits refused because another writer
	// committed first.
	conflicts atomic.Int64
}

// Open connects to ref's catalog and checks (with Options.Create:
// makes) its namespace and three tables. Every error is one line naming
// the reference with its credentials redacted.
func Open(ctx context.Context, ref Ref, opt Options) (*Archive, error) {
	if opt.Timeout == 0 {
		opt.Timeout = DefaultTimeout
	}
	if opt.Retries == 0 {
		opt.Retries = DefaultRetries
	}
	a := &Archive{ref: ref, opt: opt, closeDB: func() error { return nil }}
	err := a.bounded(ctx, func(ctx context.Context) error { return a.connect(ctx) })
	if err == nil {
		err = a.bounded(ctx, func(ctx context.Context) error { return a.ensure(ctx) })
	}
	if err != nil {
		a.Close()
		return nil, a.wrap("open", err)
	}
	return a, nil
}

// Ref returns the reference a was opened with.
func (a *Archive) Ref() Ref { return a.ref }

// Close releases the catalog's connections.
func (a *Archive) Close() error { return a.closeDB() }

// bounded runs f with a context bounded by the call timeout.
func (a *Archive) bounded(ctx context.Context, f func(ctx context.Context) error) error {
	ctx, cancel := context.WithTimeoutCause(ctx, a.opt.Timeout,
		fmt.Errorf("no answer from the catalog or the store within %v", a.opt.Timeout))
	defer cancel()
	err := f(ctx)
	if err != nil && ctx.Err() != nil {
		return fmt.Errorf("%w (%w)", context.Cause(ctx), err)
	}
	return err
}

// wrap makes err one line naming the reference, credentials redacted.
func (a *Archive) wrap(op string, err error) error {
	return &Error{Ref: a.ref.String(), Op: op, Err: err}
}

// Error is an error of an Archive operation. Its message names the
// reference and never holds credentials.
type Error struct {
	Ref string // the reference, redacted
	Op  string
	Err error
}

func (e *Error) Error() string {
	msg := Redact(fmt.Sprintf("%s %s: %v", e.Op, e.Ref, e.Err))
	return strings.Join(strings.Fields(msg), " ") // one line

}

func (e *Error) Unwrap() error { return e.Err }

// props are the catalog properties: the warehouse and, for S3, the
// endpoint and region. No credential is ever one of them (the AWS chain
// supplies those), so none can reach a table's metadata.
func (a *Archive) props() ice.Properties {
	p := ice.Properties{"warehouse": a.ref.Warehouse}
	endpoint := a.ref.S3Endpoint
	for _, k := range []string{"AWS_ENDPOINT_URL_S3", "AWS_ENDPOINT_URL"} {
		if endpoint == "" {
			endpoint = os.Getenv(k)
		}
	}
	if endpoint != "" {
		p[iceio.S3EndpointURL] = endpoint
	}
	region := a.ref.S3Region
	for _, k := range []string{"AWS_REGION", "AWS_DEFAULT_REGION"} {
		if region == "" {
			region = os.Getenv(k)
		}
	}
	if region == "" {
		region = "us-east-1"
	}
	p[iceio.S3Region] = region
	return p
}

func (a *Archive) connect(ctx context.Context) error {
	switch a.ref.Kind {
	case KindSQLite, KindPostgres:
		driver, dsn, dialect := "pgx", a.ref.DSN, sqlcat.Postgres
		if a.ref.Kind == KindSQLite {
			if a.opt.Create {
				if err := os.MkdirAll(filepath.Dir(a.ref.Path), 0o755); err != nil {
					return err
				}
			} else if _, err := os.Stat(a.ref.Path); err != nil {
				return fmt.Errorf("no catalog file: %w", err)
			}
			// Note: WAL and a busy timeout let several processes of
			// one host write; a commit's catalog transaction is short.
			driver, dialect = "sqlite", sqlcat.SQLite
			dsn = "file:" + a.ref.Path + "?_pragma=busy_timeout(" +
				strconv.Itoa(int(a.opt.Timeout.Milliseconds())) + ")&_pragma=journal_mode(WAL)"
		}
		db, err := sql.Open(driver, dsn)
		if err != nil {
			return err
		}
		if err := db.PingContext(ctx); err != nil {
			db.Close()
			return fmt.Errorf("catalog database unreachable: %w", err)
		}
		props := a.props()
		props[sqlcat.DialectKey] = string(dialect)
		cat, err := sqlcat.NewCatalog(CatalogName, db, dialect, props)
		// Note: the first open of a new catalog creates its tables; two
		// hosts doing that at once race on CREATE TABLE and the loser gets
		// "relation … already exists" (PostgreSQL 42P07), or, when both
		// reach the table's row type at once, "duplicate key value
		// violates unique constraint pg_type_typname_nsp_index" (23505;
		// each seen with 8 processes on a loaded machine). Opening again
		// finds the tables.
		for try := 1; err != nil && try <= 5 && createRace(err); try++ {
			select {
			case <-time.After(time.Duration(try) * 50 * time.Millisecond):
			case <-ctx.Done():
				db.Close()
				return ctx.Err()
			}
			cat, err = sqlcat.NewCatalog(CatalogName, db, dialect, props)
		}
		if err != nil {
			db.Close()
			return err
		}
		a.cat, a.closeDB = cat, db.Close
		return nil
	case KindREST:
		return a.connectREST(ctx)
	}
	return fmt.Errorf("unknown catalog kind %q", a.ref.Kind)
}

// ident returns the identifier of one of the archive's tables.
func (a *Archive) ident(tbl string) table.Identifier {
	return table.Identifier{a.ref.Namespace, tbl}
}

// ensure checks, or with Options.Create makes, the namespace and tables.
func (a *Archive) ensure(ctx context.Context) error {
	ns := table.Identifier{a.ref.Namespace}
	if a.opt.Create {
		err := a.cat.CreateNamespace(ctx, ns, ice.Properties{
			"comment": "speedmatrix archive: runs, measurements, samples (" + archive.ColumnDoc + ")",
		})
		if err != nil && !errors.Is(err, catalog.ErrNamespaceAlreadyExists) {
			// Another writer may have made it at the same moment (see
			// createdMeanwhile).
			if ok, cerr := a.cat.CheckNamespaceExists(ctx, ns); cerr != nil || !ok {
				return fmt.Errorf("create namespace %s: %w", a.ref.Namespace, err)
			}
		}
	}
	for _, tbl := range archive.Tables {
		ok, err := a.cat.CheckTableExists(ctx, a.ident(tbl))
		if err != nil {
			return fmt.Errorf("table %s.%s: %w", a.ref.Namespace, tbl, err)
		}
		if ok {
			continue
		}
		if !a.opt.Create {
			return fmt.Errorf("no table %s.%s: write to the reference first (ingest -push)", a.ref.Namespace, tbl)
		}
		if err := a.createTable(ctx, tbl); err != nil {
			return err
		}
	}
	return nil
}

// createTable makes one format-v2 table, unpartitioned, with the name
// mapping that lets readers match the columns of the archive's Parquet
// files (which carry no field ids) by name.
func (a *Archive) createTable(ctx context.Context, tbl string) error {
	sc, err := Schema(tbl)
	if err != nil {
		return err
	}
	mapping, err := json.Marshal(sc.NameMapping())
	if err != nil {
		return err
	}
	_, err = a.cat.CreateTable(ctx, a.ident(tbl), sc, catalog.WithProperties(ice.Properties{
		table.PropertyFormatVersion:       "2",
		table.DefaultNameMappingKey:       string(mapping),
		archive.MetaSchemaVersion:         strconv.Itoa(int(schema.Version)),
		archive.MetaColumnDoc:             archive.ColumnDoc,
		"write.parquet.compression-codec": "zstd",
		// Each commit writes a new metadata.json holding the table's
		// history; keep the last 100 and delete older ones.
		"write.metadata.delete-after-commit.enabled": "true",
		"write.metadata.previous-versions-max":       "100",
		table.ManifestMergeEnabledKey:                "true",
	}))
	if err != nil && !errors.Is(err, catalog.ErrTableAlreadyExists) && !a.createdMeanwhile(ctx, tbl) {
		return fmt.Errorf("create table %s.%s: %w", a.ref.Namespace, tbl, err)
	}
	return nil
}

// createRace reports whether err is what a catalog's first open returns
// when another host created the catalog's tables at the same moment.
func createRace(err error) bool {
	msg := err.Error()
	return strings.Contains(msg, "already exists") || strings.Contains(msg, "SQLSTATE 42P07") ||
		strings.Contains(msg, "SQLSTATE 23505") && strings.Contains(msg, "pg_type")
}

// mergeProps are the table properties that merge small manifests at
// append time: with them an append rewrites its table's small manifests
// into one once they are commit.manifest.min-count-to-merge (100), so a
// scan reads about a hundred manifests, not one per append ever made.
func mergeProps() ice.Properties {
	return ice.Properties{table.ManifestMergeEnabledKey: "true"}
}

// createdMeanwhile reports whether tbl exists after a failed create: two
// writers' first opens of a namespace create its tables at the same
// moment, and a catalog may answer the loser with an error other than
// "already exists".
//
// Note: the REST catalog tried here (docs/iceberg.md) answers the loser
// of that race with a 500 (its SQLite UNIQUE constraint), not the 409
// the REST spec asks for: 2 of 6 writer processes failed to open.
func (a *Archive) createdMeanwhile(ctx context.Context, tbl string) bool {
	ok, err := a.cat.CheckTableExists(ctx, a.ident(tbl))
	return err == nil && ok
}

// load returns the current state of one table.
func (a *Archive) load(ctx context.Context, tbl string) (*table.Table, error) {
	var t *table.Table
	err := a.bounded(ctx, func(ctx context.Context) (err error) {
		t, err = a.cat.LoadTable(ctx, a.ident(tbl))
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("load table %s.%s: %w", a.ref.Namespace, tbl, err)
	}
	return t, nil
}
