// Package schema is the data model every speedmatrix package speaks: a
// speed-test matrix (Matrix) is one run (Run) and its cells
// (Measurement), plus per-request records (Sample) when a measuring run
// kept them. It is pure Go and imports nothing of ours.
//
// The pipeline around it:
//
//	documents ──► parse ──► Matrix ◄── runner (cmd/run)
//	                          │
//	                          ├──► archive: Parquet tables runs, measurements, samples
//	                          └──► render, analysis, plots
//
// Each struct is one table of the archive and each field one column: the
// column name is the field's JSON tag (snake_case, with a unit suffix such
// as _ms, _s, _tok_s or _tokens), pointer fields are nullable columns (nil
// means "not printed", never zero), and the archive derives its Arrow
// schema from the structs by reflection. So adding a field here adds a
// column; describe it in docs/schema.md (a test in package archive fails
// until it is), and bump Version only when an existing column changes
// meaning.
//
// A run's identity is its content: ComputeRunID hashes the normalized
// metadata and measurements, leaving out where and when the document was
// read, so the same matrix in text, HTML or Markdown has one run id and
// re-ingesting it is a duplicate.
package schema
