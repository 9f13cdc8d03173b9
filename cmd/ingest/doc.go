// Command ingest parses speed-test documents (text, HTML or Markdown) and
// appends them to a Parquet archive.
//
//	ingest [-archive DIR] [-format text|html|markdown] [-json] [-compact]
//	       [-lock-timeout D] [-skip-damaged] [-files-from LIST] FILE...
//	ingest [-archive DIR] -check [-move-damaged]
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
// Pipeline: read each FILE → parse.ParseAll (format detected from content
// unless -format is given; a document is one run, an appended result file
// of several configurations several) → set ingested_at → an
// archive.Writer, which dedupes by run_id under the archive's lock and
// writes the rows in bounded batches into the transaction's files →
// commit and publish → one line per run (the lines wait for the commit
// in memory, beyond 1 MB in a temporary file) → archive.Compact when
// -compact is given. Measurements are read into memory of a
// parse.Recycler, which the writer hands back (Writer.Written) once it
// has written their batch. Documents are parsed concurrently (one worker per CPU), at
// most a few per worker ahead of the writer, so memory does not grow with
// the number of files; output keeps the order of the arguments. A
// document of more than 65,536 rows is parsed with parse.ParseAllStream
// (its rows checked and hashed for the run id in pieces) and its rows go
// to the writer's AddRows in pieces, read again from its text, so that
// one 60 MB document is not held as ~1 KB per row.
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
package main
