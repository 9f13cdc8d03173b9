package render

import (
	"bytes"
	"math"
	"strings"
	"testing"

	"speedmatrix/schema"
)

// TestSummaryServeRates: the terminal summary of a run with serve rows
// has their table, one line per valid row, loads by rate or streams.
func TestSummaryServeRates(t *testing.T) {
	m := withServe(synthRun())
	m.Measurements = append(m.Measurements, schema.Measurement{
		Phase: schema.PhaseServe, ContextLabel: "509", Concurrency: schema.I32(64), Status: schema.StatusValid,
		RequestRate: schema.F64(math.Inf(1)), RequestThroughput: schema.F64(12.5), TTFTMs: schema.F64(1234.5),
		TTFTP99Ms: schema.F64(2400), GoodputReqS: schema.F64(3.25),
		Extra: []schema.Metric{{Name: "achieved_request_rate", Value: 12.75}},
	})
	var b bytes.Buffer
	if err := Summary(&b, m); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{"Serve: by request rate", "2.5/s", "64 streams", "12.75", "3.25", "1,235 / 2,400",
		"88.1 / 140", "9.5", "serve 0 × 16: Error: connection refused"} {
		if !strings.Contains(out, want) {
			t.Errorf("summary lacks %q:\n%s", want, out)
		}
	}
	block, _, _ := strings.Cut(out[strings.Index(out, "Serve:"):], "\n\n")
	if n := strings.Count(block, "\n") + 1; n != 2+4 || !strings.Contains(block, "all at once") {
		t.Errorf("serve table of %d lines, want a caption, a header and 4 rows, one all at once:\n%s", n, block)
	}
}
