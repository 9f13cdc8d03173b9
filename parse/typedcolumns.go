package parse

import (
	"fmt"
	"math"
	"reflect"
	"speedmatrix/schema"
	"strings"
	"unicode/utf8"
)

// columnKinds gives the unit each numeric column is read in.
var columnKinds = [numColumns]unitKind{
	colTotal: kindRate, colPerRequest: kindRate, colTTFT: kindMillis, colTBT: kindMillis,
	colAvgActive: kindPlain, colCompleted: kindCount, colOutput: kindCount, colMeasured: kindSeconds,
}

// typedColumn is a Measurement field a column of the All measurements
// table sets when its header is the field's column name (its JSON tag),
// as render prints every figure beyond the seeds' twelve columns
// ("ttft_p90_ms", "errored_requests", "context_tokens", "repeat").
type typedColumn struct {
	name  string
	field int          // index in schema.Measurement
	kind  reflect.Kind // of the value: Float64, Int64, Int32 or String
	unit  unitKind     // the unit the value is read in
}

// notTyped are the Measurement fields no typed column sets: the row's
// identity and status, which the base columns read with their own rules,
// the base columns' figures, and what is not a figure.
var notTyped = map[string]bool{
	"RunID": true, "Phase": true, "ContextLabel": true, "Concurrency": true, "Status": true,
	"TotalTokS": true, "PerRequestTokS": true, "TTFTMs": true, "TBTMs": true, "AvgActiveRequests": true,
	"CompletedRequests": true, "OutputTokens": true, "MeasuredS": true,
	"Extra": true, "SourceLine": true, "Printed": true,
}

// typedColumns maps a column name to the field it sets, built once by
// reflection over schema.Measurement's JSON tags, so a column added to
// the schema is read back without touching the parser.
var typedColumns = func() map[string]typedColumn {
	out := map[string]typedColumn{}
	t := reflect.TypeFor[schema.Measurement]()
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if notTyped[f.Name] || name == "" || name == "-" {
			continue
		}
		ft := f.Type
		if ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		c := typedColumn{name: name, field: i, kind: ft.Kind()}
		switch c.kind {
		case reflect.Float64:
			switch {
			case strings.HasSuffix(name, "_tok_s"):
				c.unit = kindRate
			case strings.HasSuffix(name, "_ms"):
				c.unit = kindMillis
			case strings.HasSuffix(name, "_s"):
				c.unit = kindSeconds
			default:
				c.unit = kindPlain
			}
		case reflect.Int64, reflect.Int32:
			c.unit = kindCount
		case reflect.String:
			if f.Type != reflect.TypeFor[string]() {
				continue // a named string type (Phase, Status) has its own rules
			}
		default:
			continue
		}
		out[name] = c
	}
	return out
}()

// typedColumnOf returns the typed column a header names, if any: the
// header is a column name, matched without surrounding space or case.
//
// Note: an ASCII header is lower-cased on the stack as strings.ToLower
// would (it allocated a copy of each header of each table, half of
// tableColumns' time).
func typedColumnOf(header string) (typedColumn, bool) {
	h := trimSpace(header)
	var buf [64]byte
	if b, ok := appendLowerASCII(buf[:0], h); ok && len(h) <= len(buf) {
		c, ok := typedColumns[string(b)]
		return c, ok
	}
	c, ok := typedColumns[strings.ToLower(h)]
	return c, ok
}

// appendLowerASCII appends strings.ToLower(s) to b when s is ASCII; ok is
// false (and b unusable) when it is not.
func appendLowerASCII(b []byte, s string) ([]byte, bool) {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= utf8.RuneSelf {
			return b, false
		}
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		b = append(b, c)
	}
	return b, true
}

// set stores a cell's text in the column's field of m. A null text ("—")
// makes the field null (empty for a string).
func (c typedColumn) set(m *schema.Measurement, text string) error {
	f := reflect.ValueOf(m).Elem().Field(c.field)
	t := trimSpace(text)
	if nullTexts[t] {
		f.SetZero() // null: context_tokens "—" is no token count, not the label's
		return nil
	}
	if c.kind == reflect.String {
		f.SetString(t)
		return nil
	}
	var v float64
	if inf, ok := infinity(t); ok && c.kind == reflect.Float64 {
		v = inf
	} else {
		q, err := parseQuantity(t)
		if err == nil {
			q, err = q.convert(c.unit)
		}
		if err != nil {
			return err
		}
		v = q.Value
	}
	switch c.kind {
	case reflect.Float64:
		f.Set(reflect.ValueOf(&v))
	case reflect.Int64:
		n := int64(v)
		f.Set(reflect.ValueOf(&n))
	case reflect.Int32:
		if v < math.MinInt32 || v > math.MaxInt32 {
			return fmt.Errorf("%v is out of range", v)
		}
		n := int32(v)
		f.Set(reflect.ValueOf(&n))
	}
	return nil
}

// infinity reads the printings of an infinite figure ("inf", "Infinity",
// "-inf"), which other tools write for an unbounded request rate.
func infinity(s string) (float64, bool) {
	switch strings.ToLower(s) {
	case "inf", "+inf", "infinity", "+infinity", "∞":
		return math.Inf(1), true
	case "-inf", "-infinity", "−inf", "−infinity", "-∞", "−∞":
		return math.Inf(-1), true
	}
	return 0, false
}

// identityColumns are the base columns that identify a row.
var identityColumns = [numColumns]bool{colPhase: true, colContext: true, colConcurrency: true, colStatus: true}

// tableColumns resolves the header of the All measurements table: the
// base column each header is, or the typed column it names. A header
// that names a typed column sets that field ("context_tokens" beside
// "Context", "ttft_p50_ms" beside "TTFT"), unless it is the table's only
// column for a base identity column ("context_tokens" alone is the
// context). A second header for a base column is kept as an extra.
func tableColumns(header []string) ([]column, []*typedColumn, [numColumns]int) {
	cols := make([]column, len(header))
	typed := make([]*typedColumn, len(header))
	// One array for the typed columns: a header of a dozen names was a
	// dozen allocations per table.
	tcs := make([]typedColumn, len(header))
	var plain [numColumns]bool // base columns some header names without being a typed column
	for i, h := range header {
		cols[i] = columnOf(h)
		if tc, ok := typedColumnOf(h); ok {
			tcs[i] = tc
			typed[i] = &tcs[i]
		} else {
			plain[cols[i]] = true
		}
	}
	var at [numColumns]int // header index + 1 of each base column
	for i := range header {
		c := cols[i]
		if typed[i] != nil {
			if c != colUnknown && identityColumns[c] && !plain[c] && at[c] == 0 {
				typed[i] = nil // the table's only column for c
			} else {
				cols[i] = colUnknown
				continue
			}
		}
		if c != colUnknown && at[c] != 0 {
			c = colUnknown // a second column with a known name is kept as an extra
		}
		cols[i] = c
		if c != colUnknown {
			at[c] = i + 1
		}
	}
	return cols, typed, at
}
