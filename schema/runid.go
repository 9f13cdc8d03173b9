package schema

import (
	"crypto/sha256"
	"encoding/hex"
	"hash"
	"io"
	"reflect"
	"sync"
	"unsafe"

	"speedmatrix/internal/canonjson"
)

// RunIDLen is the number of hex digits in a run id.
const RunIDLen = 16

// ComputeRunID returns the stable id of a matrix: the first RunIDLen hex
// digits of the SHA-256 of its content. Content means the run's metadata
// and measurements as normalized values; it leaves out where and when the
// document was read (source path, hash, format, ingest time), the run id
// itself, the archive's cell count, the subtitle (a summary of the rest), source line numbers and
// printed text. So the text, HTML and
// Markdown forms of one document share one id, and re-ingesting any of
// them is a duplicate. Samples (per-request records) are left out too: a
// document prints the measurements, not the requests behind them, and a
// measuring run's archived rows and its document must share one id.
//
// Note: the hash is over a JSON encoding of the normalized structs, so
// adding a field that is empty for old documents (omitempty) keeps old ids.
// The encoding is the one encoding/json.Marshal gives for
//
//	struct {
//		Run          Run           `json:"run"`
//		Measurements []Measurement `json:"measurements"`
//		NonFinite    []string      `json:"non_finite,omitempty"`
//	}
//
// with the left-out fields set to their zero values and every NaN or ±Inf
// figure of a measurement set to null (a pointer) or 0 (an extra figure)
// and listed in NonFinite as "row.Field=value" ("3.RequestRate=+Inf",
// "3.extra.name=NaN"), which encoding/json cannot encode. It is written by
// internal/canonjson rather than by encoding/json: Marshal of a whole
// matrix copies every measurement and walks it by reflection on each
// call, which made the id a fifth of the time of parsing a document.
// canonjson's per-type plans are built once by reflection over the JSON
// tags, so a field added to Run or Measurement joins the hash without
// touching this file, and runid_canon_test.go checks that its bytes equal
// Marshal's (marshalContent, runidoracle.go; runid_seed_test.go pins the
// seed documents' ids).
//
// Note: the canonical encoder stays because it pays for itself end to
// end: with goccy/go-json writing the same bytes (a Marshal of the run
// and of each measurement), a whole ingest of 1,000 documents cost 1.51x
// the CPU (323 -> 490 CPU-µs/doc, medians of 5 interleaved rounds; with
// encoding/json 1.5x at 100,000 documents too), docs/performance-encoders.md.
//
// Note: the encoding goes to the hash in pieces of about flushAt bytes,
// so a document of 500,000 rows does not hold its whole encoding (twice
// the size of the document) while its id is computed, nor leave a buffer
// that large in the pool.
func ComputeRunID(m *Matrix) string {
	e := encoders.Get().(*canonEncoder)
	defer encoders.Put(e)
	if e.digest == nil {
		e.digest = sha256.New()
	}
	h := e.digest
	h.Reset()
	e.sink = h
	h.Write(e.encode(m))
	e.sink = nil
	return runID(h)
}

// runID is the run id of the content written to h: the first RunIDLen
// hex digits of its sum.
func runID(h hash.Hash) string {
	var sum [sha256.Size]byte
	var id [RunIDLen]byte
	hex.Encode(id[:], h.Sum(sum[:0])[:RunIDLen/2])
	return string(id[:])
}

// flushAt is the size at which the encoder hands its bytes to its sink.
const flushAt = 64 << 10

// encoders reuses encoders (and their buffers) across calls; ingest
// computes ids on every core at once.
var encoders = sync.Pool{New: func() any { return &canonEncoder{} }}

// canonEncoder writes the canonical JSON of a matrix (see ComputeRunID)
// with internal/canonjson's encoder.
type canonEncoder struct {
	enc canonjson.Encoder
	buf []byte
	// digest is ComputeRunID's hash, reused with the encoder.
	digest hash.Hash
	// sink, when set, receives the encoding in pieces as it grows past
	// flushAt; encode then returns only the rest.
	sink io.Writer
	// nonFinite lists the matrix's NaN/±Inf figures, row by row.
	nonFinite []string
}

// The plans of Run and Measurement, built once.
var (
	runPlan, measurementPlan *canonjson.Plan
	// canonOK is false when a plan could not be built; ids are then
	// computed with encoding/json (the same bytes, slower).
	canonOK bool
)

func init() {
	var ok1, ok2 bool
	runPlan, ok1 = canonjson.NewPlan(reflect.TypeFor[Run](), runLeftOut)
	measurementPlan, ok2 = canonjson.NewPlan(reflect.TypeFor[Measurement](), measurementLeftOut)
	canonOK = ok1 && ok2
}

// The content of the id leaves these fields out (encodes them as their
// zero values).
var (
	runLeftOut = map[string]bool{
		"RunID": true, "SchemaVersion": true, "SourcePath": true, "SourceSHA256": true,
		"SourceFormat": true, "IngestedAt": true, "Cells": true,
		// The subtitle only summarizes the rest ("vllm · 0.30.1 · INT4 · 5
		// contexts …") and documents glue or separate its parts differently.
		"Subtitle": true,
	}
	measurementLeftOut = map[string]bool{"RunID": true, "SourceLine": true, "Printed": true}
)

// encode returns the canonical JSON of m, in e's buffer.
func (e *canonEncoder) encode(m *Matrix) []byte {
	if cap(e.buf) > 4*flushAt {
		e.buf = nil // grown by a sink-less encode of a huge matrix
	}
	if !canonOK {
		e.buf = marshalContent(m)
		return e.buf
	}
	b := e.begin(e.buf[:0], &m.Run)
	b = e.rows(b, m.Measurements, 0)
	b = e.end(b)
	e.buf = b
	return b
}

// begin starts the canonical JSON of a matrix with run r.
func (e *canonEncoder) begin(b []byte, r *Run) []byte {
	e.nonFinite = e.nonFinite[:0]
	b = append(b, `{"run":`...)
	b = e.enc.AppendStruct(b, unsafe.Pointer(r), runPlan, -1)
	return append(b, `,"measurements":[`...)
}

// rows appends measurements ms, the first of which is row first of the
// matrix, handing full pieces to the sink.
func (e *canonEncoder) rows(b []byte, ms []Measurement, first int) []byte {
	for i := range ms {
		if first+i > 0 {
			b = append(b, ',')
		}
		b = e.enc.AppendStruct(b, unsafe.Pointer(&ms[i]), measurementPlan, first+i)
		e.nonFinite = e.enc.NonFinite(e.nonFinite)
		if e.sink != nil && len(b) >= flushAt {
			e.sink.Write(b)
			b = b[:0]
		}
	}
	return b
}

// end closes the canonical JSON begun by begin.
func (e *canonEncoder) end(b []byte) []byte {
	b = append(b, ']')
	if len(e.nonFinite) > 0 {
		b = append(b, `,"non_finite":[`...)
		for i, s := range e.nonFinite {
			if i > 0 {
				b = append(b, ',')
			}
			b = canonjson.AppendString(b, s)
		}
		b = append(b, ']')
	}
	return append(b, '}')
}

// RunIDHasher computes ComputeRunID of a matrix whose measurements come
// in pieces, so that a document of 500,000 rows need not hold them all.
// Its id equals ComputeRunID of the matrix with run r and the
// measurements given to Add, in order.
type RunIDHasher struct {
	e   *canonEncoder
	h   hash.Hash
	b   []byte
	run Run
	n   int
	// all keeps the measurements when the canonical encoder is off
	// (marshalContent needs the whole matrix).
	all []Measurement
}

// NewRunIDHasher starts the id of a matrix with run r.
func NewRunIDHasher(r *Run) *RunIDHasher {
	x := &RunIDHasher{e: &canonEncoder{}, h: sha256.New(), run: *r}
	x.e.sink = x.h
	if canonOK {
		x.b = x.e.begin(nil, r)
	}
	return x
}

// Add hashes the next measurements of the matrix.
func (x *RunIDHasher) Add(ms []Measurement) {
	if !canonOK {
		x.all = append(x.all, ms...)
		return
	}
	x.b = x.e.rows(x.b, ms, x.n)
	x.n += len(ms)
}

// Sum returns the run id.
func (x *RunIDHasher) Sum() string {
	if !canonOK {
		return ComputeRunID(&Matrix{Run: x.run, Measurements: x.all})
	}
	x.h.Write(x.e.end(x.b))
	return runID(x.h)
}

// IsRunID reports whether s has the form of a whole run id: RunIDLen
// lower-case hex digits (whether any archive holds it is another matter).
func IsRunID(s string) bool {
	if len(s) != RunIDLen {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}
