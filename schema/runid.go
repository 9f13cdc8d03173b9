package schema

import (
	"crypto/sha256"
	"encoding"
	"encoding/hex"
	"encoding/json"
	"hash"
	"io"
	"math"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"
	"unsafe"
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
// canonEncoder rather than by encoding/json: Marshal of a whole matrix
// copies every measurement and walks it by reflection on each call, which
// made the id a fifth of the time of parsing a document. The encoder's
// per-type field lists are built once by reflection over the JSON tags,
// so a field added to Run or Measurement joins the hash without touching
// this file, and runid_test.go checks that its bytes equal Marshal's.
//
// Note: the encoding goes to the hash in pieces of about flushAt bytes,
// so a document of 500,000 rows does not hold its whole encoding (twice
// the size of the document) while its id is computed, nor leave a buffer
// that large in the pool.
func ComputeRunID(m *Matrix) string {
	e := encoders.Get().(*canonEncoder)
	defer encoders.Put(e)
	h := sha256.New()
	e.sink = h
	h.Write(e.encode(m))
	e.sink = nil
	var sum [sha256.Size]byte
	return hex.EncodeToString(h.Sum(sum[:0]))[:RunIDLen]
}

// flushAt is the size at which the encoder hands its bytes to its sink.
const flushAt = 64 << 10

// encoders reuses encoders (and their buffers) across calls; ingest
// computes ids on every core at once.
var encoders = sync.Pool{New: func() any { return &canonEncoder{} }}

// canonEncoder writes the canonical JSON of a matrix (see ComputeRunID).
type canonEncoder struct {
	buf []byte
	// sink, when set, receives the encoding in pieces as it grows past
	// flushAt; encode then returns only the rest.
	sink io.Writer
	// nonFinite and extraNonFinite collect one row's NaN/±Inf figures:
	// columns first, then extra figures, as the list is ordered.
	nonFinite      []string
	extraNonFinite []string
	rowNonFinite   []string
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

// codec says how a field's value is written.
type codec int

const (
	codecFallback codec = iota // encoding/json.Marshal of the value
	codecString
	codecBool
	codecInt  // int, int8, int16, int32, int64
	codecUint // uint, uint8, uint16, uint32, uint64, uintptr
	codecFloat64
	codecStruct     // a struct with a plan of its own
	codecSlice      // a slice of an element with a codec of its own
	codecPointer    // a pointer to an element with a codec of its own
	codecConstBytes // a left-out field: its zero value, encoded once
)

// typeCodec is how values of one type are written.
//
// Note: the encoder reads fields at their offsets through unsafe
// pointers rather than through reflect.Value, which was most of its time;
// the offsets, sizes and kinds come from reflect once per type, and
// anything it does not read itself goes through encoding/json.
type typeCodec struct {
	codec codec
	typ   reflect.Type
	size  uintptr     // of an integer
	elem  *typeCodec  // codecSlice, codecPointer
	plan  []fieldPlan // codecStruct
}

// fieldPlan is one field of a struct as the encoder writes it.
type fieldPlan struct {
	offset    uintptr
	name      string // Go field name, for the non-finite list
	key       string // `"json_name":`
	omitEmpty bool
	tc        *typeCodec
	// zero is the encoding of the zero value of a left-out field ("" for
	// one omitted when empty).
	zero []byte
	// floatPtr marks a *float64 field, cleared when NaN or ±Inf.
	floatPtr bool
	// extra marks the []Metric field of extra figures.
	extra bool
}

var (
	marshalerType     = reflect.TypeFor[json.Marshaler]()
	textMarshalerType = reflect.TypeFor[encoding.TextMarshaler]()
)

// codecOf returns how values of t are written; types encoding/json
// treats specially (marshalers, maps, byte slices, float32, interfaces)
// fall back to encoding/json.
func codecOf(t reflect.Type) *typeCodec {
	tc := &typeCodec{codec: codecFallback, typ: t, size: t.Size()}
	if t.Implements(marshalerType) || t.Implements(textMarshalerType) ||
		reflect.PointerTo(t).Implements(marshalerType) || reflect.PointerTo(t).Implements(textMarshalerType) {
		return tc
	}
	switch t.Kind() {
	case reflect.String:
		tc.codec = codecString
	case reflect.Bool:
		tc.codec = codecBool
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		tc.codec = codecInt
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		tc.codec = codecUint
	case reflect.Float64:
		tc.codec = codecFloat64
	case reflect.Pointer:
		tc.codec, tc.elem = codecPointer, codecOf(t.Elem())
	case reflect.Slice:
		if t.Elem().Kind() != reflect.Uint8 { // []byte is base64
			tc.codec, tc.elem = codecSlice, codecOf(t.Elem())
		}
	case reflect.Struct:
		if plan, ok := planOf(t, nil); ok {
			tc.codec, tc.plan = codecStruct, plan
		}
	}
	return tc
}

// planOf lists the fields of struct t as encoding/json writes them, with
// the fields in leftOut encoded as zero values. It reports false for a
// struct whose field rules it does not reproduce (embedded fields, the
// ",string" option), which is then written by encoding/json.
func planOf(t reflect.Type, leftOut map[string]bool) ([]fieldPlan, bool) {
	var plan []fieldPlan
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if f.Anonymous {
			return nil, false
		}
		if !f.IsExported() {
			continue
		}
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		if !validTagName(name) {
			name = f.Name
		}
		p := fieldPlan{offset: f.Offset, name: f.Name, key: string(appendString(nil, name)) + ":", tc: codecOf(f.Type)}
		for o := range strings.SplitSeq(opts, ",") {
			switch o {
			case "omitempty":
				p.omitEmpty = true
			case "string", "omitzero":
				return nil, false
			}
		}
		if leftOut[f.Name] {
			z := reflect.Zero(f.Type)
			if p.omitEmpty && isEmpty(z) {
				p.zero = []byte{}
			} else {
				b, err := json.Marshal(z.Interface())
				if err != nil {
					return nil, false
				}
				p.zero = b
			}
			p.tc = &typeCodec{codec: codecConstBytes}
		}
		p.floatPtr = f.Type == reflect.TypeFor[*float64]()
		p.extra = f.Type == reflect.TypeFor[[]Metric]()
		plan = append(plan, p)
	}
	return plan, true
}

// validTagName reports whether encoding/json accepts name as a field
// name (its isValidTag).
func validTagName(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		switch {
		case strings.ContainsRune("!#$%&()*+-./:;<=>?@[]^_{|}~ ", c):
		case !unicode.IsLetter(c) && !unicode.IsDigit(c):
			return false
		}
	}
	return true
}

// isEmpty is encoding/json's omitempty test.
func isEmpty(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Array, reflect.Map, reflect.Slice, reflect.String:
		return v.Len() == 0
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64, reflect.Interface, reflect.Pointer:
		return v.IsZero()
	}
	return false
}

// The plans of Run and Measurement, built once.
var (
	runPlan, measurementPlan []fieldPlan
	// canonOK is false when a plan could not be built; ids are then
	// computed with encoding/json (the same bytes, slower).
	canonOK bool
)

func init() {
	var ok1, ok2 bool
	runPlan, ok1 = planOf(reflect.TypeFor[Run](), runLeftOut)
	measurementPlan, ok2 = planOf(reflect.TypeFor[Measurement](), measurementLeftOut)
	// appendExtra writes Metric's two fields itself.
	mt := reflect.TypeFor[Metric]()
	metricOK := mt.NumField() == 2 && mt.Field(0).Tag.Get("json") == "name" && mt.Field(0).Type.Kind() == reflect.String &&
		mt.Field(1).Tag.Get("json") == "value" && mt.Field(1).Type == reflect.TypeFor[float64]()
	canonOK = ok1 && ok2 && metricOK
}

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
	b = e.appendStruct(b, unsafe.Pointer(r), runPlan, -1)
	return append(b, `,"measurements":[`...)
}

// rows appends measurements ms, the first of which is row first of the
// matrix, handing full pieces to the sink.
func (e *canonEncoder) rows(b []byte, ms []Measurement, first int) []byte {
	for i := range ms {
		if first+i > 0 {
			b = append(b, ',')
		}
		e.rowNonFinite, e.extraNonFinite = e.rowNonFinite[:0], e.extraNonFinite[:0]
		b = e.appendStruct(b, unsafe.Pointer(&ms[i]), measurementPlan, first+i)
		e.nonFinite = append(append(e.nonFinite, e.rowNonFinite...), e.extraNonFinite...)
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
			b = appendString(b, s)
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
	var sum [sha256.Size]byte
	return hex.EncodeToString(x.h.Sum(sum[:0]))[:RunIDLen]
}

// empty is encoding/json's omitempty test for the value at p.
func empty(p unsafe.Pointer, tc *typeCodec) bool {
	switch tc.codec {
	case codecString:
		return len(*(*string)(p)) == 0
	case codecPointer:
		return *(*unsafe.Pointer)(p) == nil
	case codecSlice:
		return sliceLen(p) == 0
	case codecBool:
		return !*(*bool)(p)
	case codecInt:
		return intAt(p, tc.size) == 0
	case codecUint:
		return uintAt(p, tc.size) == 0
	case codecFloat64:
		return *(*float64)(p) == 0
	case codecStruct:
		return false
	}
	return isEmpty(reflect.NewAt(tc.typ, p).Elem())
}

// sliceLen and sliceData read the length and the array of the slice at p,
// whatever its element type.
//
// Note: every slice type has the same header (array pointer, length,
// capacity), so the slice is read as a []byte; a nil slice has no array.
func sliceLen(p unsafe.Pointer) int { return len(*(*[]byte)(p)) }

func sliceData(p unsafe.Pointer) unsafe.Pointer {
	return unsafe.Pointer(unsafe.SliceData(*(*[]byte)(p)))
}

// intAt reads a signed integer of size bytes at p.
func intAt(p unsafe.Pointer, size uintptr) int64 {
	switch size {
	case 1:
		return int64(*(*int8)(p))
	case 2:
		return int64(*(*int16)(p))
	case 4:
		return int64(*(*int32)(p))
	}
	return *(*int64)(p)
}

// uintAt reads an unsigned integer of size bytes at p.
func uintAt(p unsafe.Pointer, size uintptr) uint64 {
	switch size {
	case 1:
		return uint64(*(*uint8)(p))
	case 2:
		return uint64(*(*uint16)(p))
	case 4:
		return uint64(*(*uint32)(p))
	}
	return *(*uint64)(p)
}

// appendStruct writes the struct at base by plan. row is the
// measurement's index, or -1 outside measurements (where a NaN or ±Inf
// cannot be encoded).
func (e *canonEncoder) appendStruct(b []byte, base unsafe.Pointer, plan []fieldPlan, row int) []byte {
	b = append(b, '{')
	first := true
	for i := range plan {
		p := &plan[i]
		if p.tc.codec == codecConstBytes {
			if len(p.zero) == 0 {
				continue
			}
			if !first {
				b = append(b, ',')
			}
			first = false
			b = append(b, p.key...)
			b = append(b, p.zero...)
			continue
		}
		f := unsafe.Add(base, p.offset)
		if row >= 0 && p.floatPtr {
			if x := *(**float64)(f); x != nil && (math.IsInf(*x, 0) || math.IsNaN(*x)) {
				e.rowNonFinite = append(e.rowNonFinite, strconv.Itoa(row)+"."+p.name+"="+strconv.FormatFloat(*x, 'g', -1, 64))
				if p.omitEmpty {
					continue
				}
				if !first {
					b = append(b, ',')
				}
				first = false
				b = append(b, p.key...)
				b = append(b, "null"...)
				continue
			}
		}
		if p.omitEmpty {
			// Most such fields are nil pointers: test them inline.
			if p.tc.codec == codecPointer {
				if *(*unsafe.Pointer)(f) == nil {
					continue
				}
			} else if empty(f, p.tc) {
				continue
			}
		}
		if !first {
			b = append(b, ',')
		}
		first = false
		b = append(b, p.key...)
		if row >= 0 && p.extra {
			b = e.appendExtra(b, *(*[]Metric)(f), row)
			continue
		}
		b = e.appendValue(b, f, p.tc)
	}
	return append(b, '}')
}

// appendExtra writes a measurement's extra figures, a NaN or ±Inf one as
// 0 (listed as non-finite).
func (e *canonEncoder) appendExtra(b []byte, ms []Metric, row int) []byte {
	if len(ms) == 0 {
		return append(b, "null"...) // the copy encoding/json saw was nil
	}
	b = append(b, '[')
	for i, x := range ms {
		if i > 0 {
			b = append(b, ',')
		}
		v := x.Value
		if math.IsInf(v, 0) || math.IsNaN(v) {
			e.extraNonFinite = append(e.extraNonFinite, strconv.Itoa(row)+".extra."+x.Name+"="+strconv.FormatFloat(v, 'g', -1, 64))
			v = 0
		}
		b = append(b, `{"name":`...)
		b = appendString(b, x.Name)
		b = append(b, `,"value":`...)
		b = appendFloat(b, v)
		b = append(b, '}')
	}
	return append(b, ']')
}

// appendValue writes the value at p as encoding/json does.
func (e *canonEncoder) appendValue(b []byte, p unsafe.Pointer, tc *typeCodec) []byte {
	switch tc.codec {
	case codecString:
		return appendString(b, *(*string)(p))
	case codecBool:
		return strconv.AppendBool(b, *(*bool)(p))
	case codecInt:
		return strconv.AppendInt(b, intAt(p, tc.size), 10)
	case codecUint:
		return strconv.AppendUint(b, uintAt(p, tc.size), 10)
	case codecFloat64:
		x := *(*float64)(p)
		if math.IsInf(x, 0) || math.IsNaN(x) {
			panic("schema: run id: json: unsupported value: " + strconv.FormatFloat(x, 'g', -1, 64))
		}
		return appendFloat(b, x)
	case codecPointer:
		q := *(*unsafe.Pointer)(p)
		if q == nil {
			return append(b, "null"...)
		}
		return e.appendValue(b, q, tc.elem)
	case codecSlice:
		data := sliceData(p)
		if data == nil {
			return append(b, "null"...)
		}
		b = append(b, '[')
		n, size := sliceLen(p), tc.elem.size
		for i := 0; i < n; i++ {
			if i > 0 {
				b = append(b, ',')
			}
			b = e.appendValue(b, unsafe.Add(data, uintptr(i)*size), tc.elem)
		}
		return append(b, ']')
	case codecStruct:
		return e.appendStruct(b, p, tc.plan, -1) // not a measurement: no non-finite list
	}
	j, err := json.Marshal(reflect.NewAt(tc.typ, p).Elem().Interface())
	if err != nil {
		// Only NaN/Inf floats (or a time past year 9999) make Marshal
		// fail; measurements' non-finite figures were set aside, so any
		// left are a programming error.
		panic("schema: run id: " + err.Error())
	}
	return append(b, j...)
}

// appendFloat writes a float64 as encoding/json does: like %g, with the
// exponent cutoffs of ES6 number formatting and unpadded exponents.
func appendFloat(b []byte, f float64) []byte {
	abs := math.Abs(f)
	format := byte('f')
	if abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if format == 'e' {
		// e-09 to e-9
		n := len(b)
		if n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b
}

// appendString writes s as a JSON string the way encoding/json does:
// HTML-safe (<, >, & escaped), invalid UTF-8 as U+FFFD, U+2028 and
// U+2029 escaped.
func appendString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' && c != '<' && c != '>' && c != '&' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '\\', '"':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hex[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// marshalContent is the canonical JSON of m written by encoding/json: the
// definition canonEncoder reproduces, used when a plan cannot be built.
func marshalContent(m *Matrix) []byte {
	r := m.Run
	r.RunID, r.SourcePath, r.SourceSHA256, r.SourceFormat = "", "", "", ""
	r.IngestedAt = time.Time{}
	r.Cells = nil
	r.SchemaVersion = 0
	r.Subtitle = ""
	ms := make([]Measurement, len(m.Measurements))
	var nonFinite []string
	for i, x := range m.Measurements {
		x.RunID = ""
		x.SourceLine = 0
		x.Printed = nil
		x.Extra = append([]Metric(nil), x.Extra...) // cleared below; keep the caller's
		nonFinite = append(nonFinite, clearNonFinite(i, &x)...)
		ms[i] = x
	}
	b, err := json.Marshal(struct {
		Run          Run           `json:"run"`
		Measurements []Measurement `json:"measurements"`
		NonFinite    []string      `json:"non_finite,omitempty"`
	}{r, ms, nonFinite})
	if err != nil {
		panic("schema: run id: " + err.Error())
	}
	return b
}

// clearNonFinite sets every *float64 field of m holding NaN or ±Inf (such
// as a request rate of "inf") to nil and returns them as "row.field=value"
// strings, because encoding/json cannot encode them.
func clearNonFinite(row int, m *Measurement) []string {
	var out []string
	v := reflect.ValueOf(m).Elem()
	t := v.Type()
	for i := 0; i < v.NumField(); i++ {
		f := v.Field(i)
		p, ok := f.Interface().(*float64)
		if !ok || p == nil || !(math.IsInf(*p, 0) || math.IsNaN(*p)) {
			continue
		}
		out = append(out, strconv.Itoa(row)+"."+t.Field(i).Name+"="+strconv.FormatFloat(*p, 'g', -1, 64))
		f.Set(reflect.Zero(f.Type()))
	}
	for j, e := range m.Extra {
		if math.IsInf(e.Value, 0) || math.IsNaN(e.Value) {
			out = append(out, strconv.Itoa(row)+".extra."+e.Name+"="+strconv.FormatFloat(e.Value, 'g', -1, 64))
			m.Extra[j].Value = 0
		}
	}
	return out
}
