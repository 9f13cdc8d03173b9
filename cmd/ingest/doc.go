// Command ingest parses speed-test documents (text, HTML or Markdown) and
// appends them to a Parquet archive.
//
//	ingest [-archive DIR] [-format text|html|markdown] [-json] [-compact] FILE...
//
// FILE "-" reads standard input. Each document gets one line on stdout:
//
//	<run_id>\t<title>\t<rows> rows\tadded|duplicate
//
// A document that does not parse is reported on stderr as
// "file:line: message", marked "error" on stdout and skipped; the others
// land in one batch (one file per table). -json prints the parsed
// documents as a JSON array instead of writing them. -compact merges the
// archive's files into one per table afterwards (also alone, without
// FILEs). Exit status: 0 all good, 1 some documents failed, 2 usage.
//
// Pipeline: read each FILE → parse.ParseAll (format detected from content
// unless -format is given; a document is one run, an appended result file
// of several configurations several) → set ingested_at → archive.Append of
// all good runs in one call (dedupe by run_id under the archive's lock) →
// report one line per run → archive.Compact when -compact is given.
// Documents are parsed concurrently (one worker per CPU); output keeps
// the order of the arguments.
package main
