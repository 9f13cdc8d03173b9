// Package archive stores speed-test matrices as Parquet tables that
// DuckDB, pandas, Spark or Trino read as one dataset, and reads them back.
// It is the only package of speedmatrix that imports arrow-go.
//
// # Tables and schema
//
// Three tables, one Go struct each (schema.Run, schema.Measurement,
// schema.Sample). The Arrow schema of each is derived in one place
// (columns.go) by reflection over the structs' JSON tags, so a field added
// to schema/types.go becomes a column without touching this package:
//
//	string, Phase, Status      utf8
//	int32, int64, float64, bool non-null int32, int64, float64, bool
//	*int32, *int64, *float64    nullable (nil is null)
//	time.Time, *time.Time       timestamp[us, tz=UTC] (pointer: nullable)
//	[]KV, []Field, []Metric     list<element: struct<…>> (nil is null)
//
// Every row carries run_id; runs rows carry schema_version. Each file also
// holds schema_version, the table name and a pointer to docs/schema.md
// (the meaning, unit and formula of every column) as Parquet key/value
// metadata, and the Arrow schema itself. Compression is zstd. Readers
// match columns by name, so files written before a column existed stay
// readable (the column reads as null), here and in DuckDB with
// union_by_name=true.
//
// Rows are written straight from the Go structs into Parquet pages by
// the archive's own page writer, archive/internal/pqwrite (DataPage V1,
// levels in the RLE/bit-packed hybrid, strings and integers with a
// dictionary as arrow-go would give them, zstd), with the levels, schema,
// stored Arrow schema and footer pqarrow would write for an Arrow record
// of them (the footer described by arrow-go's metadata builders): the
// files hold the same rows, encodings and statistics for every reader
// (pqwrite's TestSameRowsAsArrow and TestRandomRowsAsArrow, DuckDB's
// tests here). This package hands it each table's Arrow schema and where
// its columns lie in a row, and chooses the layout and the plain leaves
// (writefile.go). The page writer stays because arrow-go's pqarrow made
// a whole ingest 1.73x dearer; our own footer went, as it bought nothing
// measurable (docs/performance-encoders.md).
//
// # Layout
//
//	DIR/.lock
//	DIR/runs/part-<UTC time>-<host>-<pid>-<random>.parquet
//	DIR/measurements/part-<same stem>.parquet
//	DIR/samples/part-<same stem>.parquet        (only when there are samples)
//
// File names cannot collide between writers (time to the microsecond,
// host, process id and 64 random bits) and files are never rewritten in
// place, so archives from many benchmark hosts merge by copying files
// (subdirectories allowed), and a query engine reads each table with a
// glob: read_parquet('DIR/measurements/**/*.parquet', union_by_name=true).
// There are no Hive-style partition directories: the natural filters
// (model, GPU, engine, run id) are columns of runs, not of measurements,
// so a partition key would not prune measurement files; the ** glob keeps
// working if a partitioned layout is added later.
//
// # Writes
//
// Append writes all new runs of one call as one file per table: ingesting
// 1,000 documents in one call writes three files, not 3,000. Each file is
// written to a hidden temp name in its table directory (".tmp-…tmp",
// which no *.parquet glob matches), fsynced, then renamed; the runs file
// is renamed last and is the commit marker: a measurements or samples file
// whose stem has no runs file is not part of the archive. A small journal
// (DIR/.txn-<stem>.json) written before the first rename lets the next
// writer finish or undo a transaction that a crash interrupted. The
// directories are fsynced after the renames.
//
// # Row groups and reads by run id
//
// Within a file, rows are sorted by run_id (a run's rows keep their
// order) and cut into row groups of about 8,192 rows at run boundaries;
// each group's run_id min/max statistics (Parquet column statistics,
// which DuckDB and pyarrow read too) bound the runs it holds; no other
// column has statistics, since no group could be skipped on them (see
// pqwrite.Props). Load of a
// few ids reads only the groups whose range can hold one of them, in the
// runs, measurements and samples files alike: 2 runs of a 10,000-run
// archive read 2 of its 57 measurement groups instead of all 460,000
// rows. Files without statistics (older versions, other writers) are read
// whole, as before; Compact rewrites them. LoadColumns reads only named
// measurement and sample columns (four small columns count the cells of
// a run instead of decoding the printed and extra lists). ListRuns reads
// a narrow Listing row of every run (the nine runs columns compare -list
// prints, its cell count among them) and no measurements: 100,000 runs
// list in about 0.5 CPU-s and 130 MB (BenchmarkList100000 in
// cmd/compare). Loaded rows are not copied per run: a run's matrix holds
// a subslice of the rows read from its file.
//
// # Snapshots for outside readers
//
// The table directories above are the store, read by this package under
// the lock. Every write ends by publishing a snapshot: hard links to the
// committed files under DIR/snapshots/<name>/, made current by renaming
// one symlink over DIR/current (snapshot.go; docs/archive.md says how
// DuckDB, pandas and Spark read it and what they see at every step).
//
// # Streaming writes
//
// A Writer (writer.go) holds the write lock for one transaction and
// writes the runs added to it in sorted batches of batchRows rows, each
// batch as row groups of the transaction's single file per table (tempfiles.go), so the
// memory of an ingest of 100,000 documents is that of one batch. Append
// is a Writer over a slice.
//
// Writers hold an exclusive flock on DIR/.lock (gofrs/flock), readers a
// shared one, so concurrent ingests from goroutines and processes are
// safe. Under the lock Append dedupes by run_id: it reads only the run_id
// column of each runs file, and caches it per file (files are immutable),
// so a second call in one process reads only files it has not seen.
//
// # Batches and compaction
//
// Tools that append one document at a time (cmd/run, a loop of single
// ingests) leave one small file per call and table. Query engines open
// every file, so 10,000 runs in 10,000 files is slow to read (and so is
// dedupe in a fresh process). Compact merges every committed file into
// one per table: new files first, then the commit, then the old files are
// deleted, all under the lock. The measurements and samples are merged
// by run_id a run at a time from the files' sorted segments, at most 8
// at once (merge.go, mergeread.go), so memory stays flat in the number of
// runs but for the runs rows (about 1 KB a run). The trade-off: Compact
// rewrites the whole archive (time proportional to its size) and, on a shared
// copy in object storage, replaces files other hosts may have cached; so
// ingest in batches when you can and compact occasionally (cmd/ingest
// -compact), not after every run. Drop is a compaction that leaves named
// runs out: the one way a stored run leaves the archive (cmd/ingest
// -drop), for the old reading of a source read again or a botched run.
//
// # Figures
//
// Measured on the 2-core development machine while other jobs ran (load
// 7–15), so CPU time is the steadier figure (go test ./archive -bench
// Runs10000 -benchtime 3x; go test ./cmd/ingest -bench Ingest1000
// -benchtime 3x):
//
//	Append of 1,000 parsed documents (46,000 rows), one call   ≈ 0.6 ms CPU per document
//	Runs of 10,000 runs, compacted / in 10 batch files         ≈ 180 / 300 ms CPU
//	Load of all 10,000 runs (50,000 rows), compacted / batched ≈ 300 / 420 ms CPU
//	Load of one run by id, compacted / batched                  ≈ 55 / 40 ms CPU
//	Runs, then Load of two ids (LoadTwo), compacted / batched   ≈ 260 / 235 ms CPU
//	LoadColumns of 4 cell-key columns of all runs (ListCells)   ≈ 240 / 250 ms CPU
//	dedupe scan of a fresh Append, compacted / batched          ≈ 9 / 14 ms CPU
//	the same 1,000 runs left in 1,000 small files: Runs ≈ 3.7 s CPU, dedupe ≈ 0.6 s
//
// Before row groups by run_id (one group per file), the same benchmark
// gave LoadOne ≈ 105 / 35, LoadTwo ≈ 380 / 305 and LoadAll ≈ 520 / 535 ms
// CPU. On 10,000 runs of the seed documents (460,000 rows of 46 cells,
// with their printed and extra lists), compare of two archived runs went
// from 1.5–1.7 s to 0.65–0.75 s wall and compare -list from 6–7 s to
// 1.7–1.9 s; the measurements file grew from 0.2 to 1.2 MB (these
// near-identical documents compress unusually well in one group).
//
// Every Parquet file costs a few milliseconds to open (footer, stored
// Arrow schema, a 16 KiB page buffer per column in arrow-go), whatever its
// size: hence batches and Compact. Reads of several files run on one
// goroutine per CPU, and Load by id converts only the rows it returns.
package archive
