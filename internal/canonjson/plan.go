package canonjson

import (
	"encoding"
	"encoding/json"
	"reflect"
	"strings"
	"unicode"
	"unsafe"
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
	codecStruct  // a struct with a plan of its own
	codecSlice   // a slice of an element with a codec of its own
	codecPointer // a pointer to an element with a codec of its own
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

// fieldPlan is one field of a struct as the encoder writes it, or a run
// of left-out fields written as one constant.
type fieldPlan struct {
	op     op
	offset uintptr
	name   string // Go field name, for the non-finite list
	// key is `,"json_name":`; the comma before the first field written
	// of a struct becomes its opening brace.
	key string
	// null is `,"json_name":null`, written for a nil pointer that is
	// not omitted.
	null      string
	omitEmpty bool
	size      uintptr // of the integer of opIntPtr
	tc        *typeCodec
	// lit is what opConst writes: the keys and zero values of adjacent
	// left-out fields, each after a comma (`,"run_id":"","cells":…`).
	lit string
	// nilOmitted marks a pointer omitted when nil: most fields of a
	// measurement are, and the encoder skips them first.
	nilOmitted bool
	// nilRun, on the first of adjacent nilOmitted fields that lie one
	// after the other in memory, is how many they are (0 elsewhere):
	// when all are nil the encoder skips them with one look.
	nilRun int
}

// op is how the encoder writes a field: the kinds that fill a seed's
// measurements have an op of their own, anything else goes through
// appendValue.
//
// Note: a measurement's row was a loop over its 60 fields that sent
// most written values through two levels of appendValue and wrote each
// key and each null apart. With an op per kind, the nulls and the
// left-out fields precomputed (adjacent ones as one constant, those
// omitted when empty dropped from the plan), and integral figures
// written as integers, the id of a seed document (46 rows, 16 KB of
// canonical JSON) costs 28.7 CPU-µs against 36.4 (1.27×; SHA-256 is
// about 11 of them): 5 interleaved runs each of `schema.test -test.bench
// RunIDSeed -test.benchtime 50000x` under /usr/bin/time, at main d3f3e1c
// and here, on 2 loaded cores.
type op uint8

const (
	opValue    op = iota // appendValue of tc; omitted when empty() if omitEmpty
	opConst              // lit
	opString             // a string (of any string type)
	opFloatPtr           // a *float64: null, a figure, or a non-finite one set aside
	opIntPtr             // a pointer to a signed integer of size bytes
	opFigures            // a slice of {Name string; Value float64} (see figuresType)
)

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
		key := "," + string(AppendString(nil, name)) + ":"
		p := fieldPlan{offset: f.Offset, name: f.Name, key: key, null: key + "null", tc: codecOf(f.Type)}
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
				continue // never written
			}
			b, err := json.Marshal(z.Interface())
			if err != nil {
				return nil, false
			}
			p.op, p.lit = opConst, key+string(b)
			if n := len(plan); n > 0 && plan[n-1].op == opConst {
				plan[n-1].lit += p.lit
				continue
			}
			plan = append(plan, p)
			continue
		}
		switch tc := p.tc; {
		case f.Type == reflect.TypeFor[*float64]():
			p.op = opFloatPtr
		case isFigures(f.Type):
			p.op = opFigures
		case tc.codec == codecString:
			p.op = opString
		case tc.codec == codecPointer && tc.elem.codec == codecInt:
			p.op, p.size = opIntPtr, tc.elem.size
		}
		// encoding/json omits a nil pointer before it looks for a
		// marshaler: *time.Time (StartedAt, FinishedAt) is one too.
		p.nilOmitted = p.omitEmpty && f.Type.Kind() == reflect.Pointer
		plan = append(plan, p)
	}
	markNilRuns(plan)
	return plan, true
}

// markNilRuns sets nilRun on the first field of every run of two or more
// nilOmitted pointers that follow one another in the plan and in memory.
//
// Note: a seed's measurement prints 5 of its 42 pointer fields; the 31
// distribution, token, server and loop figures it leaves nil are
// adjacent (TTFTMeanMs … LoopCycles), and were 31 turns of the plan's
// loop per row, each loading a plan entry and a pointer and branching.
// Skipped as one run (allNil), appendStruct runs 9.7% fewer
// instructions for a seed's id (73.9K → 66.7K; the whole id 712K →
// 704K, SHA-256 on its AVX2 path 500K of them): `valgrind
// --tool=cachegrind --cache-sim=no schema.test -test.run XXX -test.bench
// RunIDSeed -test.benchtime 3000x -test.cpu 1` and cg_annotate, main
// a241ecf against this (instruction counts: the machine's load made
// timings differ by more than the change).
func markNilRuns(plan []fieldPlan) {
	ptr := reflect.TypeFor[unsafe.Pointer]().Size()
	for i := 0; i < len(plan); {
		j := i + 1
		for plan[i].nilOmitted && j < len(plan) && plan[j].nilOmitted && plan[j].offset == plan[j-1].offset+ptr {
			j++
		}
		if j-i > 1 {
			plan[i].nilRun = j - i
		}
		i = j
	}
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

// Plan is how values of one struct type are written.
type Plan struct {
	fields []fieldPlan
}

// NewPlan returns the plan of struct type t, whose fields named in
// leftOut (Go names) are written as their zero values. It reports false
// for a struct whose field rules it does not reproduce (embedded
// fields, the ",string" and ",omitzero" options); such a value must be
// written by encoding/json.
func NewPlan(t reflect.Type, leftOut map[string]bool) (*Plan, bool) {
	if t.Kind() != reflect.Struct {
		return nil, false
	}
	fields, ok := planOf(t, leftOut)
	if !ok {
		return nil, false
	}
	return &Plan{fields: fields}, true
}

// isFigures reports whether t is a slice of a struct of exactly two
// fields, a string tagged "name" and a float64 tagged "value" (schema's
// []Metric): the list of a row's figures without a column of their own,
// whose non-finite values AppendStruct sets aside in a row. Its elements
// are read as figure, which has their layout.
func isFigures(t reflect.Type) bool {
	if t.Kind() != reflect.Slice || t.Elem().Kind() != reflect.Struct {
		return false
	}
	e := t.Elem()
	return e.NumField() == 2 && e.Size() == reflect.TypeFor[figure]().Size() &&
		e.Field(0).Tag.Get("json") == "name" && e.Field(0).Type == reflect.TypeFor[string]() && e.Field(0).Offset == 0 &&
		e.Field(1).Tag.Get("json") == "value" && e.Field(1).Type == reflect.TypeFor[float64]() &&
		e.Field(1).Offset == reflect.TypeFor[figure]().Field(1).Offset
}
