package render

import (
	"math"
	"strconv"
	"strings"
	"testing"
)

func TestFormatters(t *testing.T) {
	tests := []struct {
		name string
		got  string
		want string
	}{
		{"toks 55K", FormatTokS(55000), "55K"},
		{"toks 57.5K", FormatTokS(57500), "57.5K"},
		{"toks 11.4K", FormatTokS(11400), "11.4K"},
		{"toks 13K", FormatTokS(13000), "13K"},
		{"toks 123K", FormatTokS(123000), "123K"},
		{"toks 10K", FormatTokS(10000), "10K"},
		{"toks 16.1K", FormatTokS(16100), "16.1K"},
		{"toks 32.2K", FormatTokS(32200), "32.2K"},
		{"toks 32.3K", FormatTokS(32300), "32.3K"},
		{"toks what a multiplying reader makes of 32.2K is not 32.2K", FormatTokS(kilomul(32.2)), "32,200.000000000004"},
		{"toks rounding would lose the fraction", FormatTokS(32200.5), "32,200.5"},
		{"toks four significant digits", FormatTokS(10050), "10,050.0"},
		{"toks precise above 10K", FormatTokS(12987.34), "12,987.34"},
		{"toks million", FormatTokS(1e6), "1,000,000.0"},
		{"toks 1,627.8", FormatTokS(1627.8), "1,627.8"},
		{"toks 325.2", FormatTokS(325.2), "325.2"},
		{"toks whole", FormatTokS(325), "325.0"},
		{"toks precise", FormatTokS(325.2413), "325.2413"},
		{"toks zero", FormatTokS(0), "0.0"},
		{"toks negative", FormatTokS(-1234.5), "-1,234.5"},
		{"toks NaN", FormatTokS(math.NaN()), None},
		{"toks Inf", FormatTokS(math.Inf(1)), None},
		{"ms", FormatMs(1388), "1,388 ms"},
		{"ms small", FormatMs(41), "41 ms"},
		{"ms fraction", FormatMs(41.25), "41.25 ms"},
		{"ms below one", FormatMs(0.5), "0.5 ms"},
		{"ms NaN", FormatMs(math.NaN()), None},
		{"tbt", FormatTBT(3.1), "3.1 ms"},
		{"tbt whole", FormatTBT(3), "3.0 ms"},
		{"tbt precise", FormatTBT(3.125), "3.125 ms"},
		{"tbt large", FormatTBT(1234.5), "1,234.5 ms"},
		{"seconds", FormatSeconds(30), "30.0 s"},
		{"seconds precise", FormatSeconds(29.987), "29.987 s"},
		{"count", FormatCount(9756), "9,756"},
		{"count small", FormatCount(100), "100"},
		{"count zero", FormatCount(0), "0"},
		{"count millions", FormatCount(1234567), "1,234,567"},
		{"count negative", FormatCount(-1234), "-1,234"},
		{"decimal negative zero", FormatDecimal(math.Copysign(0, -1), 1), "0.0"},
		{"decimal pads", FormatDecimal(1, 1), "1.0"},
		{"decimal keeps", FormatDecimal(15.625, 1), "15.625"},
		{"decimal none", FormatDecimal(4096, 0), "4,096"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.got != tt.want {
				t.Errorf("got %q, want %q", tt.got, tt.want)
			}
		})
	}
}

// kilomul is what a reader that multiplies a K mantissa by 1,000 gets, in
// float64 at run time (a constant expression would be exact).
func kilomul(mant float64) float64 {
	k := 1e3
	return mant * k
}

// readBack inverts the formatters the way package parse does: the K
// suffix shifts the decimal point.
func readBack(t testing.TB, s string) float64 {
	t.Helper()
	for _, unit := range []string{" ms", " s"} {
		s = strings.TrimSuffix(s, unit)
	}
	s = strings.ReplaceAll(s, ",", "")
	if m, ok := strings.CutSuffix(s, "K"); ok {
		s = m + "e3"
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		t.Fatalf("read back %q: %v", s, err)
	}
	return v
}

// checkReadsBack fails unless every formatter's text of v reads back as
// exactly v.
func checkReadsBack(t testing.TB, v float64) {
	t.Helper()
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return
	}
	for name, s := range map[string]string{
		"FormatTokS": FormatTokS(v), "FormatMs": FormatMs(v), "FormatTBT": FormatTBT(v),
		"FormatSeconds": FormatSeconds(v), "FormatDecimal": FormatDecimal(v, 1),
	} {
		if e := readBack(t, s); e != v && !(v == 0 && e == 0) {
			t.Errorf("%s(%v) = %q reads back as %v", name, v, s, e)
		}
	}
}

func TestFormatReadsBack(t *testing.T) {
	values := []float64{0, 1, 0.1, 1e-9, 325.2413, 9999.95, 10000, 10049.999, 16100, kilomul(16.1),
		kilomul(32.3), 57500, 99950, 99999.99, 999000, 999999, 1e6, 1.5e15, 2.5e300, 5e-324, -42.42}
	// Every three-significant-digit value the K form covers.
	for n := 100; n < 1000; n++ {
		values = append(values, float64(n*100), float64(n*1000), kilomul(float64(n)/10), kilomul(float64(n)))
	}
	for _, v := range values {
		checkReadsBack(t, v)
	}
}

func FuzzFormatReadsBack(f *testing.F) {
	for _, v := range []float64{0, 55000, 57500, 1627.8, 3.1, 30, 12987.34, kilomul(16.1)} {
		f.Add(v)
	}
	f.Fuzz(func(t *testing.T, v float64) { checkReadsBack(t, v) })
}
