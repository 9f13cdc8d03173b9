package schema

import (
	"crypto/sha256"
	"encoding/hex"
	"hash"
	"io"
	"math"
	"reflect"
	"strconv"
	"time"

	gojson "github.com/goccy/go-json"
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
// "3.extra.name=NaN"), which encoding/json cannot encode. Run ids are
// permanent keys: runid_seed_test.go pins the seed documents' ids and
// runid_test.go checks the bytes hashed against one Marshal of that
// struct.
//
// Note: a JSON library writes the bytes (one Marshal of the run and one
// per measurement, joined as Marshal joins a struct's fields and a
// slice's elements), not a canonical encoder of our own: goccy/go-json,
// whose bytes TestContentMatchesMarshal and TestComputeRunIDSeeds hold to
// encoding/json's (the definition). The hand-written encoder this
// replaced (988 lines, unsafe field offsets) did not buy the 1.25x of a
// whole ingest that our own encoders must (docs/performance-encoders.md).
func ComputeRunID(m *Matrix) string {
	h := NewRunIDHasher(&m.Run)
	h.Add(m.Measurements)
	return h.Sum()
}

// RunIDHasher computes ComputeRunID of a matrix whose measurements come
// in pieces, so that a document of 500,000 rows need not hold them all.
// Its id equals ComputeRunID of the matrix with run r and the
// measurements given to Add, in order.
type RunIDHasher struct {
	h         hash.Hash
	w         io.Writer // h, or a test's copy of the bytes too
	n         int       // the measurements added
	nonFinite []string
}

// NewRunIDHasher starts the id of a matrix with run r.
func NewRunIDHasher(r *Run) *RunIDHasher {
	x := &RunIDHasher{h: sha256.New()}
	x.w = x.h
	x.begin(r)
	return x
}

// begin writes the content's opening and its run.
func (x *RunIDHasher) begin(r *Run) {
	c := *r
	c.RunID, c.SchemaVersion, c.SourcePath, c.SourceSHA256, c.SourceFormat = "", 0, "", "", ""
	c.IngestedAt, c.Cells = time.Time{}, nil
	// The subtitle only summarizes the rest ("vllm · 0.30.1 · INT4 · 5
	// contexts …") and documents glue or separate its parts differently.
	c.Subtitle = ""
	io.WriteString(x.w, `{"run":`)
	x.w.Write(mustMarshal(&c))
	io.WriteString(x.w, `,"measurements":[`)
}

// Add hashes the next measurements of the matrix.
func (x *RunIDHasher) Add(ms []Measurement) {
	for i := range ms {
		c := ms[i]
		c.RunID, c.SourceLine, c.Printed = "", 0, nil
		x.nonFinite = clearNonFinite(x.nonFinite, x.n, &c)
		if x.n > 0 {
			io.WriteString(x.w, ",")
		}
		x.w.Write(mustMarshal(&c))
		x.n++
	}
}

// Sum returns the run id.
func (x *RunIDHasher) Sum() string {
	io.WriteString(x.w, "]")
	if len(x.nonFinite) > 0 {
		io.WriteString(x.w, `,"non_finite":`)
		x.w.Write(mustMarshal(x.nonFinite))
	}
	io.WriteString(x.w, "}")
	var sum [sha256.Size]byte
	var id [RunIDLen]byte
	hex.Encode(id[:], x.h.Sum(sum[:0])[:RunIDLen/2])
	return string(id[:])
}

// mustMarshal is the JSON encoding/json.Marshal gives for v; a value it cannot encode (a NaN or
// ±Inf in a run, which documents never hold) is a programming error.
func mustMarshal(v any) []byte {
	b, err := gojson.Marshal(v)
	if err != nil {
		panic("schema: run id: " + err.Error())
	}
	return b
}

// floatFields are the indices of Measurement's *float64 fields.
var floatFields = func() []int {
	var out []int
	t := reflect.TypeFor[Measurement]()
	for i := 0; i < t.NumField(); i++ {
		if t.Field(i).Type == reflect.TypeFor[*float64]() {
			out = append(out, i)
		}
	}
	return out
}()

// clearNonFinite sets every *float64 field of m (row row of its matrix)
// holding NaN or ±Inf (such as a request rate of "inf") to nil and every
// such extra figure to 0, which encoding/json cannot encode, and appends
// them to out as "row.field=value" strings. m's Extra is copied before a
// figure of it is cleared: it is the caller's.
func clearNonFinite(out []string, row int, m *Measurement) []string {
	v := reflect.ValueOf(m).Elem()
	for _, i := range floatFields {
		p := v.Field(i).Interface().(*float64)
		if p == nil || !(math.IsInf(*p, 0) || math.IsNaN(*p)) {
			continue
		}
		out = append(out, strconv.Itoa(row)+"."+v.Type().Field(i).Name+"="+strconv.FormatFloat(*p, 'g', -1, 64))
		v.Field(i).SetZero()
	}
	copied := false
	for j, e := range m.Extra {
		if math.IsInf(e.Value, 0) || math.IsNaN(e.Value) {
			out = append(out, strconv.Itoa(row)+".extra."+e.Name+"="+strconv.FormatFloat(e.Value, 'g', -1, 64))
			if !copied {
				m.Extra, copied = append([]Metric(nil), m.Extra...), true
			}
			m.Extra[j].Value = 0
		}
	}
	return out
}
