// Package ingestcmd is the `speedmatrix ingest` subcommand, which parses
// speed-test documents (text, HTML or Markdown) and other tools' result
// files and appends them to a Parquet archive.
//
//	speedmatrix ingest [-archive DIR] [-format text|html|markdown] [-json] [-compact]
//	       [-lock-timeout D] [-skip-damaged] [-files-from LIST] FILE...
//	speedmatrix ingest [-archive DIR] -check [-move-damaged]
//
// The archive is -archive DIR, else $SPEEDMATRIX_ARCHIVE, else ./archive
// (internal/archivepath). A write creates a missing archive and says
// "created archive at PATH" on stderr, once; a missing parent directory
// is an error, never created. -check and -drop read an archive that
// must exist, and name the paths tried when none does.
//
// FILE "-" reads standard input; -files-from adds the names listed in a
// file, one per line (100,000 names do not fit a command line). Each document gets one line on stdout:
//
//	<run_id>\t<title>\t<rows> rows\tadded|duplicate
//
// A document that does not parse is reported on stderr as
// "file:line: message", marked "error" on stdout and skipped; the others
// land in one transaction (one file per table). -json prints the parsed
// documents as a JSON array instead of writing them. -compact merges the
// archive's files into one per table afterwards (also alone, without
// FILEs). Exit status: 0 all good, 1 some documents failed, 2 usage.
//
// The pipeline and its memory policy are package ingest's (ingest.Files;
// ingest.Parse for -json; ingest.TuneMemory for the collector): this
// command parses the flags, opens the archive, prints the report and
// the warnings, and chooses the exit status. Documents are parsed
// concurrently, at most a few per worker ahead of the writer, and land in
// one transaction; output keeps the order of the arguments.
//
// The lock: a command that has waited a second for the archive's lock
// says on stderr who holds it (command, pid, host, since when);
// -lock-timeout gives up after the duration with exit 1.
//
// Damaged files: -check reads every file of the archive and prints one
// line per damaged or foreign file (damaged, batch, path, reason), exit 1
// when any; -move-damaged moves their batches to DIR/damaged/. A command
// that meets such a file fails naming it, unless -skip-damaged, which goes
// on without the file's batch and names it on stderr.
//
// The shared archive (docs/iceberg.md): -archive also takes an Iceberg
// table reference (iceberg+sqlite:…, iceberg+postgres://…,
// iceberg+rest://…); the files' runs then land in one idempotent append
// (ingest.Into), -check reads every run back and -drop rewrites the
// data files holding the runs.
// -push REF publishes the runs of the -archive directory that the table
// lacks (idempotent by run_id); -maintain expires a table's snapshots
// older than -grace and removes the files no snapshot references.
//
// The package is named ingestcmd, not ingest, so that it reads apart from the
// library package it drives (speedmatrix/ingest); cmd/speedmatrix runs it through Main.
package ingestcmd
