// Package pqwrite writes rows of a Go struct type as a Parquet file
// straight from their memory, byte-compatible in rows, levels, encodings
// and statistics with what arrow-go's pqarrow writes for an Arrow record
// of the same rows: the archive's page writer.
//
// The pipeline: NewTable takes a row type, the Arrow schema of its table
// and where each column lies in a row (Column), and derives one leaf per
// Parquet leaf column (leaves.go): required, optional (a pointer) or a
// field of a list's elements, with the scalar that writes its Go type.
// The Parquet schema, the key/value metadata (the stored Arrow schema
// byte for byte pqarrow's) and the writer properties (Props: zstd,
// dictionaries but for doubles and named leaves, statistics on run_id
// only) are taken once from an empty file pqarrow writes. A Writer then
// cuts the rows into row groups at run boundaries (Layout.GroupRows) and
// each group into pieces of Layout.PieceRows rows; for each piece each
// leaf gathers its values and definition/repetition levels from the rows
// through unsafe pointers at the fields' offsets (gather.go), into the
// page its chunk is filling (pages.go): DataPage V1, levels in the
// RLE/bit-packed hybrid (rle.go), values PLAIN or as dictionary indices
// (dictleaf.go, falling back to PLAIN past the dictionary's limit as
// arrow-go does), compressed by long-lived zstd encoders (zstd.go),
// under page headers in Thrift's compact protocol (pageheader.go). The
// footer is arrow-go's metadata builders', serialized by apache/thrift.
// Rows may come whole (WriteGroups), as runs whose rows carry the run's
// id (WriteRuns), or in pieces streamed into one group (WriteStream).
//
// The oracles: every test writes the same rows with pqarrow (from Arrow
// records built the slow, obvious way: refRecord) and compares the two
// files through arrow-go's readers (compareFiles): key/value metadata,
// Parquet schema, row groups, statistics, every leaf's values and levels,
// the page kinds and encodings, and the table read back
// (TestSameRowsAsArrow on the seed documents, TestRandomRowsAsArrow and
// FuzzRandomRowsAsArrow on random rows of every table in groups and
// pages of every size, dictionaries that fall back, pointer elements);
// the hybrid encoding against a value-at-a-time reference and the spec's
// example (FuzzHybrid), page headers against the compact protocol worked
// by hand, raw zstd frames against two decoders, and writes under a
// collector that runs all the time (TestWriteUnderGC). Its cost is
// measured where its rows come from: the figures of its Notes are of
// archive's BenchmarkWriteSeed1000 (the measurements and runs of 1,000
// seed documents written as files of the archive's tables) and of whole
// ingests.
//
// What is whose: the archive (package archive) owns its tables' schema:
// which Go types are tables, their Arrow types derived from the structs'
// JSON tags (columns.go there), and how the same columns are read back;
// it hands the Arrow schema and the columns' places in a row in. This
// package owns how such rows become Parquet bytes and nothing else, so
// it imports no package of the project. The schema stays with the
// archive because the archive's reads bind the same columns to the same
// Go fields, and a second derivation here would be one more place for
// the two to disagree; NewTable checks what it is handed (each leaf's
// Parquet type against its Go type's). The archive also chooses the
// layout (row groups of about 8,192 rows, for its reads by run id) and
// the leaves it writes without a dictionary.
//
// Note: this package stays, rather than pqarrow writing Arrow records of
// the same rows with the same properties, because it pays for itself end
// to end: with pqarrow a whole ingest of 1,000 documents cost 1.73x the
// CPU (456 → 790 CPU-µs/doc, medians of 5 interleaved rounds; 4.88x at
// 100,000 documents, one round) and 1.48x the peak RSS (102 → 151 MB),
// docs/performance-encoders.md. It moved here from archive (issue 21) so
// that archive holds the tables, the layout and the transactions, and
// this the encoder and its unsafe reads.
package pqwrite
