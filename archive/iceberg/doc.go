// Package iceberg stores the archive as a namespace of three Apache
// Iceberg tables (format v2: runs, measurements, samples) in a catalog
// (SQL on SQLite or PostgreSQL, or REST) over a warehouse on a local
// path or any S3-compatible store, so that many hosts append to one
// history and Spark, Trino, DuckDB or PyIceberg read it at a consistent
// snapshot. It uses github.com/apache/iceberg-go; with package archive
// it is the only user of arrow-go and iceberg-go.
//
// # Pipeline
//
//	ParseRef (ref.go)   iceberg+sqlite:///…, iceberg+postgres://…, iceberg+rest://… → Ref
//	Open (open.go)      catalog connection; namespace and tables made on demand
//	                    (restcatalog.go: a REST catalog, its refusals explained)
//	Append (append.go)  one Parquet file per table, written by package archive;
//	                    commits measurements, samples, then runs (the marker)
//	Snapshot (read.go)  runs pinned first, then measurements and samples;
//	                    Runs, List, Load by run id, DataFiles from the manifests
//	Push (push.go)      a directory archive's runs the table lacks, in batches
//	Drop (drop.go)      runs first, then measurements and samples: the files
//	                    holding a dropped run rewritten one at a time, replaced
//	Maintain (maintain.go) snapshot expiry and orphan-file removal, both
//	                    after a grace period; refuses a location another table shares
//
// # Tables
//
// The columns, types and documentation are those of the directory
// archive (docs/schema.md): the Iceberg schema is derived from package
// archive's Arrow schema (schema.go) and each field's doc comes from
// docs/schema.md (columns.tsv, kept in step by a test). The data files
// are the directory archive's Parquet files (archive.WriteFile: zstd,
// rows sorted by run_id, run_id statistics), added to the table with
// the table's name mapping (they carry no Iceberg field ids); the
// manifests then hold each file's run_id bounds, and a read of a few run
// ids opens only the files that can hold them.
//
// # Commits and idempotency
//
// Iceberg commits one table at a time. Append commits measurements,
// then samples, then runs, each as a fast append of one file, so the
// runs table is the commit marker: a reader that starts from runs (a
// Snapshot pins runs first) never sees a run without its measurements.
// Each table holds a run's rows at most once: before each table's commit
// the writer reads which run ids the table holds and commits the rows of
// the others, asserting that the table's head did not move; a writer that
// lost the race reads again and retries (bounded, with jittered
// backoff). A writer killed between two tables leaves rows of runs the
// runs table lacks; the next Append of those runs completes them. A
// reader that starts from measurements or samples can see rows of such
// runs (docs/iceberg.md), never a run's rows twice.
//
// # Secrets and time
//
// Credentials never enter a reference's printed form, the catalog
// properties, the tables' metadata or an error: PostgreSQL reads
// PGPASSWORD, S3 the AWS chain, REST ICEBERG_REST_TOKEN; messages pass
// through Redact. Every catalog and store call runs under
// Options.Timeout.
package iceberg
