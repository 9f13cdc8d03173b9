// Package ingest reads speed-test documents and other tools' result files
// into an archive: the pipeline behind the ingest command, and the
// memory policy that keeps a call over 100,000 files flat.
//
// Pipeline: Files reads each file (a regular file whole, anything else
// as a stream) and parses it with parse.ParseAll (format detected from
// content unless Options.Format is given; a document is one run, an
// appended result file of several configurations several), one worker
// per CPU, at most window documents per worker ahead of the writer, so
// memory does not grow with the number of files. The documents reach the
// archive in the order of the files: each run gets ingested_at and goes
// to an archive.Writer, which dedupes by run_id under the archive's lock
// and writes the rows in bounded batches into the transaction's files. A
// run whose source the archive holds under other run ids (an earlier
// speedmatrix read it differently) is not added unless Options.Reread.
// Once the writer has committed and published, the Report holds a line
// per run (in memory up to 1 MB, beyond in a temporary file), for the
// caller to print.
//
// Measurements are read into the memory of a parse.Recycler, which the
// writer hands back (Writer.Written) once it has written their batch. A
// document of more than 65,536 rows is parsed with
// parse.ParseAllStream (its rows checked and hashed for the run id in
// pieces), and its rows go to the writer's AddRows in pieces, read again
// from its text, so that one 60 MB document is not held as ~1 KB per
// row.
//
// Memory policy (TuneMemory): the collector's target is raised to
// gcPercent and a soft memory limit of memLimit set, unless GOGC or
// GOMEMLIMIT say otherwise; a large document moves the limit by what it
// needs while it is read (roomFor).
//
// A named pipe (FIFO) given as a file is waited for at most
// Options.PipeWait (PipeWait, 10 s) for a writer, and every read of a
// pipe or a device at most as long for its bytes; then the document fails
// with a message that says so, instead of waiting forever. ReadList reads
// a list of file names (ingest -files-from) the same way.
//
// Parse is the same reading without the archive (for printing the parsed
// documents). Neither writes to standard output or error: failed
// documents and runs not added reach Options.Warn, and the report lines
// the caller's writer.
package ingest
