package canonjson

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"strconv"
	"testing"
)

// slowFloat is appendFloat by strconv alone: the definition the short
// path must reproduce.
func slowFloat(f float64) string {
	abs := math.Abs(f)
	format := byte('f')
	if abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b := strconv.AppendFloat(nil, f, format, -1, 64)
	if format == 'e' {
		n := len(b)
		if n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return string(b)
}

// checkFloat fails t when appendFloat(f) differs from strconv's
// formatting or from encoding/json's.
func checkFloat(t *testing.T, f float64) {
	t.Helper()
	got := string(appendFloat([]byte("x"), f))[1:]
	if want := slowFloat(f); got != want {
		t.Fatalf("appendFloat(%b = %v) = %q, strconv writes %q", f, f, got, want)
	}
	if j, err := json.Marshal(f); err == nil && string(j) != got {
		t.Fatalf("appendFloat(%v) = %q, encoding/json writes %q", f, got, j)
	}
}

// TestAppendFloatShortDecimals checks the short path against strconv
// for the figures documents print (decimals of a few digits, with K and
// unit scalings), for neighbours of them one ulp away, and for the
// edges of the path (limits, negative zero, tiny and huge values).
func TestAppendFloatShortDecimals(t *testing.T) {
	for _, f := range oddFloats {
		checkFloat(t, f)
		checkFloat(t, -f)
	}
	edges := []float64{1e-6, 0.000001, 0.0000015, 0.5, 0.05, 0.1, 0.3, 1 << 40, 1<<40 - 1, 1<<40 + 0.5,
		(1<<40 - 1) / 1e8, 1099511.627775, 9.999999999999998, 10, 99.99999999999999, 123456789.123, 6091.1783,
		1e15, 1e16, 4503599627370497, 0.1 + 0.7, 1 - 1e-16, 7e-7}
	for _, f := range edges {
		for _, g := range []float64{f, math.Nextafter(f, 0), math.Nextafter(f, math.Inf(1))} {
			checkFloat(t, g)
			checkFloat(t, -g)
		}
	}
	r := rand.New(rand.NewPCG(1, 2))
	for range 200000 {
		// A printed decimal: up to 13 digits, up to 9 decimals, maybe
		// scaled as the parser scales K, M, s or µs figures.
		digits := r.Int64N(int64(math.Pow10(1 + r.IntN(13))))
		f := float64(digits) / math.Pow10(r.IntN(10))
		switch r.IntN(4) {
		case 0:
			f *= 1e3
		case 1:
			f *= 1e-3
		}
		checkFloat(t, f)
		checkFloat(t, math.Nextafter(f, math.Inf(1)))
		checkFloat(t, math.Float64frombits(r.Uint64())) // any bits
	}
}

// FuzzAppendFloat checks appendFloat against strconv on any float.
func FuzzAppendFloat(f *testing.F) {
	for _, x := range oddFloats {
		f.Add(math.Float64bits(x))
	}
	f.Add(math.Float64bits(325.241))
	f.Fuzz(func(t *testing.T, bits uint64) {
		x := math.Float64frombits(bits)
		if math.IsInf(x, 0) || math.IsNaN(x) {
			return
		}
		checkFloat(t, x)
	})
}

// BenchmarkAppendFloat writes figures as run ids do; BenchmarkSlowFloat
// writes them by strconv alone, for comparison.
func BenchmarkAppendFloat(b *testing.B) {
	figures := []float64{325.241, 55000, 6091.1783, 1627.8112, 30.25, 4096, 0.125}
	var buf []byte
	for b.Loop() {
		for _, f := range figures {
			buf = appendFloat(buf[:0], f)
		}
	}
}

func BenchmarkSlowFloat(b *testing.B) {
	figures := []float64{325.241, 55000, 6091.1783, 1627.8112, 30.25, 4096, 0.125}
	for b.Loop() {
		for _, f := range figures {
			_ = slowFloat(f)
		}
	}
}

// oddFloats are floats whose JSON encoding has special cases (cutoffs
// of the exponent form, negative zero, the largest values).
var oddFloats = []float64{0, math.Copysign(0, -1), 1, -1, 325.2, 1e-6, 9.99e-7, 1e-7, 1.5e-9, 1e20, 1e21, 1.2345e22,
	math.MaxFloat64, math.SmallestNonzeroFloat64, 0.1 + 0.2, 6091.1, -3.5e-300}
