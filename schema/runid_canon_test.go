package schema

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"math"
	"math/rand/v2"
	"reflect"
	"testing"
	"time"
)

// canonBytes is the canonical JSON ComputeRunID hashes, as canonEncoder
// writes it.
func canonBytes(m *Matrix) []byte {
	var e canonEncoder
	return bytes.Clone(e.encode(m))
}

// oddStrings are strings whose JSON encoding has special cases.
var oddStrings = []string{"", "plain", `quote " and \ backslash`, "<b>&amp;</b>", "tab\tnew\nline\rcr\b\f\x01\x1f",
	"· no-break\u00a0space", "line\u2028para\u2029sep", "bad \xff utf-8 \xe2\x82", "emoji 🚀", "vllm · 0.30.1 · INT4"}

// oddFloats are floats whose JSON encoding has special cases (cutoffs
// of the exponent form, negative zero, the largest values).
var oddFloats = []float64{0, math.Copysign(0, -1), 1, -1, 325.2, 1e-6, 9.99e-7, 1e-7, 1.5e-9, 1e20, 1e21, 1.2345e22,
	math.MaxFloat64, math.SmallestNonzeroFloat64, 0.1 + 0.2, 6091.1, -3.5e-300}

// fill sets every field of v to a random value of its kind: nil, empty
// or odd values are picked often, so omitempty and escaping are covered.
// Non-finite floats go only where allowOdd says they may.
func fill(r *rand.Rand, v reflect.Value, nonFinite bool) {
	switch v.Kind() {
	case reflect.String:
		v.SetString(oddStrings[r.IntN(len(oddStrings))])
	case reflect.Bool:
		v.SetBool(r.IntN(2) == 0)
	case reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64, reflect.Int:
		switch r.IntN(4) {
		case 0:
			v.SetInt(0)
		case 1:
			v.SetInt(-r.Int64N(1 << 40))
		default:
			v.SetInt(r.Int64N(1 << 20))
		}
	case reflect.Float64:
		switch n := r.IntN(10); {
		case n == 0 && nonFinite:
			v.SetFloat([]float64{math.Inf(1), math.Inf(-1), math.NaN()}[r.IntN(3)])
		case n < 5:
			v.SetFloat(oddFloats[r.IntN(len(oddFloats))])
		default:
			v.SetFloat(r.NormFloat64() * math.Pow10(r.IntN(30)-10))
		}
	case reflect.Pointer:
		if r.IntN(3) == 0 {
			v.SetZero()
			return
		}
		p := reflect.New(v.Type().Elem())
		fill(r, p.Elem(), nonFinite)
		v.Set(p)
	case reflect.Slice:
		switch r.IntN(4) {
		case 0:
			v.SetZero()
			return
		case 1:
			v.Set(reflect.MakeSlice(v.Type(), 0, 0))
			return
		}
		n := 1 + r.IntN(3)
		s := reflect.MakeSlice(v.Type(), n, n)
		for i := 0; i < s.Len(); i++ {
			fill(r, s.Index(i), nonFinite)
		}
		v.Set(s)
	case reflect.Struct:
		if v.Type() == reflect.TypeFor[time.Time]() {
			v.Set(reflect.ValueOf(time.Unix(r.Int64N(4e9), r.Int64N(1e9)).In(time.FixedZone("", 3600*(r.IntN(5)-2)))))
			return
		}
		for i := 0; i < v.NumField(); i++ {
			if v.Type().Field(i).IsExported() {
				fill(r, v.Field(i), nonFinite)
			}
		}
	}
}

// TestCanonEncoderMatchesMarshal checks that the hand-written encoding
// is byte for byte the encoding/json one the id was defined by, over
// matrices whose every field (present and future) holds random values.
func TestCanonEncoderMatchesMarshal(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	cases := []*Matrix{testMatrix(), {}, {Measurements: []Measurement{}}}
	for range 300 {
		m := &Matrix{}
		fill(r, reflect.ValueOf(&m.Run).Elem(), false)
		m.Measurements = make([]Measurement, r.IntN(5))
		for i := range m.Measurements {
			fill(r, reflect.ValueOf(&m.Measurements[i]).Elem(), true)
		}
		cases = append(cases, m)
	}
	// Measurements that print few figures, as documents' do: most
	// pointers nil, runs of them all nil or broken by one figure.
	for range 300 {
		m := &Matrix{Measurements: make([]Measurement, 1+r.IntN(4))}
		for i := range m.Measurements {
			v := reflect.ValueOf(&m.Measurements[i]).Elem()
			fill(r, v, true)
			keep := r.IntN(3) // 0: every pointer nil
			for j := 0; j < v.NumField(); j++ {
				if f := v.Field(j); f.Kind() == reflect.Pointer && (keep == 0 || r.IntN(8) != 0) {
					f.SetZero()
				}
			}
		}
		cases = append(cases, m)
	}
	for i, m := range cases {
		want := marshalContent(m)
		if got := canonBytes(m); !bytes.Equal(got, want) {
			t.Fatalf("case %d: canonical encoding differs from encoding/json:\n got %s\nwant %s", i, got, want)
		}
	}
}

// TestComputeRunIDStable pins the id of the test matrix, so a change
// to the encoding that would re-key every archived run fails here.
func TestComputeRunIDStable(t *testing.T) {
	const want = "7ad1c9b5bb5faabe" // computed by the encoding/json implementation
	if got := ComputeRunID(testMatrix()); got != want {
		t.Errorf("ComputeRunID(testMatrix()) = %s, want %s (the ids of archived runs would change)", got, want)
	}
}

// TestRunIDNonFiniteInRunPanics keeps the rule that a NaN or ±Inf
// outside measurements is a programming error, as encoding/json made it.
func TestRunIDNonFiniteInRunPanics(t *testing.T) {
	m := testMatrix()
	m.Run.VRAMGB = F64(math.Inf(1))
	defer func() {
		if recover() == nil {
			t.Error("ComputeRunID of a run with an infinite VRAM did not panic")
		}
	}()
	ComputeRunID(m)
}

// TestComputeRunIDStreamed checks that the id of a matrix whose encoding
// goes to the hash in pieces (larger than flushAt, non-finite figures
// listed after the rows) is the hash of its whole encoding.
func TestComputeRunIDStreamed(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	m := &Matrix{}
	fill(r, reflect.ValueOf(&m.Run).Elem(), false)
	m.Measurements = make([]Measurement, 3000)
	for i := range m.Measurements {
		fill(r, reflect.ValueOf(&m.Measurements[i]).Elem(), true)
	}
	whole := marshalContent(m)
	if len(whole) < 3*flushAt || !bytes.Contains(whole, []byte(`"non_finite":[`)) {
		t.Fatalf("test matrix too small (%d bytes) or without non-finite figures", len(whole))
	}
	sum := sha256.Sum256(whole)
	if got, want := ComputeRunID(m), hex.EncodeToString(sum[:])[:RunIDLen]; got != want {
		t.Errorf("streamed id %s, want %s (the hash of the whole encoding)", got, want)
	}
}
