package render

import (
	"bytes"
	"math"
	"slices"
	"strings"
	"testing"

	"speedmatrix/schema"
)

// rateRun is a matrix as `run -rates sweep` makes it: the run's arrival
// in its printed pairs, two closed-loop probes (streams), three rates,
// the last one failed, every serve figure at full precision.
func rateRun() *schema.Matrix {
	m := synthRun()
	m.Run.DecodeTest, m.Run.PrefillMode = "Open-loop request rate", ""
	m.Run.Metadata = []schema.Field{
		{Section: "Run", Key: "Arrival", Value: "poisson, seed 42"},
		{Section: "Run", Key: "Goodput SLO", Value: "ttft:50ms,tbt:5ms"},
	}
	f, i, c := schema.F64, schema.I64, schema.I32
	// row: rate or streams, achieved and done per second, output tok/s,
	// TTFT p50/p99, TBT p50/p99, E2E p50/p99 and requests in flight.
	row := func(rate float64, conc int32, achieved, done, tok, ttft, ttft99, tbt, tbt99, e2e, e2e99, active float64) schema.Measurement {
		x := schema.Measurement{Phase: schema.PhaseServe, ContextLabel: "1K", ContextTokens: i(1253), Status: schema.StatusValid,
			TotalTokS: f(tok), RequestThroughput: f(done), GoodputReqS: f(math.Round(done*0.9*100) / 100),
			CompletedRequests: i(int64(done * 10)), ErroredRequests: i(0), TTFTMs: f(ttft), TTFTP99Ms: f(ttft99),
			TBTMs: f(tbt), TBTP99Ms: f(tbt99), E2EP50Ms: f(e2e), E2EP99Ms: f(e2e99), AvgActiveRequests: f(active),
			TTFTP90Ms: f(ttft99 * 0.75), MeasuredS: f(10),
			Extra: []schema.Metric{{Name: "achieved_request_rate", Value: achieved},
				{Name: "total_token_throughput", Value: tok * 17}, {Name: "late_requests", Value: 0}},
		}
		// In flight over time: a ramp up to the mean and down again.
		x.Extra = append(x.Extra, schema.Metric{Name: "in_flight_p50", Value: math.Round(active)}, schema.Metric{Name: "in_flight_p90", Value: math.Ceil(active * 1.1)})
		for k, w := range []float64{0.3, 0.8, 1, 1.1, 1.2, 1.1, 1.05, 1, 0.9, 0.55} {
			x.Extra = append(x.Extra, schema.Metric{Name: schema.InFlightSeriesName(k), Value: math.Round(active*w*100) / 100})
		}
		if rate != 0 {
			x.RequestRate = f(rate)
		}
		if conc != 0 {
			x.Concurrency = c(conc)
		}
		return x
	}
	m.Measurements = []schema.Measurement{
		row(0, 1, 36.5089, 30.8, 1971.9, 5.79, 178.3, 0.2004, 3.348, 18.62, 358.8, 1),
		row(0, 64, 191.764, 160.1, 10243.4, 246.7, 555.4, 2.612, 5.88, 363, 611.3, 63.8),
		row(73.91, 0, 76.6147, 76.4, 4888.5, 6.756, 39.86, 0.3682, 1.189, 29.98, 86.07, 2.77),
		row(117, 0, 110.79, 110.3, 7057.8, 9.578, 90.1, 0.5409, 1.732, 49.52, 121.5, 5.72),
	}
	bad := row(160.1, 0, 155.44, 150.6, 9638.4, 25.37, 76.65, 1.64, 5.721, 135.2, 382.8, 22.82)
	bad.Status, bad.StatusReason = schema.StatusError, "40 of 300 requests failed (over 10%); first: HTTP 503"
	bad.ErroredRequests, bad.GoodputReqS = i(40), nil
	m.Measurements = append(m.Measurements, bad)
	return m
}

// TestGoldenRates: a rate run's document in each form (golden files).
func TestGoldenRates(t *testing.T) {
	m := rateRun()
	for _, f := range forms {
		t.Run(f.ext, func(t *testing.T) {
			var b bytes.Buffer
			if err := f.write(&b, m); err != nil {
				t.Fatal(err)
			}
			golden(t, "rates.golden."+f.ext, b.Bytes())
		})
	}
}

// TestServeTable: the rate table holds every serve row in table order,
// its load by rate, streams or both, a Status column only when a row is
// not valid, and sits before the key/value sections (after the pairs
// printed before any heading).
func TestServeTable(t *testing.T) {
	m := rateRun()
	tb := newServeTable(m)
	if tb == nil || len(tb.Rows) != 5 {
		t.Fatalf("serve table %+v, want 5 rows", tb)
	}
	var loads []string
	for _, r := range tb.Rows {
		loads = append(loads, r[1])
	}
	if got := strings.Join(loads, ", "); got != "1 stream, 64 streams, 73.91/s, 117/s, 160.1/s" {
		t.Errorf("loads %s", got)
	}
	if tb.Header[2] != "Status" || tb.Rows[4][2] != "Error" {
		t.Errorf("header %q, last row %q: want a Status column saying Error", tb.Header, tb.Rows[4])
	}
	// Full precision: the cell reads back as the row's value.
	if tb.Rows[1][3] != "191.764" || tb.Rows[1][4] != "160.1" || tb.Rows[1][9] != "174,137.8" || tb.Rows[1][len(tb.Header)-2] != "63.8" || tb.Rows[1][len(tb.Header)-1] != "▃▆▇▇█▇▇▇▆▄" {
		t.Errorf("row 1 %q", tb.Rows[1])
	}
	m.Measurements = m.Measurements[:4]
	if tb := newServeTable(m); tb.Header[2] == "Status" {
		t.Errorf("a Status column without a failed row: %q", tb.Header)
	}
	// Rows without an in-flight series (other tools', older runs) print
	// no trend column: their tables read as before.
	for i := range m.Measurements {
		m.Measurements[i].Extra = slices.DeleteFunc(m.Measurements[i].Extra, func(e schema.Metric) bool { return e.Name == schema.InFlightSeriesName(3) })
	}
	if tb := newServeTable(m); slices.Contains(tb.Header, "In flight over time") {
		t.Errorf("a trend column without a series: %q", tb.Header)
	}
	both := schema.Measurement{RequestRate: schema.F64(4), Concurrency: schema.I32(8)}
	inf := schema.Measurement{RequestRate: schema.F64(math.Inf(1))}
	if a, b := serveLoad(&both), serveLoad(&inf); a != "4/s · 8 streams" || b != "all at once" {
		t.Errorf("loads %q, %q", a, b)
	}
	if newServeTable(synthRun()) != nil {
		t.Error("a serve table for a matrix without serve rows")
	}

	v := newView(rateRun())
	if v.ServeAt != 0 {
		t.Errorf("ServeAt %d, want 0: first", v.ServeAt)
	}
	parsed := rateRun()
	parsed.Run.SourceFormat = schema.FormatMarkdown
	parsed.Run.Metadata = append([]schema.Field{{Key: "Note", Value: "before any heading"}}, parsed.Run.Metadata...)
	if v := newView(parsed); v.ServeAt != 1 {
		t.Errorf("ServeAt %d, want 1: after the pairs printed before any heading", v.ServeAt)
	}
	for _, f := range roundTripForms {
		// A parsed document's pairs before any heading stay before it.
		back := renderParse(t, parsed, f.ext, f.format)
		for _, d := range rowDiffs(back.Measurements, parsed.Measurements) {
			t.Errorf("%s: %s", f.ext, d)
		}
		// Note: the text form has no way to print pairs before a heading
		// (the subtitle line reads as their heading); that is older than
		// the rate table.
		if f.ext != "txt" && (len(back.Run.Metadata) == 0 || back.Run.Metadata[0].Key != "Note" || back.Run.Metadata[0].Section != "") {
			t.Errorf("%s: metadata %s, want the Note first, without a section", f.ext, js(back.Run.Metadata))
		}
	}
	for _, f := range forms {
		var b bytes.Buffer
		if err := f.write(&b, rateRun()); err != nil {
			t.Fatal(err)
		}
		s := b.String()
		at, hw := strings.Index(s, secServe), strings.Index(s, secHardware)
		if at < 0 || hw < 0 || at > hw || !strings.Contains(s, "Arrival: poisson, seed 42.") {
			t.Errorf("%s: rate table at %d, Hardware at %d, or no arrival in its caption", f.ext, at, hw)
		}
	}
}
