package schema

import (
	"math"
	"reflect"
	"strings"
	"testing"
)

// TestFiguresCoverMeasurement checks that every numeric column of a
// measurement is checked (figures or the concurrency), so that a column
// added later is not stored unchecked.
func TestFiguresCoverMeasurement(t *testing.T) {
	known := map[string]bool{"concurrency": true}
	for _, f := range figures {
		known[f.name] = true
	}
	mt := reflect.TypeFor[Measurement]()
	for i := 0; i < mt.NumField(); i++ {
		f := mt.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		switch f.Type {
		case reflect.TypeFor[*float64](), reflect.TypeFor[*int64](), reflect.TypeFor[*int32]():
			if name != "repeat" && !known[name] {
				t.Errorf("column %s is not checked by CheckFigures", name)
			}
		}
	}
}

func TestCheckFigures(t *testing.T) {
	cases := []struct {
		m    Measurement
		want string // the field of the first problem, "" for none
	}{
		{Measurement{TotalTokS: F64(325.2), TTFTMs: F64(41), CompletedRequests: I64(2)}, ""},
		{Measurement{TotalTokS: F64(-325.2)}, "total_tok_s"},
		{Measurement{TTFTMs: F64(math.Inf(1))}, "ttft_ms"},
		{Measurement{TTFTP99Ms: F64(math.NaN())}, "ttft_p99_ms"},
		{Measurement{CompletedRequests: I64(-2)}, "completed_requests"},
		{Measurement{RequestRate: F64(math.Inf(1))}, ""},
		{Measurement{RequestRate: F64(-1)}, "request_rate"},
		{Measurement{ServerPrefixCacheHits: F64(1.5)}, "server_prefix_cache_hit_rate"},
		{Measurement{ServerSpecAcceptRate: F64(0.7)}, ""},
		{Measurement{Concurrency: I32(-4)}, "concurrency"},
		{Measurement{TotalTokS: F64(0)}, ""},
	}
	for _, c := range cases {
		got := c.m.CheckFigures()
		switch {
		case c.want == "" && len(got) > 0:
			t.Errorf("%+v: %v, want none", c.m, got)
		case c.want != "" && (len(got) == 0 || got[0].Field != c.want):
			t.Errorf("%+v: %v, want %s", c.m, got, c.want)
		case c.want != "":
			m := c.m
			if !m.ClearFigure(c.want) || len(m.CheckFigures()) != 0 {
				t.Errorf("ClearFigure(%s) left %v", c.want, m.CheckFigures())
			}
		}
	}
}
