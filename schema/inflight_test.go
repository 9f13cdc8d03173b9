package schema

import "testing"

// TestInFlightTrend: the series is read from its ten extras by name, a
// row missing any point has none, and the trend scales each point to the
// series' peak in eight levels.
func TestInFlightTrend(t *testing.T) {
	if InFlightSeriesName(0) != "in_flight_t01" || InFlightSeriesName(9) != "in_flight_t10" {
		t.Errorf("names %q … %q", InFlightSeriesName(0), InFlightSeriesName(9))
	}
	row := func(vals ...float64) *Measurement {
		m := &Measurement{Extra: []Metric{{Name: "max_active_requests", Value: 9}}}
		for k, v := range vals {
			m.Extra = append(m.Extra, Metric{Name: InFlightSeriesName(k), Value: v})
		}
		return m
	}
	for _, c := range []struct {
		name string
		m    *Measurement
		want string
	}{
		{"ramp", row(0, 1, 2, 3, 4, 5, 6, 7, 7, 3.5), "▁▂▃▄▅▆▇██▅"},
		{"idle", row(0, 0, 0, 0, 0, 0, 0, 0, 0, 0), "▁▁▁▁▁▁▁▁▁▁"},
		{"a point missing", row(1, 2, 3, 4, 5, 6, 7, 8, 9), ""},
		{"no series", &Measurement{}, ""},
	} {
		if got := InFlightTrend(c.m); got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
	if s := InFlightSeries(row(1, 2, 3, 4, 5, 6, 7, 8, 9, 10)); len(s) != 10 || s[0] != 1 || s[9] != 10 {
		t.Errorf("series %v", s)
	}
}
