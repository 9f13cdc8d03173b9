package schema

import (
	"encoding/json"
	"math"
	"reflect"
	"strconv"
	"time"
	"unicode/utf8"
	"unsafe"
)

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
	// Every field's text begins with a comma: the first one's becomes
	// the opening brace.
	start := len(b)
	for i := 0; i < len(plan); i++ {
		p := &plan[i]
		f := unsafe.Add(base, p.offset)
		if p.nilRun > 0 && allNil(f, p.nilRun) {
			i += p.nilRun - 1
			continue // most fields of a seed's measurement, at once
		}
		if p.nilOmitted && *(*unsafe.Pointer)(f) == nil {
			continue // most fields of a measurement
		}
		switch p.op {
		case opConst:
			b = append(b, p.lit...)
		case opFloatPtr:
			x := *(**float64)(f)
			switch {
			case x == nil: // not omitted: nilOmitted skipped those
				b = append(b, p.null...)
			case !math.IsInf(*x, 0) && !math.IsNaN(*x):
				b = append(b, p.key...)
				b = appendFloat(b, *x)
			case row < 0:
				panic("schema: run id: json: unsupported value: " + strconv.FormatFloat(*x, 'g', -1, 64))
			default:
				e.rowNonFinite = append(e.rowNonFinite, strconv.Itoa(row)+"."+p.name+"="+strconv.FormatFloat(*x, 'g', -1, 64))
				if !p.omitEmpty {
					b = append(b, p.null...)
				}
			}
		case opIntPtr:
			if x := *(*unsafe.Pointer)(f); x != nil {
				b = append(b, p.key...)
				b = strconv.AppendInt(b, intAt(x, p.size), 10)
			} else {
				b = append(b, p.null...) // as above
			}
		case opString:
			if s := *(*string)(f); s != "" || !p.omitEmpty {
				b = append(b, p.key...)
				b = appendString(b, s)
			}
		case opExtra:
			ms := *(*[]Metric)(f)
			if p.omitEmpty && len(ms) == 0 {
				continue
			}
			b = append(b, p.key...)
			if row < 0 {
				b = e.appendValue(b, f, p.tc)
			} else {
				b = e.appendExtra(b, ms, row)
			}
		default:
			if p.omitEmpty && empty(f, p.tc) {
				continue
			}
			b = append(b, p.key...)
			b = e.appendValue(b, f, p.tc)
		}
	}
	if len(b) == start {
		return append(b, "{}"...)
	}
	b[start] = '{'
	return append(b, '}')
}

// allNil reports whether the n pointers at p are all nil.
//
// Note: the pointers are read as words and or-ed four at a time, without
// a branch per pointer (a branch per pointer cost as much as the plan's
// loop it replaces); they are only read, never kept.
func allNil(p unsafe.Pointer, n int) bool {
	ws := unsafe.Slice((*uintptr)(p), n)
	var or uintptr
	for len(ws) >= 4 {
		or |= ws[0] | ws[1] | ws[2] | ws[3]
		ws = ws[4:]
	}
	for _, w := range ws {
		or |= w
	}
	return or == 0
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

// appendString writes s as a JSON string the way encoding/json does:
// HTML-safe (<, >, & escaped), invalid UTF-8 as U+FFFD, U+2028 and
// U+2029 escaped.
func appendString(b []byte, s string) []byte {
	n := plainRun(s)
	b = append(b, '"')
	if n == len(s) {
		b = append(b, s...) // most strings: nothing to escape
		return append(b, '"')
	}
	return appendEscaped(b, s, n)
}

// appendEscaped goes on with appendString of s after the opening quote,
// from its first byte i that is not plainASCII.
func appendEscaped(b []byte, s string, i int) []byte {
	const hex = "0123456789abcdef"
	start := 0
	for i < len(s) {
		i += plainRun(s[i:])
		if i == len(s) {
			break
		}
		if c := s[i]; c < utf8.RuneSelf {
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

// plainRun returns how many bytes s starts with that are plainASCII.
func plainRun(s string) int {
	for i := 0; i < len(s); i++ {
		if !plainASCII[s[i]] {
			return i
		}
	}
	return len(s)
}

// plainASCII marks the bytes appendString copies as they are: ASCII
// but for control characters, " \ < > &.
//
// Note: appendString was 42K of a seed parse's 1.1M instructions outside
// SHA-256 (`valgrind --tool=cachegrind parse.test -test.bench
// '^BenchmarkParseText$/000' -test.benchtime 1000x -test.cpu 1`), about
// 130 a string: its loop kept its variables on the stack, 14
// instructions a byte, and every call set up the frame of the escaping
// code. The bytes of a run of plain ones are now skipped by a loop of
// their own (plainRun) over a table of all 256 bytes, and a string with
// nothing to escape (most) is copied whole without entering
// appendEscaped.
var plainASCII = func() (t [256]bool) {
	for c := byte(0x20); c < utf8.RuneSelf; c++ {
		t[c] = c != '"' && c != '\\' && c != '<' && c != '>' && c != '&'
	}
	return t
}()

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
