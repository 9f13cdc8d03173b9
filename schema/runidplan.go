package schema

import (
	"encoding"
	"encoding/json"
	"reflect"
	"strings"
	"unicode"
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
	commaKey  string // `,"json_name":`
	omitEmpty bool
	tc        *typeCodec
	codec     codec // tc.codec, read without following tc
	// zero is the encoding of the zero value of a left-out field ("" for
	// one omitted when empty).
	zero []byte
	// nilOmitted marks a pointer omitted when nil: most fields of a
	// measurement are, and the encoder skips them first.
	nilOmitted bool
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
		p.codec, p.commaKey = p.tc.codec, ","+p.key
		p.nilOmitted = p.omitEmpty && p.tc.codec == codecPointer
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
