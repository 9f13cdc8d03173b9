package render

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	"speedmatrix/schema"
)

// serveKind says how a serve figure is printed.
type serveKind int

const (
	servePerS     serveKind = iota // requests per second: "53.21", "143"
	serveCount                     // a count: "1,024"
	serveTokS                      // tokens per second: "6,783.7", "18.3K"
	serveMs                        // a latency in ms: "830", "12.4"
	serveTBT                       // a time between tokens in ms: "28.1"
	serveInFlight                  // requests in flight on average: "4.3"
	serveTrend                     // in flight over time: "▁▄▇█▇▇▇▇▆▃" (Text)
)

// serveColumn is one figure of the serve table: the terminal summary and
// the documents print the same figures in the same order, the terminal
// rounded (a p99 beside its p50 in one cell), the documents in full.
type serveColumn struct {
	Doc  string // document header: "TTFT p50 (ms)"
	Term string // terminal header; "" for a p99 printed after its p50
	Kind serveKind
	Get  func(x *schema.Measurement) (float64, bool)
	// Text prints a figure that is not a number (serveTrend); "" when
	// the row has none.
	Text func(x *schema.Measurement) string
}

// serveColumns are the figures a person deciding on a load reads, after
// the context and the load: what was sent and done, errors, goodput,
// throughput, and the latencies a serving SLO names.
//
// Note: "Output tok/s" is the row's total_tok_s (output across all
// requests, as the All measurements table's Total tok/s); input and
// output together is "In+out tok/s", vLLM's total token throughput.
var serveColumns = []serveColumn{
	{"Achieved/s", "achieved/s", servePerS, extraOf("achieved_request_rate"), nil},
	{"Done/s", "done/s", servePerS, f64(func(x *schema.Measurement) *float64 { return x.RequestThroughput }), nil},
	{"Goodput/s", "goodput/s", servePerS, f64(func(x *schema.Measurement) *float64 { return x.GoodputReqS }), nil},
	{"Completed", "completed", serveCount, i64(func(x *schema.Measurement) *int64 { return x.CompletedRequests }), nil},
	{"Errors", "errors", serveCount, i64(func(x *schema.Measurement) *int64 { return x.ErroredRequests }), nil},
	{"Output tok/s", "out tok/s", serveTokS, f64(func(x *schema.Measurement) *float64 { return x.TotalTokS }), nil},
	{"In+out tok/s", "in+out tok/s", serveTokS, extraOf("total_token_throughput"), nil},
	{"TTFT p50 (ms)", "TTFT", serveMs, f64(func(x *schema.Measurement) *float64 { return x.TTFTMs }), nil},
	{"TTFT p99 (ms)", "", serveMs, f64(func(x *schema.Measurement) *float64 { return x.TTFTP99Ms }), nil},
	{"TBT p50 (ms)", "TBT", serveTBT, f64(func(x *schema.Measurement) *float64 { return x.TBTMs }), nil},
	{"TBT p99 (ms)", "", serveTBT, f64(func(x *schema.Measurement) *float64 { return x.TBTP99Ms }), nil},
	{"E2E p50 (ms)", "E2E", serveMs, f64(func(x *schema.Measurement) *float64 { return x.E2EP50Ms }), nil},
	{"E2E p99 (ms)", "", serveMs, f64(func(x *schema.Measurement) *float64 { return x.E2EP99Ms }), nil},
	{"In flight", "in flight", serveInFlight, f64(func(x *schema.Measurement) *float64 { return x.AvgActiveRequests }), nil},
	{"In flight over time", "over time", serveTrend, nil, schema.InFlightTrend},
}

// serveColumnsOf returns the serve columns rows print: all of them but
// the in-flight trend when no row has a series (other tools' rows, runs
// made before it was kept), so their tables read as they always did.
func serveColumnsOf(rows []*schema.Measurement) []serveColumn {
	for _, x := range rows {
		if schema.InFlightSeries(x) != nil {
			return serveColumns
		}
	}
	return slices.DeleteFunc(slices.Clone(serveColumns), func(c serveColumn) bool { return c.Kind == serveTrend })
}

func f64(p func(*schema.Measurement) *float64) func(*schema.Measurement) (float64, bool) {
	return func(x *schema.Measurement) (float64, bool) {
		if v := p(x); v != nil {
			return *v, true
		}
		return 0, false
	}
}

func i64(p func(*schema.Measurement) *int64) func(*schema.Measurement) (float64, bool) {
	return func(x *schema.Measurement) (float64, bool) {
		if v := p(x); v != nil {
			return float64(*v), true
		}
		return 0, false
	}
}

// extraOf reads the Extra metric called name.
func extraOf(name string) func(*schema.Measurement) (float64, bool) {
	return func(x *schema.Measurement) (float64, bool) {
		for _, e := range x.Extra {
			if e.Name == name {
				return e.Value, true
			}
		}
		return 0, false
	}
}

// full prints a serve figure in full for a document: the digits it needs
// to read back exactly, the unit in the header.
func (c serveColumn) full(x *schema.Measurement) string {
	if c.Text != nil {
		return cmp.Or(c.Text(x), None)
	}
	v, ok := c.Get(x)
	if !ok {
		return None
	}
	switch c.Kind {
	case servePerS, serveMs:
		// Note: the digits the run kept (request rates to four or six
		// significant digits), no padding: "143" is not "143.00".
		return FormatDecimal(v, 0)
	case serveCount:
		return FormatCount(int64(v))
	case serveTokS:
		return FormatTokS(v)
	}
	return FormatDecimal(v, 1) // serveTBT, serveInFlight
}

// rounded prints a serve figure for the terminal.
func (c serveColumn) rounded(x *schema.Measurement) string {
	if c.Text != nil {
		return cmp.Or(c.Text(x), None)
	}
	v, ok := c.Get(x)
	if !ok {
		return None
	}
	round := func(digits int) string {
		return FormatDecimal(math.Round(v*math.Pow10(digits))/math.Pow10(digits), digits)
	}
	switch c.Kind {
	case servePerS:
		return round(2)
	case serveCount:
		return FormatCount(int64(v))
	case serveMs, serveTBT:
		return humanMs(v)[:len(humanMs(v))-len(" ms")]
	}
	return round(1) // serveTokS, serveInFlight
}

// serveLoad names a serve row's load: its request rate ("4/s"; "all at
// once" for another tool's unbounded rate), its streams ("64 streams",
// a closed-loop probe), or both ("4/s · 64 streams", a rate with a
// concurrency limit).
func serveLoad(x *schema.Measurement) string {
	var rate, streams string
	if x.RequestRate != nil {
		rate = "all at once"
		if !math.IsInf(*x.RequestRate, 0) {
			rate = FormatDecimal(*x.RequestRate, 0) + "/s"
		}
	}
	if x.Concurrency != nil {
		streams = plural(int(*x.Concurrency), "stream", "streams")
	}
	switch {
	case rate != "" && streams != "":
		return rate + " · " + streams
	case rate != "":
		return rate
	case streams != "":
		return streams
	}
	return None
}

// serveRows returns the serve rows of ms, in table order.
func serveRows(ms []schema.Measurement) []*schema.Measurement {
	var rows []*schema.Measurement
	for i := range ms {
		if ms[i].Phase == schema.PhaseServe {
			rows = append(rows, &ms[i])
		}
	}
	return rows
}

// serveCap is the rate table's caption; arrival, when the run says it,
// is added in parentheses.
const serveCap = "One row per load: requests arrive at the rate asked, whatever the server does; a number of streams is a closed loop. Latencies in ms."

// newServeTable lays out the documents' rate table: every serve row of
// m, in table order, as Context, Load, a Status column when some row is
// not valid, then serveColumns in full. Nil when m has no serve row.
//
// Note: it is a view of rows the All measurements table holds; package
// parse checks every cell of it against them.
func newServeTable(m *schema.Matrix) *table {
	rows := serveRows(m.Measurements)
	if len(rows) == 0 {
		return nil
	}
	status := false
	for _, x := range rows {
		status = status || x.Status != schema.StatusValid
	}
	t := &table{Header: []string{gridCornerHdr, "Load"}}
	if status {
		t.Header = append(t.Header, "Status")
	}
	cols := serveColumnsOf(rows)
	for _, c := range cols {
		t.Header = append(t.Header, c.Doc)
	}
	for _, x := range rows {
		r := []string{label(x), serveLoad(x)}
		if status {
			r = append(r, StatusLabel(x.Status))
		}
		for _, c := range cols {
			r = append(r, c.full(x))
		}
		t.Rows = append(t.Rows, r)
	}
	return t
}

// serveCaption is the caption with the run's arrival process when its
// printed pairs say it ("poisson, seed 42").
func serveCaption(r *schema.Run) string {
	for _, f := range r.Metadata {
		if f.Key == "Arrival" && f.Value != "" {
			return fmt.Sprintf("%s Arrival: %s.", serveCap, f.Value)
		}
	}
	return serveCap
}
