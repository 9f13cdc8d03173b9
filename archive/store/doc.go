// Package store opens what a command's -archive names: today's directory
// archive (package archive) or a shared archive of Iceberg tables
// (package archive/iceberg, a reference starting with "iceberg+"), and
// gives the commands one small interface over both, Store: append
// matrices idempotently, list runs, load runs by id, drop runs.
//
// # Pipeline
//
//	Open (store.go)     the reference's form picks the kind, in this one place:
//	                    "iceberg+…" → a table (tableStore), anything else → a directory
//	Store               Append · Runs · ListRuns · ListMetadata · Load · LoadColumns · Drop · Refresh · Close
//	Refresh (refresh.go) names the current state; a table re-pins it (serve, a long-lived reader)
//	Dir                 the directory archive behind a Store, for what only it has
//	                    (locks, -check, -compact, damaged batches)
//	Push (push.go)      a directory archive's runs into a table, idempotent by run_id
//	Maintain            compaction, manifest merge, snapshot expiry, orphan-file removal of a table
//
// A table's reads pin one snapshot of its three tables (runs first, the
// commit marker) on the first read and keep it for the whole command, so
// a command sees one state of the shared history however many hosts
// write meanwhile; an Append or Drop of the command itself unpins it.
//
// The caller resolves the default (-archive, $SPEEDMATRIX_ARCHIVE,
// ./archive) before Open; Open takes the resolved string as it is.
package store
