package render

import (
	"math"
	"strconv"
	"strings"
)

// None is what a document prints for a figure it does not have.
const None = "—"

// Note: every formatter here prints the seeds' style (55K, 1,627.8, 41 ms,
// 3.1 ms, 30.0 s) when that text reads back as exactly the same float64,
// and otherwise prints as many more decimals as the value needs to read
// back exactly. A matrix parsed from a document therefore re-renders byte
// for byte, and a measuring run's full-precision figures survive a trip
// through a document. strconv's shortest round-trip formatting does the
// hard part; no formatting library offers "this style unless lossy".

// FormatTokS formats a rate in tokens per second the way the seeds do:
// three significant digits with a K suffix at 10,000 and above ("55K",
// "57.5K", "11.4K"), else one decimal with thousands separators
// ("1,627.8", "325.2"). A value the short form would round is printed with
// the decimals it needs instead ("12,987.34"). NaN and infinities print
// as None.
func FormatTokS(v float64) string {
	if bad(v) {
		return None
	}
	if k, ok := kilo(v); ok {
		return k
	}
	return FormatDecimal(v, 1)
}

// FormatMs formats a latency in milliseconds as the seeds print TTFT:
// whole milliseconds with thousands separators and a unit ("1,388 ms"),
// with decimals only when the value has them ("41.25 ms").
func FormatMs(v float64) string {
	if bad(v) {
		return None
	}
	return FormatDecimal(v, 0) + " ms"
}

// FormatTBT formats a latency in milliseconds as the seeds print the time
// between tokens: at least one decimal and a unit ("3.1 ms").
func FormatTBT(v float64) string {
	if bad(v) {
		return None
	}
	return FormatDecimal(v, 1) + " ms"
}

// FormatSeconds formats a duration in seconds as the seeds print
// "Measured for": at least one decimal and a unit ("30.0 s").
func FormatSeconds(v float64) string {
	if bad(v) {
		return None
	}
	return FormatDecimal(v, 1) + " s"
}

// FormatCount formats a count with thousands separators ("9,756").
func FormatCount(n int64) string {
	s := strconv.FormatInt(n, 10)
	if n < 0 {
		return "-" + group(s[1:])
	}
	return group(s)
}

// FormatDecimal formats v with thousands separators and at least min
// decimals, more when v needs them to read back exactly: FormatDecimal(1,
// 1) is "1.0", FormatDecimal(3.25, 1) is "3.25". NaN and infinities print
// as None.
func FormatDecimal(v float64, min int) string {
	if bad(v) {
		return None
	}
	s := strconv.FormatFloat(v, 'f', -1, 64)
	neg := strings.HasPrefix(s, "-")
	if neg {
		s = s[1:]
	}
	ip, fp, _ := strings.Cut(s, ".")
	if len(fp) < min {
		fp += strings.Repeat("0", min-len(fp))
	}
	out := group(ip)
	if fp != "" {
		out += "." + fp
	}
	if neg && strings.Trim(s, "0.") != "" {
		out = "-" + out
	}
	return out
}

// kilo returns v in the seeds' K form when v is in [10,000, 1,000,000)
// and the K form reads back as exactly v: when v has three significant
// digits ("32.2K" is 32,200, "123K" is 123,000).
//
// Note: package parse reads "32.2K" with the decimal point shifted
// ("32.2e3"), which is exactly 32,200, so the test here is exact equality
// with the mantissa read the same way. A value the K form would round
// (32,200.5, or 32,200.000000000004 from a reader that multiplies the
// mantissa by 1,000) prints with its decimals instead.
func kilo(v float64) (string, bool) {
	if v < 1e4 || v >= 1e6 {
		return "", false
	}
	unit := 100.0
	if v >= 1e5 {
		unit = 1000
	}
	r := math.Round(v/unit) * unit
	if r >= 1e6 {
		return "", false
	}
	s := strconv.FormatFloat(r, 'f', 0, 64) // three significant digits, then zeros
	n := len(s) - 3                         // digits before the K point: 2 or 3
	mant := s[:n]
	if frac := strings.TrimRight(s[n:3], "0"); frac != "" {
		mant += "." + frac
	}
	if f, err := strconv.ParseFloat(mant+"e3", 64); err != nil || v != f {
		return "", false
	}
	return mant + "K", true
}

// group inserts a comma every three digits of a run of digits.
func group(digits string) string {
	if len(digits) <= 3 {
		return digits
	}
	var b strings.Builder
	b.Grow(len(digits) + len(digits)/3)
	lead := len(digits) % 3
	if lead > 0 {
		b.WriteString(digits[:lead])
	}
	for i := lead; i < len(digits); i += 3 {
		if b.Len() > 0 {
			b.WriteByte(',')
		}
		b.WriteString(digits[i : i+3])
	}
	return b.String()
}

func bad(v float64) bool { return math.IsNaN(v) || math.IsInf(v, 0) }

// optF formats an optional float with f, or None when it is null.
func optF(p *float64, f func(float64) string) string {
	if p == nil {
		return None
	}
	return f(*p)
}

// optI formats an optional count, or None when it is null.
func optI(p *int64) string {
	if p == nil {
		return None
	}
	return FormatCount(*p)
}
