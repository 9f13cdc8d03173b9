package canonjson

import (
	"encoding/json"
	"math"
	"reflect"
	"strconv"
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

// Encoder writes structs by their plans. It keeps the non-finite
// figures of the last row it wrote (see AppendStruct); its zero value is
// ready to use, and one Encoder is not for concurrent use.
type Encoder struct {
	// rowNonFinite and figureNonFinite collect one row's NaN/±Inf
	// figures: columns first, then the figures list, as NonFinite
	// returns them.
	rowNonFinite    []string
	figureNonFinite []string
}

// AppendStruct appends the canonical JSON of the struct at p, of the
// type plan was made for, to b. row is the index of the struct among the
// rows of a table, or -1 outside a table: in a row, a NaN or ±Inf
// *float64 is written as null (or omitted when omitempty) and a NaN or
// ±Inf figure as 0, each listed as "row.Field=value" (a figure
// "row.extra.name=value") for NonFinite; outside a row they panic, as
// encoding/json fails on them.
func (e *Encoder) AppendStruct(b []byte, p unsafe.Pointer, plan *Plan, row int) []byte {
	e.rowNonFinite, e.figureNonFinite = e.rowNonFinite[:0], e.figureNonFinite[:0]
	return e.appendStruct(b, p, plan.fields, row)
}

// NonFinite appends to dst the non-finite figures of the row the last
// AppendStruct wrote: its columns in field order, then its figures.
func (e *Encoder) NonFinite(dst []string) []string {
	return append(append(dst, e.rowNonFinite...), e.figureNonFinite...)
}

// appendStruct writes the struct at base by plan (see AppendStruct).
func (e *Encoder) appendStruct(b []byte, base unsafe.Pointer, plan []fieldPlan, row int) []byte {
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
				panic("canonjson: json: unsupported value: " + strconv.FormatFloat(*x, 'g', -1, 64))
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
				b = AppendString(b, s)
			}
		case opFigures:
			ms := *(*[]figure)(f)
			if p.omitEmpty && len(ms) == 0 {
				continue
			}
			b = append(b, p.key...)
			if row < 0 {
				b = e.appendValue(b, f, p.tc)
			} else {
				b = e.appendFigures(b, ms, row)
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

// figure is the layout of a figures list's element (see opFigures).
type figure struct {
	Name  string
	Value float64
}

// appendFigures writes a row's list of named figures, a NaN or ±Inf one
// as 0 (listed as non-finite).
func (e *Encoder) appendFigures(b []byte, ms []figure, row int) []byte {
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
			e.figureNonFinite = append(e.figureNonFinite, strconv.Itoa(row)+".extra."+x.Name+"="+strconv.FormatFloat(v, 'g', -1, 64))
			v = 0
		}
		b = append(b, `{"name":`...)
		b = AppendString(b, x.Name)
		b = append(b, `,"value":`...)
		b = appendFloat(b, v)
		b = append(b, '}')
	}
	return append(b, ']')
}

// appendValue writes the value at p as encoding/json does.
func (e *Encoder) appendValue(b []byte, p unsafe.Pointer, tc *typeCodec) []byte {
	switch tc.codec {
	case codecString:
		return AppendString(b, *(*string)(p))
	case codecBool:
		return strconv.AppendBool(b, *(*bool)(p))
	case codecInt:
		return strconv.AppendInt(b, intAt(p, tc.size), 10)
	case codecUint:
		return strconv.AppendUint(b, uintAt(p, tc.size), 10)
	case codecFloat64:
		x := *(*float64)(p)
		if math.IsInf(x, 0) || math.IsNaN(x) {
			panic("canonjson: json: unsupported value: " + strconv.FormatFloat(x, 'g', -1, 64))
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
		panic("canonjson: " + err.Error())
	}
	return append(b, j...)
}

// AppendString appends s as a JSON string the way encoding/json does:
// HTML-safe (<, >, & escaped), invalid UTF-8 as U+FFFD, U+2028 and
// U+2029 escaped.
func AppendString(b []byte, s string) []byte {
	n := plainRun(s)
	b = append(b, '"')
	if n == len(s) {
		b = append(b, s...) // most strings: nothing to escape
		return append(b, '"')
	}
	return appendEscaped(b, s, n)
}

// appendEscaped goes on with AppendString of s after the opening quote,
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

// plainASCII marks the bytes AppendString copies as they are: ASCII
// but for control characters, " \ < > &.
//
// Note: AppendString was 42K of a seed parse's 1.1M instructions outside
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
