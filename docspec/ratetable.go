package docspec

import "speedmatrix/schema"

// ServeKind says what a rate-table figure is, and so how render prints it
// and in which unit parse reads it back.
type ServeKind int

// The kinds of rate-table figures.
const (
	ServePerS     ServeKind = iota // requests per second: "53.21", "143"
	ServeCount                     // a count: "1,024"
	ServeTokS                      // tokens per second: "6,783.7", "18.3K"
	ServeMs                        // a latency in ms: "830", "12.4"
	ServeTBT                       // a time between tokens in ms: "28.1"
	ServeInFlight                  // requests in flight on average: "4.3"
	ServeTrend                     // in flight over time: "▁▄▇█▇▇▇▇▆▃" (Text)
)

// ServeColumn is one figure of the serve table: the terminal summary and
// the documents print the same figures in the same order, the terminal
// rounded (a p99 beside its p50 in one cell), the documents in full.
type ServeColumn struct {
	Doc  string // document header: "TTFT p50 (ms)"
	Term string // terminal header; "" for a p99 printed after its p50
	Kind ServeKind
	// Get returns the row's figure, false when it has none; nil for a
	// figure that is not a number.
	Get func(x *schema.Measurement) (float64, bool)
	// Text prints a figure that is not a number (ServeTrend); "" when
	// the row has none.
	Text func(x *schema.Measurement) string
}

// ServeColumns are the figures a person deciding on a load reads, after
// the context and the load: what was sent and done, errors, goodput,
// throughput, and the latencies a serving SLO names. render writes them
// in this order; parse checks each against the row it names, finding
// the column by its Doc header.
//
// Note: "Output tok/s" is the row's total_tok_s (output across all
// requests, as the All measurements table's Total tok/s); input and
// output together is "In+out tok/s", vLLM's total token throughput.
var ServeColumns = []ServeColumn{
	{"Achieved/s", "achieved/s", ServePerS, extraOf("achieved_request_rate"), nil},
	{"Done/s", "done/s", ServePerS, f64(func(x *schema.Measurement) *float64 { return x.RequestThroughput }), nil},
	{"Goodput/s", "goodput/s", ServePerS, f64(func(x *schema.Measurement) *float64 { return x.GoodputReqS }), nil},
	{"Completed", "completed", ServeCount, i64(func(x *schema.Measurement) *int64 { return x.CompletedRequests }), nil},
	{"Errors", "errors", ServeCount, i64(func(x *schema.Measurement) *int64 { return x.ErroredRequests }), nil},
	{"Output tok/s", "out tok/s", ServeTokS, f64(func(x *schema.Measurement) *float64 { return x.TotalTokS }), nil},
	{"In+out tok/s", "in+out tok/s", ServeTokS, extraOf("total_token_throughput"), nil},
	{"TTFT p50 (ms)", "TTFT", ServeMs, f64(func(x *schema.Measurement) *float64 { return x.TTFTMs }), nil},
	{"TTFT p99 (ms)", "", ServeMs, f64(func(x *schema.Measurement) *float64 { return x.TTFTP99Ms }), nil},
	{"TBT p50 (ms)", "TBT", ServeTBT, f64(func(x *schema.Measurement) *float64 { return x.TBTMs }), nil},
	{"TBT p99 (ms)", "", ServeTBT, f64(func(x *schema.Measurement) *float64 { return x.TBTP99Ms }), nil},
	{"E2E p50 (ms)", "E2E", ServeMs, f64(func(x *schema.Measurement) *float64 { return x.E2EP50Ms }), nil},
	{"E2E p99 (ms)", "", ServeMs, f64(func(x *schema.Measurement) *float64 { return x.E2EP99Ms }), nil},
	{"In flight", "in flight", ServeInFlight, f64(func(x *schema.Measurement) *float64 { return x.AvgActiveRequests }), nil},
	{"In flight over time", "over time", ServeTrend, nil, schema.InFlightTrend},
}

// ServeCaption is the rate table's caption; ServeArrival and the run's
// arrival process follow it when the run says one ("Arrival: poisson,
// seed 42.").
const ServeCaption = "One row per load: requests arrive at the rate asked, whatever the server does; a number of streams is a closed loop. Latencies in ms."

// ServeArrival introduces the arrival process in the rate table's
// caption.
const ServeArrival = "Arrival: "

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
