package report

import (
	"math"
	"testing"

	"speedmatrix/analysis"
)

func TestRaw(t *testing.T) {
	for _, c := range []struct {
		in   float64
		want string
	}{
		{19.199999999999996, "19.2"}, {13000, "13000"}, {0.2893839897880, "0.289383989788"}, {1e-7, "1e-07"},
		{math.NaN(), ""}, {math.Inf(1), "+Inf"}, {-3.5, "-3.5"},
	} {
		if got := Raw(c.in); got != c.want {
			t.Errorf("Raw(%v) = %q, want %q", c.in, got, c.want)
		}
	}
	if RawPtr(nil) != "" {
		t.Error("RawPtr(nil) not empty")
	}
}

func TestGroup(t *testing.T) {
	tests := []struct {
		v    float64
		prec int
		want string
	}{{13000, 1, "13,000.0"}, {6091.1, 1, "6,091.1"}, {3.1, 1, "3.1"}, {-1234567.25, 2, "-1,234,567.25"}, {999.95, 1, "1,000.0"}, {-0.01, 1, "0.0"}, {123, 0, "123"}}
	for _, tt := range tests {
		if got := group(tt.v, tt.prec); got != tt.want {
			t.Errorf("group(%v, %d) = %q, want %q", tt.v, tt.prec, got, tt.want)
		}
	}
}

func TestLoadText(t *testing.T) {
	for _, tc := range []struct {
		k    analysis.Key
		want string
	}{
		{analysis.Key{Concurrency: 16}, "16"},
		{analysis.Key{RequestRate: 4}, "4/s"},
		{analysis.Key{RequestRate: 0.5}, "0.5/s"},
		{analysis.Key{RequestRate: math.Inf(1)}, "∞/s"},
		{analysis.Key{Concurrency: 16, RequestRate: 4}, "16 @4/s"},
		{analysis.Key{Concurrency: 16, RequestRate: math.Inf(1)}, "16 @∞/s"},
		{analysis.Key{}, "—"}, // a summary over all stages: no load recorded, never "0/s"
	} {
		if got := LoadText(tc.k); got != tc.want {
			t.Errorf("LoadText(%+v) = %q, want %q", tc.k, got, tc.want)
		}
	}
	c := analysis.ServeCurve{ByRate: true}
	if got := ServeLoadText(c, analysis.ServePoint{}); got != "—" {
		t.Errorf("ServeLoadText of a point without load = %q, want —", got)
	}
	c.ByRate = false
	if got := ServeLoadText(c, analysis.ServePoint{Key: analysis.Key{Concurrency: 16, RequestRate: math.Inf(1)}}); got != "16" {
		t.Errorf("ServeLoadText of a closed loop = %q, want 16", got)
	}
}

func TestFormatSig(t *testing.T) {
	for _, tt := range []struct {
		v    float64
		sig  int
		want string
	}{{13000, 2, "13,000"}, {0.4685, 2, "0.47"}, {4207.1, 5, "4,207.1"}, {1.0065, 4, "1.007"}, {0.2708, 2, "0.27"}} {
		if got := FormatSig(tt.v, tt.sig); got != tt.want {
			t.Errorf("FormatSig(%v, %d) = %q, want %q", tt.v, tt.sig, got, tt.want)
		}
	}
}
