package parse

import (
	"fmt"
	"math"
	"strconv"
	"testing"
)

func TestNumberParseQuantity(t *testing.T) {
	tests := []struct {
		in   string
		want float64
		unit string
		step float64
		null bool
	}{
		{in: "55K", want: 55000, step: 1000},
		{in: "57.5K", want: 57500, step: 100},
		{in: "11.4K", want: 11400, step: 100},
		{in: "1,627.8", want: 1627.8, step: 0.1},
		{in: "9,756", want: 9756, step: 1},
		{in: "182,670", want: 182670, step: 1},
		{in: "1,234,567.25", want: 1234567.25, step: 0.01},
		{in: "3.1 ms", want: 3.1, unit: "ms", step: 0.1},
		{in: "1,388 ms", want: 1388, unit: "ms", step: 1},
		{in: "30.0 s", want: 30, unit: "s", step: 0.1},
		{in: "4,096 tokens", want: 4096, unit: "tokens", step: 1},
		{in: "96 GB", want: 96, unit: "GB", step: 1},
		{in: "6,091.1 tok/s", want: 6091.1, unit: "tok/s", step: 0.1},
		{in: "2M", want: 2e6, step: 1e6},
		{in: " 128.0 ", want: 128, step: 0.1},
		{in: "0", want: 0, step: 1},
		{in: "0.5", want: 0.5, step: 0.1},
		{in: "-3", want: -3, step: 1},
		{in: "—", null: true},
		{in: "-", null: true},
		{in: "", null: true},
		{in: "n/a", null: true},
	}
	for _, tt := range tests {
		q, err := parseQuantity(tt.in)
		if err != nil {
			t.Errorf("parseQuantity(%q): %v", tt.in, err)
			continue
		}
		if q.Null != tt.null {
			t.Errorf("parseQuantity(%q).Null = %v, want %v", tt.in, q.Null, tt.null)
			continue
		}
		if tt.null {
			continue
		}
		if math.Abs(q.Value-tt.want) > 1e-9 || q.Unit != tt.unit || math.Abs(q.Step-tt.step) > 1e-9 {
			t.Errorf("parseQuantity(%q) = %v %q step %v, want %v %q step %v", tt.in, q.Value, q.Unit, q.Step, tt.want, tt.unit, tt.step)
		}
	}
}

func TestNumberGarbled(t *testing.T) {
	for _, in := range []string{"1,6278", "12,34", ",644", "1,,000", "6.0.91", "abc", "12abc", "3.", ".5", "07", "1,627.8.1", "5 parsecs", "1e5", "55KK", "0x10", "3 ms ms", "1\u00a0388 ms"} {
		if q, err := parseQuantity(in); err == nil {
			t.Errorf("parseQuantity(%q) = %+v, want an error", in, q)
		}
	}
}

func TestNumberConvert(t *testing.T) {
	tests := []struct {
		in   string
		kind unitKind
		want float64
		bad  bool
	}{
		{"30.0 s", kindSeconds, 30, false},
		{"500 ms", kindSeconds, 0.5, false},
		{"2 min", kindSeconds, 120, false},
		{"1.2 s", kindMillis, 1200, false},
		{"783 ms", kindMillis, 783, false},
		{"783", kindMillis, 783, false},
		{"55K", kindRate, 55000, false},
		{"55K tok/s", kindRate, 55000, false},
		{"9,756", kindCount, 9756, false},
		{"9,756 tokens", kindCount, 9756, false},
		{"9.5", kindCount, 0, true},
		{"3 ms", kindRate, 0, true},
		{"3 tok/s", kindMillis, 0, true},
		{"3 GB", kindSeconds, 0, true},
		{"3 ms", kindPlain, 0, true},
	}
	for _, tt := range tests {
		q, err := parseQuantity(tt.in)
		if err != nil {
			t.Fatalf("parseQuantity(%q): %v", tt.in, err)
		}
		c, err := q.convert(tt.kind)
		if tt.bad {
			if err == nil {
				t.Errorf("convert(%q, %v) = %v, want an error", tt.in, tt.kind, c.Value)
			}
			continue
		}
		if err != nil || math.Abs(c.Value-tt.want) > 1e-9 {
			t.Errorf("convert(%q, %v) = %v, %v; want %v", tt.in, tt.kind, c.Value, err, tt.want)
		}
	}
}

func TestNumberAgrees(t *testing.T) {
	tests := []struct {
		a, b string
		want bool
	}{
		{"6,091.1", "6,091.1", true},
		{"6,091.1", "6,091.2", false},
		{"13K", "13,012.3", true},
		{"13K", "13,600.0", false},
		{"55K", "55,000", true},
		{"325", "325.2", true},
		{"41 ms", "41 ms", true},
		{"41", "42", false},
		{"—", "—", true},
		{"—", "1", false},
	}
	for _, tt := range tests {
		a, _ := parseQuantity(tt.a)
		b, _ := parseQuantity(tt.b)
		if got := agrees(a, b); got != tt.want {
			t.Errorf("agrees(%q, %q) = %v, want %v", tt.a, tt.b, got, tt.want)
		}
	}
}

func TestNumberContextTokens(t *testing.T) {
	tests := []struct {
		in   string
		want int64
		bad  bool
	}{
		{in: "8K", want: 8192},
		{in: "123K", want: 125952},
		{in: "128K", want: 131072},
		{in: "1M", want: 1 << 20},
		{in: "8192", want: 8192},
		{in: "8 K", want: 8192},
		{in: "8K context", want: 8192},
		{in: "512 @ d4K", want: 4608}, // llama-bench's prompt at a depth
		{in: "512@d4K", want: 4608},   // as a text document's prefill figure reads it
		{in: "2K @ d8K", want: 10240},
		{in: "512 @ 4K", bad: true},
		{in: "512 @ dx", bad: true},
		{in: "", bad: true},
		{in: "K", bad: true},
		{in: "eightK", bad: true},
		{in: "-8K", bad: true},
	}
	for _, tt := range tests {
		got, err := contextTokens(tt.in)
		if (err != nil) != tt.bad || got != tt.want {
			t.Errorf("contextTokens(%q) = %d, %v; want %d (error %v)", tt.in, got, err, tt.want, tt.bad)
		}
	}
}

func TestNumberConcurrency(t *testing.T) {
	tests := []struct {
		in   string
		want int32
		bad  bool
	}{
		{in: "1", want: 1}, {in: "128", want: 128}, {in: "1,024", want: 1024},
		{in: "0", bad: true}, {in: "1.5", bad: true}, {in: "x", bad: true}, {in: "—", bad: true}, {in: "99999999999", bad: true},
	}
	for _, tt := range tests {
		got, err := parseConcurrency(tt.in)
		if (err != nil) != tt.bad || got != tt.want {
			t.Errorf("parseConcurrency(%q) = %d, %v; want %d (error %v)", tt.in, got, err, tt.want, tt.bad)
		}
	}
}

// TestNumberKiloExact reads every three-significant-digit K figure from
// 10.0K to 999K: each must be exactly the number it stands for (the
// decimal point shifted, not the mantissa multiplied by 1,000, which makes
// 32.2K 32200.000000000004), in every printing of it.
func TestNumberKiloExact(t *testing.T) {
	for n := int64(100); n < 1000; n++ {
		tests := []struct {
			in   string
			want float64
		}{
			{strconv.FormatInt(n/10, 10) + "." + strconv.FormatInt(n%10, 10) + "K", float64(n * 100)},
			{strconv.FormatInt(n, 10) + "K", float64(n * 1000)},
			{strconv.FormatInt(n, 10) + "K tok/s", float64(n * 1000)},
			{"-" + strconv.FormatInt(n, 10) + "K", -float64(n * 1000)},
			{fmt.Sprintf("%d.%02dM", n/100, n%100), float64(n * 10000)},
		}
		if n%10 == 0 {
			tests = append(tests, struct {
				in   string
				want float64
			}{strconv.FormatInt(n/10, 10) + "K", float64(n * 100)})
		}
		for _, tt := range tests {
			q, err := parseQuantity(tt.in)
			if err != nil {
				t.Fatalf("parseQuantity(%q): %v", tt.in, err)
			}
			if q.Value != tt.want {
				t.Errorf("parseQuantity(%q) = %v, want exactly %v", tt.in, q.Value, tt.want)
			}
		}
	}
}

func BenchmarkScanQuantity(b *testing.B) {
	raw, err := extractText(readSeed(b, seed000), seed000)
	if err != nil {
		b.Fatal(err)
	}
	var figs []string
	for i := range raw.Table.Rows {
		figs = append(figs, appendCells(nil, trimRow(raw.Table.Rows[i].Text))[4:]...)
	}
	var sum float64
	for b.Loop() {
		for _, s := range figs {
			q, bad := scanQuantity(s)
			if bad != qOK {
				b.Fatalf("%q: %v", s, bad.err(s))
			}
			sum += q.Value
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(figs)), "ns/figure")
}
