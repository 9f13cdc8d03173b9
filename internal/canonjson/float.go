package canonjson

import (
	"math"
	"slices"
	"strconv"
)

// appendFloat writes a float64 as encoding/json does: like %g, with the
// exponent cutoffs of ES6 number formatting and unpadded exponents.
//
// Note: figures of documents are printed decimals with a few digits
// ("325.241", "55000"), and strconv's shortest formatting of them was
// nearly half the time of a run id; appendShortDecimal writes those
// without it, the same bytes (runidfloat_test.go checks them against
// strconv), and anything else goes to strconv as before.
func appendFloat(b []byte, f float64) []byte {
	if out, ok := appendShortDecimal(b, f); ok {
		return out
	}
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

// maxShortDecimals is the most decimals appendShortDecimal tries.
const maxShortDecimals = 8

// shortDecimalLimit bounds the scaled value appendShortDecimal reads:
// below it, the scaled figure is within 2⁻¹² of the integer the
// shortest decimal has (the rounding errors of the figure and of its
// scaling are far below 1), so only that integer can be it.
const shortDecimalLimit = 1 << 40

// appendShortDecimal writes f as strconv.AppendFloat(b, f, 'f', -1, 64)
// does when f is a decimal of at most maxShortDecimals decimals whose
// digits, as an integer, are below shortDecimalLimit; it reports false,
// having written nothing, for any other f (zeros included, so that -0
// keeps its sign through strconv).
//
// It tries 0, 1, 2, … decimals and takes the first count d for which
// the integer m nearest f×10ᵈ reads back as f (m / 10ᵈ, both exact in
// float64, is one correctly rounded division, as strconv.ParseFloat of
// the printed text is). That is the shortest printing that reads back:
// the one strconv writes, which is unique below the limit, where two
// neighbouring integers cannot both read back as f.
func appendShortDecimal(b []byte, f float64) ([]byte, bool) {
	a := math.Abs(f)
	if !(a >= 1e-6) || a >= shortDecimalLimit { // also NaN
		return b, false
	}
	if f < 0 {
		b = append(b, '-')
	}
	// An integer (most figures of a document: 55000, 149) is its digits.
	if m := uint64(a); float64(m) == a {
		return strconv.AppendUint(b, m, 10), true
	}
	for d := 1; d <= maxShortDecimals; d++ {
		p := a * exactPow10[d]
		if p >= shortDecimalLimit {
			break
		}
		// Floor(p+0.5), not Round, which the compiler does not turn into
		// one instruction; a p just below a half may round up, to an m
		// the next test rejects, as it rejects any m that is not near p.
		m := math.Floor(p + 0.5)
		if math.Abs(p-m) > 0.01 || m/exactPow10[d] != a {
			continue
		}
		return appendFixed(b, uint64(m), d), true
	}
	if f < 0 {
		b = b[:len(b)-1]
	}
	return b, false
}

// exactPow10 are the powers of ten appendShortDecimal scales by (exact
// in float64).
var exactPow10 = [maxShortDecimals + 1]float64{1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8}

// appendFixed writes m / 10ᵈ, d ≥ 1, with exactly d decimals ("0.05"
// for m 5, d 2): m's digits, then the point moved in among them.
func appendFixed(b []byte, m uint64, d int) []byte {
	n0 := len(b)
	b = strconv.AppendUint(b, m, 10)
	if k := len(b) - n0; k <= d {
		// "0." and d-k zeros before the k digits.
		pad := d + 2 - k
		b = slices.Grow(b, pad)[:len(b)+pad]
		copy(b[n0+pad:], b[n0:n0+k])
		b[n0], b[n0+1] = '0', '.'
		for i := n0 + 2; i < n0+pad; i++ {
			b[i] = '0'
		}
		return b
	}
	b = append(b, 0)
	n := len(b)
	copy(b[n-d:], b[n-d-1:n-1])
	b[n-d-1] = '.'
	return b
}
