package parse

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"
)

// quantity is one printed figure, normalized: "1,627.8" is 1627.8, "55K"
// is 55000, "3.1 ms" is 3.1 with unit "ms". Step is the resolution the
// figure was printed at, in Value's units (0.1 for "3.1", 100 for "57.5K",
// 1 for "9,756"), so two printings of one measured value can be compared
// at the coarser of their precisions.
type quantity struct {
	Value float64
	Unit  string // canonical unit: "", "ms", "s", "us", "min", "tok/s", "tokens", "requests", "GB", "TB", "%"
	Step  float64
	Null  bool // printed as "—", "-", "n/a" or nothing
}

// nullTexts are the printings of "no value".
var nullTexts = map[string]bool{"": true, "—": true, "–": true, "-": true, "n/a": true, "N/A": true, "na": true, "NA": true}

// unitAliases maps a printed unit (lower-cased) to its canonical form.
var unitAliases = map[string]string{
	"ms": "ms", "msec": "ms", "millisecond": "ms", "milliseconds": "ms",
	"s": "s", "sec": "s", "secs": "s", "second": "s", "seconds": "s",
	"us": "us", "µs": "us", "μs": "us",
	"min": "min", "mins": "min", "minute": "min", "minutes": "min",
	"tok/s": "tok/s", "tokens/s": "tok/s", "t/s": "tok/s", "tps": "tok/s", "tok/sec": "tok/s", "tokens/sec": "tok/s",
	"tokens": "tokens", "token": "tokens", "tok": "tokens", "toks": "tokens",
	"requests": "requests", "request": "requests", "req": "requests", "reqs": "requests",
	"gb": "GB", "gib": "GB", "tb": "TB", "tib": "TB",
	"%": "%",
}

// parseQuantity reads one printed figure: an optional sign, digits with
// optional thousands commas (groups of exactly three), an optional
// fraction, an optional K or M multiplier glued to the digits, and an
// optional unit. A figure that is none of these (garbled digits, a stray
// comma, text) is an error.
//
// Note: a hand-written scanner rather than strconv alone, because the
// documents use thousands separators and K/M suffixes, and rather than a
// regexp because the glued-cell splitter calls it for every split point.
func parseQuantity(s string) (quantity, error) {
	s = trimSpace(s)
	q, bad := scanQuantity(s)
	if bad != qOK {
		return quantity{}, bad.err(s)
	}
	return q, nil
}

// qFault says why a figure did not read; qOK when it did.
type qFault uint8

const (
	qOK          qFault = iota
	qMalformed          // a stray comma, an unreadable float
	qNotNumber          // no digits
	qGroups             // thousands groups not of three digits
	qLeadingZero        // "0123"
	qNoFraction         // "12."
	qUnknownUnit        // "12 parsecs"
)

// err is the error parseQuantity reports for a fault of trimmed s.
func (f qFault) err(s string) error {
	switch f {
	case qNotNumber:
		return fmt.Errorf("not a number: %q", s)
	case qGroups:
		return fmt.Errorf("malformed number %q (thousands groups must have three digits)", s)
	case qLeadingZero:
		return fmt.Errorf("malformed number %q (leading zero)", s)
	case qNoFraction:
		return fmt.Errorf("malformed number %q (no digits after the point)", s)
	case qUnknownUnit:
		_, _, _, rest := scanNumber(s, false)
		return fmt.Errorf("malformed number %q (unknown unit %q)", s, trimSpace(s[rest:]))
	}
	return fmt.Errorf("malformed number %q", s)
}

// scanQuantity is parseQuantity for s already trimmed, with the fault as
// a code: the glued-cell splitter tries many split points that do not
// read, and formatting an error for each was most of its time.
func scanQuantity(s string) (quantity, qFault) {
	return scanQuantityOf(s, true)
}

// checkQuantity is scanQuantity without the value (Value and Step are 0):
// whether s reads as a figure, null or with which unit.
func checkQuantity(s string) (quantity, qFault) {
	return scanQuantityOf(s, false)
}

func scanQuantityOf(s string, value bool) (quantity, qFault) {
	v, step, unit, null, bad := scanFigure(s, value)
	if bad != qOK {
		return quantity{}, bad
	}
	return quantity{Value: v, Unit: unit, Step: step, Null: null}, qOK
}

// scanFigure is scanQuantityOf with the quantity's fields as results.
//
// Note: a quantity (40 bytes) is more than the compiler keeps in
// registers, so returning one is stored and loaded through memory at each
// call; scalar results stay in registers. Returning the quantity from
// scanNumber and again from scanQuantityOf was a third of their time:
// BenchmarkScanQuantity (`parse.test -test.bench ScanQuantity
// -test.benchtime 50000x`, 4 interleaved runs with the quantity results,
// loaded machine) 44–90 → 33–56 ns per figure, 1.35–1.6×.
func scanFigure(s string, value bool) (v, step float64, unit string, null bool, bad qFault) {
	if isNullText(s) {
		return 0, 0, "", true, qOK
	}
	v, step, bad, i := scanNumber(s, value)
	if bad != qOK {
		return 0, 0, "", false, bad
	}
	if i < len(s) {
		rest := trimSpace(s[i:])
		if rest != "" {
			u, ok := unitOf(rest)
			if !ok {
				return 0, 0, "", false, qUnknownUnit
			}
			unit = u
		}
	}
	return v, step, unit, false, qOK
}

// scanNumber reads the number at the start of non-empty, trimmed s (sign,
// digits, fraction, K/M) and returns its value and step (see quantity), or
// why it could not, with the offset of what follows. Without value it only
// checks the number's form (v and step are 0), which is all the glued-cell
// splitter needs of most split points.
func scanNumber(s string, value bool) (v, step float64, fault qFault, next int) {
	i := 0
	neg := false
	switch {
	case strings.HasPrefix(s, "−"): // U+2212 minus sign
		neg, i = true, len("−")
	case s[0] == '-':
		neg, i = true, 1
	case s[0] == '+':
		i = 1
	}
	start := i
	// mant accumulates the digits (of the first 19, the rest are
	// counted in nd) for the exact conversion below.
	var mant uint64
	nd := 0
	group := 0 // digits in the current comma group
	commas := false
	for i < len(s) {
		c := s[i]
		if c >= '0' && c <= '9' {
			if nd < 19 {
				mant = mant*10 + uint64(c-'0')
			}
			nd++
			group++
			i++
			continue
		}
		if c == ',' {
			if group == 0 || (!commas && group > 3) || (commas && group != 3) {
				return 0, 0, qMalformed, i
			}
			commas = true
			group = 0
			i++
			continue
		}
		break
	}
	intLen := i - start
	if intLen == 0 {
		return 0, 0, qNotNumber, i
	}
	if commas && group != 3 {
		return 0, 0, qGroups, i
	}
	if intLen > 1 && s[start] == '0' {
		return 0, 0, qLeadingZero, i
	}
	decimals := 0
	if i < len(s) && s[i] == '.' {
		i++
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			if nd < 19 {
				mant = mant*10 + uint64(s[i]-'0')
			}
			nd++
			decimals++
			i++
		}
		if decimals == 0 {
			return 0, 0, qNoFraction, i
		}
	}
	num := s[start:i]
	mult, shift := 1.0, 0
	if i < len(s) {
		switch s[i] {
		case 'K', 'k':
			// "55K" but not a unit word that starts with k.
			if i+1 == len(s) || !isLetter(s[i+1]) {
				mult, shift, i = 1e3, 3, i+1
			}
		case 'M':
			if i+1 == len(s) || !isLetter(s[i+1]) {
				mult, shift, i = 1e6, 6, i+1
			}
		}
	}
	if !value && len(num) < 200 {
		// Fewer than 200 digits cannot overflow: the form is all there
		// is to check.
		return 0, 0, qOK, i
	}
	// Note: a K or M figure is read with its decimal point shifted
	// ("32.2e3"), not as the mantissa times 1,000: 32.2 × 1,000 is
	// 32200.000000000004 in float64, while "32.2K" means exactly 32,200.
	// With at most 15 digits and a power of ten up to 1e22 (both exact
	// in float64) one multiplication or division is correctly rounded,
	// so it equals strconv.ParseFloat (which is); other figures go to
	// ParseFloat itself.
	if e := shift - decimals; nd <= 15 && e >= -22 && e <= 22 {
		v = float64(mant)
		if e >= 0 {
			v *= exactPow10[e]
		} else {
			v /= exactPow10[-e]
		}
	} else {
		t := strings.ReplaceAll(num, ",", "")
		switch shift {
		case 3:
			t += "e3"
		case 6:
			t += "e6"
		}
		var err error
		v, err = strconv.ParseFloat(t, 64)
		if err != nil || math.IsInf(v, 0) {
			return 0, 0, qMalformed, i
		}
	}
	if neg {
		v = -v
	}
	return v, pow10(-decimals) * mult, qOK, i
}

// exactPow10 are the powers of ten float64 holds exactly.
var exactPow10 = [...]float64{1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10,
	1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22}

// pow10 is math.Pow10 with the common small exponents from a table.
func pow10(n int) float64 {
	if n <= 0 && n > -len(negPow10) {
		return negPow10[-n]
	}
	return math.Pow10(n)
}

var negPow10 = [...]float64{1, 1e-1, 1e-2, 1e-3, 1e-4, 1e-5, 1e-6, 1e-7, 1e-8, 1e-9, 1e-10, 1e-11, 1e-12, 1e-13, 1e-14, 1e-15}

// isNullText reports whether s (trimmed) is a printing of "no value":
// nullTexts as a switch, for the hot paths.
func isNullText(s string) bool {
	switch s {
	case "", "—", "–", "-", "n/a", "N/A", "na", "NA":
		return true
	}
	return false
}

// unitOf returns the canonical form of a printed unit (matched without
// case), as unitAliases says.
func unitOf(u string) (string, bool) {
	switch u { // the usual printings
	case "ms", "s", "tok/s":
		return u, true
	}
	if c, ok := unitAliases[u]; ok { // already lower case, the usual printing
		return c, true
	}
	c, ok := unitAliases[strings.ToLower(u)]
	return c, ok
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= utf8.RuneSelf }

// unitKind says which units a column accepts and how they convert.
type unitKind int

const (
	kindPlain   unitKind = iota // no unit
	kindRate                    // tok/s
	kindMillis                  // milliseconds (s and us converted)
	kindSeconds                 // seconds (ms and min converted)
	kindCount                   // a whole number (tokens, requests)
)

// convert checks q's unit against kind and returns the value in the
// kind's unit, with the step scaled alike.
func (q quantity) convert(kind unitKind) (quantity, error) {
	c, bad := q.conv(kind)
	switch bad {
	case convOK:
		return c, nil
	case convUnit:
		switch kind {
		case kindPlain:
			return q, fmt.Errorf("unexpected unit %q", q.Unit)
		case kindRate:
			return q, fmt.Errorf("unit %q is not tok/s", q.Unit)
		case kindMillis, kindSeconds:
			return q, fmt.Errorf("unit %q is not a time", q.Unit)
		}
		return q, fmt.Errorf("unit %q is not a count", q.Unit)
	}
	return q, fmt.Errorf("%v is not a whole number", q.Value)
}

// convFault says why conv failed; convOK when it did not.
type convFault uint8

const (
	convOK    convFault = iota
	convUnit            // the unit does not fit the kind
	convWhole           // a count that is not a whole number
)

// conv is convert with the fault as a code, for the glued-cell readings
// that try units that do not fit.
func (q quantity) conv(kind unitKind) (quantity, convFault) {
	scale, bad := q.convScale(kind)
	if bad != convOK {
		return q, bad
	}
	q.Value *= scale
	q.Step *= scale
	if q.Unit != "" && kind != kindPlain {
		switch kind {
		case kindRate:
			q.Unit = "tok/s"
		case kindMillis:
			q.Unit = "ms"
		case kindSeconds:
			q.Unit = "s"
		case kindCount:
			q.Unit = ""
		}
	}
	return q, convOK
}

// convScale is the factor conv multiplies q's value and step by to give
// them in kind's unit, or why it cannot.
//
// Note: readRange takes only the factor: returning the converted quantity
// (a string and three words) was 0.14 of conv's 0.18 s there, in a
// profile of Ingest1000/command.
func (q *quantity) convScale(kind unitKind) (float64, convFault) {
	return unitScale(q.Unit, q.Value, kind)
}

// unitScale is convScale of a quantity of value v in unit.
func unitScale(unit string, v float64, kind unitKind) (float64, convFault) {
	scale := 1.0
	switch kind {
	case kindPlain:
		if unit != "" && unit != "requests" {
			return 0, convUnit
		}
	case kindRate:
		if unit != "" && unit != "tok/s" {
			return 0, convUnit
		}
	case kindMillis:
		switch unit {
		case "", "ms":
		case "s":
			scale = 1e3
		case "us":
			scale = 1e-3
		case "min":
			scale = 6e4
		default:
			return 0, convUnit
		}
	case kindSeconds:
		switch unit {
		case "", "s":
		case "ms":
			scale = 1e-3
		case "us":
			scale = 1e-6
		case "min":
			scale = 60
		default:
			return 0, convUnit
		}
	case kindCount:
		switch unit {
		case "", "tokens", "requests":
		default:
			return 0, convUnit
		}
		if v != math.Trunc(v) || math.Abs(v) > 1<<53 {
			return 0, convWhole
		}
	}
	return scale, convOK
}

// agrees reports whether a and b can be two printings of one value: they
// differ by no more than half the coarser printed step (plus a little for
// floating-point noise). "13K" agrees with "13,012.3"; "6,091.1" does not
// agree with "6,091.2".
func agrees(a, b quantity) bool {
	if a.Null || b.Null {
		return a.Null == b.Null
	}
	tol := math.Max(a.Step, b.Step)/2 + 1e-9*math.Max(math.Abs(a.Value), math.Abs(b.Value))
	return math.Abs(a.Value-b.Value) <= tol
}

// sameValue reports whether a and b are equal as normalized values, to
// floating-point noise.
func sameValue(a, b quantity) bool {
	if a.Null || b.Null {
		return a.Null == b.Null
	}
	return math.Abs(a.Value-b.Value) <= 1e-9*math.Max(1, math.Max(math.Abs(a.Value), math.Abs(b.Value)))
}
