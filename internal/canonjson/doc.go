// Package canonjson writes the bytes encoding/json.Marshal writes for a
// struct, without Marshal's reflection on every call: the bytes schema
// hashes into run ids (schema.ComputeRunID), which are permanent keys, so
// they must equal Marshal's forever.
//
// The pipeline: NewPlan reads a struct type once by reflection over its
// JSON tags (names, omitempty, the fields a caller leaves out as zero
// values) into a Plan: one op per field kind, with its key, its null and
// its offset. Encoder.AppendStruct then writes a value by its plan,
// reading fields through unsafe pointers at their offsets: strings
// escaped as Marshal escapes them (AppendString), floats formatted as
// Marshal formats them (shortest decimal with ES6 exponent cutoffs; the
// printed decimals of documents written without strconv), pointers, ints,
// nested structs and slices by their own codecs, anything else (time.Time,
// marshalers, maps) by encoding/json itself. In a row of a table, a NaN or
// ±Inf figure, which Marshal cannot encode, is written as null (or 0 in a
// figures list) and listed for the caller (Encoder.NonFinite).
//
// The oracles: schema's runid_canon_test.go compares the bytes with
// Marshal's on random matrices of every field kind and odd strings and
// floats, schema's runid_seed_test.go pins the seed documents' ids, and
// this package's tests compare AppendString and the float formatting with
// encoding/json and strconv (FuzzAppendFloat).
//
// Note: this package stays, rather than goccy/go-json or encoding/json
// writing the same bytes, because it pays for itself end to end: a whole
// ingest of 1,000 documents cost 1.51x the CPU with goccy/go-json (323 →
// 490 CPU-µs/doc, medians of 5 interleaved rounds; 1.62x at 100,000
// documents, one round; with encoding/json 1.51x at 100,000),
// docs/performance-encoders.md. It moved here from schema (issue 21) so
// that schema holds the types and the definition of the id, and this the
// encoder and its unsafe reads.
package canonjson
