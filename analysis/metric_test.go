package analysis

import (
	"testing"

	"speedmatrix/schema"
)

func TestMetricByName(t *testing.T) {
	m := &schema.Measurement{TotalTokS: schema.F64(13000), TTFTP99Ms: schema.F64(990), CompletedRequests: schema.I64(64),
		ServerPreemptions: schema.I64(3), Extra: []schema.Metric{{Name: "ttft_p999_ms", Value: 1200}}}
	tests := []struct {
		name   string
		higher bool
		unit   string
		value  float64
		has    bool
		err    bool
	}{
		{"total_tok_s", true, "tok/s", 13000, true, false},
		{"per_request_tok_s", true, "tok/s", 0, false, false},
		{"ttft_p99_ms", false, "ms", 990, true, false},
		{"completed_requests", true, "", 64, true, false},
		{"server_preemptions", false, "", 3, true, false},
		{"goodput_req_s", true, "req/s", 0, false, false},
		{"measured_s", false, "s", 0, false, false},
		{"ttft_p999_ms", false, "ms", 1200, true, false}, // from Extra
		{"TotalTokS", false, "", 0, false, true},         // Go name, not the column
		{"total tok/s", false, "", 0, false, true},
		{"", false, "", 0, false, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			mt, err := MetricByName(tt.name)
			if (err != nil) != tt.err {
				t.Fatalf("err = %v", err)
			}
			if err != nil {
				return
			}
			v, ok := mt.Value(m)
			if mt.HigherIsBetter != tt.higher || mt.Unit != tt.unit || ok != tt.has || v != tt.value {
				t.Errorf("higher %v unit %q value %v,%v; want %v %q %v,%v", mt.HigherIsBetter, mt.Unit, v, ok, tt.higher, tt.unit, tt.value, tt.has)
			}
		})
	}
}

func TestCompareExtraMetrics(t *testing.T) {
	cell := func(p99 float64) schema.Measurement {
		return schema.Measurement{Phase: schema.PhaseDecode, ContextLabel: "8K", Concurrency: schema.I32(8), Status: schema.StatusValid, TTFTP99Ms: schema.F64(p99)}
	}
	a := &schema.Matrix{Run: schema.Run{RunID: "a"}, Measurements: []schema.Measurement{cell(200)}}
	b := &schema.Matrix{Run: schema.Run{RunID: "b"}, Measurements: []schema.Measurement{cell(150)}}
	c, err := Compare(a, []*schema.Matrix{b}, Options{Metrics: []string{"ttft_p99_ms"}})
	if err != nil {
		t.Fatal(err)
	}
	d, _ := findDelta(c, schema.PhaseDecode, "8K", 8, "ttft_p99_ms")
	if d == nil {
		t.Fatal("no ttft_p99_ms delta")
	}
	if r, ok := d.Ratio(); !ok || r != 0.75 || d.Verdict != VerdictBetter {
		t.Errorf("ttft_p99_ms delta %+v", d)
	}
	if _, err := Compare(a, []*schema.Matrix{b}, Options{Metrics: []string{"TTFTP99Ms"}}); err == nil {
		t.Error("a Go field name was accepted as a metric")
	}
}
