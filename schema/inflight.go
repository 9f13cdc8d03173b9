package schema

import (
	"strconv"
	"strings"
)

// InFlightPoints is the length of a serve row's in-flight series: the
// mean number of requests in flight over each tenth of the load's span.
const InFlightPoints = 10

// InFlightSeriesName returns the Extra metric that holds point k
// (0-based) of the in-flight series: "in_flight_t01" … "in_flight_t10".
func InFlightSeriesName(k int) string {
	s := strconv.Itoa(k + 1)
	if len(s) < 2 {
		s = "0" + s
	}
	return "in_flight_t" + s
}

// InFlightSeries returns the in-flight series m holds, or nil when it
// lacks a point (rows of other tools, and matrix cells).
func InFlightSeries(m *Measurement) []float64 {
	vals := make([]float64, InFlightPoints)
	for k := range vals {
		found := false
		for _, e := range m.Extra {
			if e.Name == InFlightSeriesName(k) {
				vals[k], found = e.Value, true
				break
			}
		}
		if !found {
			return nil
		}
	}
	return vals
}

// sparks are the eight levels of a trend, lowest first.
var sparks = []rune("▁▂▃▄▅▆▇█")

// InFlightTrend draws m's in-flight series as the documents print it in
// their rate table, one block per point scaled to the series' peak
// ("▁▄▇█▇▇▇▇▆▃"); "" when m has none. Package render prints it and
// package parse checks it against the row, so the two agree by
// construction.
func InFlightTrend(m *Measurement) string {
	vals := InFlightSeries(m)
	if vals == nil {
		return ""
	}
	top := 0.0
	for _, v := range vals {
		top = max(top, v)
	}
	var b strings.Builder
	for _, v := range vals {
		level := 0
		if top > 0 && v > 0 {
			level = min(len(sparks)-1, int(v/top*float64(len(sparks)-1)+0.5))
		}
		b.WriteRune(sparks[level])
	}
	return b.String()
}
