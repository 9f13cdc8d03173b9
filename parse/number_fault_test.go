package parse

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
)

// TestQuantityErrorMessages pins the messages parseQuantity and convert
// report, which scanQuantity and conv produce as codes and format only
// when a caller asks for the error.
func TestQuantityErrorMessages(t *testing.T) {
	tests := []struct {
		in   string
		err  string
		want string // the quantity, when there is no error
	}{
		{" 1,23 ", `malformed number "1,23" (thousands groups must have three digits)`, ""},
		{"abc", `not a number: "abc"`, ""},
		{"12,3456", `malformed number "12,3456" (thousands groups must have three digits)`, ""},
		{"1,,234", `malformed number "1,,234"`, ""},
		{"1234,567", `malformed number "1234,567"`, ""},
		{"0123", `malformed number "0123" (leading zero)`, ""},
		{"12.", `malformed number "12." (no digits after the point)`, ""},
		{"12 parsecs", `malformed number "12 parsecs" (unknown unit "parsecs")`, ""},
		{"−5 lightyears", `malformed number "−5 lightyears" (unknown unit "lightyears")`, ""},
		{"1e999", `malformed number "1e999" (unknown unit "e999")`, ""},
		{"", "", "{0  0 true}"},
		{"—", "", "{0  0 true}"},
		{"12 Ms", "", "{12 ms 1 false}"},
		{"55K tok/s", "", "{55000 tok/s 1000 false}"},
		{"3.1 MS", "", "{3.1 ms 0.1 false}"},
		{"1,627.8112", "", "{1627.8112  0.0001 false}"},
		{"-2.5M", "", "{-2.5e+06  100000 false}"},
	}
	// A figure too long for the scanner's buffer: read, then too large.
	long := "9"
	for len(long) < 400 {
		long += "9"
	}
	tests = append(tests, struct{ in, err, want string }{long + "K", `malformed number "` + long + `K"`, ""})
	for _, tt := range tests {
		q, err := parseQuantity(tt.in)
		if tt.err != "" {
			if err == nil || err.Error() != tt.err {
				t.Errorf("parseQuantity(%.20q) error = %v, want %s", tt.in, err, tt.err)
			}
			continue
		}
		if err != nil || fmt.Sprint(q) != tt.want {
			t.Errorf("parseQuantity(%q) = %v, %v; want %s", tt.in, q, err, tt.want)
		}
	}
}

func TestConvertErrorMessages(t *testing.T) {
	tests := []struct {
		kind unitKind
		in   string
		err  string
		want string
	}{
		{kindPlain, "3 tok/s", `unexpected unit "tok/s"`, ""},
		{kindPlain, "3 requests", "", "{3 requests 1 false}"},
		{kindRate, "2.5 tokens", `unit "tokens" is not tok/s`, ""},
		{kindRate, "3 tok/s", "", "{3 tok/s 1 false}"},
		{kindMillis, "3 GB", `unit "GB" is not a time`, ""},
		{kindMillis, "4 min", "", "{240000 ms 60000 false}"},
		{kindSeconds, "3 tok/s", `unit "tok/s" is not a time`, ""},
		{kindSeconds, "4 min", "", "{240 s 60 false}"},
		{kindSeconds, "250 ms", "", "{0.25 s 0.001 false}"},
		{kindCount, "3 GB", `unit "GB" is not a count`, ""},
		{kindCount, "2.5 tokens", "2.5 is not a whole number", ""},
		{kindCount, "2,048 tokens", "", "{2048  1 false}"},
	}
	for _, tt := range tests {
		q, err := parseQuantity(tt.in)
		if err != nil {
			t.Fatalf("parseQuantity(%q): %v", tt.in, err)
		}
		c, err := q.convert(tt.kind)
		if tt.err != "" {
			if err == nil || err.Error() != tt.err {
				t.Errorf("convert(%q, %d) error = %v, want %s", tt.in, tt.kind, err, tt.err)
			}
			continue
		}
		if err != nil || fmt.Sprint(c) != tt.want {
			t.Errorf("convert(%q, %d) = %v, %v; want %s", tt.in, tt.kind, c, err, tt.want)
		}
	}
}

// TestQuantityValueExact checks the scanner's own conversion of short
// figures against strconv.ParseFloat of the same digits with the K or M
// as an exponent (the definition of a figure's value), over random
// figures of every length, precision and multiplier.
func TestQuantityValueExact(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	digits := func(n int) string {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte('0' + r.IntN(10))
		}
		return string(b)
	}
	for range 20000 {
		in := digits(1 + r.IntN(18))
		for len(in) > 1 && in[0] == '0' {
			in = in[1:]
		}
		plain := in
		if r.IntN(3) == 0 && len(in) > 3 {
			// Thousands commas.
			var b strings.Builder
			for i, c := range in {
				if i > 0 && (len(in)-i)%3 == 0 {
					b.WriteByte(',')
				}
				b.WriteRune(c)
			}
			in = b.String()
		}
		if r.IntN(2) == 0 {
			frac := digits(1 + r.IntN(12))
			in, plain = in+"."+frac, plain+"."+frac
		}
		switch r.IntN(4) {
		case 0:
			in, plain = in+"K", plain+"e3"
		case 1:
			in, plain = in+"M", plain+"e6"
		}
		want, err := strconv.ParseFloat(plain, 64)
		if err != nil {
			t.Fatal(err)
		}
		q, err := parseQuantity(in)
		if err != nil {
			t.Fatalf("parseQuantity(%q): %v", in, err)
		}
		if q.Value != want {
			t.Fatalf("parseQuantity(%q) = %v, want %v (ParseFloat(%q))", in, q.Value, want, plain)
		}
		if c, bad := checkQuantity(in); bad != qOK || c.Null || c.Unit != "" {
			t.Fatalf("checkQuantity(%q) = %v, %v; want a figure without a unit", in, c, bad)
		}
	}
}
