package analysis

import (
	"fmt"
	"reflect"
	"strings"

	"speedmatrix/schema"
)

// Metric is one numeric column of schema.Measurement that deltas are
// computed for. Name is the column name (the JSON tag, such as
// "total_tok_s"); HigherIsBetter tells how a ratio above one reads.
type Metric struct {
	Name           string
	HigherIsBetter bool
	// Unit is the unit of the metric's values ("tok/s", "ms"; empty for
	// a count).
	Unit string
	get  func(*schema.Measurement) (float64, bool)
}

// Value returns the metric of m, and false when m does not carry it.
func (mt Metric) Value(m *schema.Measurement) (float64, bool) {
	if mt.get == nil {
		return 0, false
	}
	return mt.get(m)
}

// The metrics every comparison uses.
var (
	// TotalTokS is output tokens per second across all simultaneous
	// requests (prefill: prompt tokens per second).
	TotalTokS = Metric{Name: "total_tok_s", HigherIsBetter: true, Unit: "tok/s", get: ptr(func(m *schema.Measurement) *float64 { return m.TotalTokS })}
	// PerRequestTokS is the generation speed one request sees.
	PerRequestTokS = Metric{Name: "per_request_tok_s", HigherIsBetter: true, Unit: "tok/s", get: ptr(func(m *schema.Measurement) *float64 { return m.PerRequestTokS })}
	// TTFTMs is the median time to first token.
	TTFTMs = Metric{Name: "ttft_ms", Unit: "ms", get: ptr(func(m *schema.Measurement) *float64 { return m.TTFTMs })}
	// TBTMs is the median time between tokens.
	TBTMs = Metric{Name: "tbt_ms", Unit: "ms", get: ptr(func(m *schema.Measurement) *float64 { return m.TBTMs })}
)

func ptr(f func(*schema.Measurement) *float64) func(*schema.Measurement) (float64, bool) {
	return func(m *schema.Measurement) (float64, bool) {
		if p := f(m); p != nil {
			return *p, true
		}
		return 0, false
	}
}

// DefaultMetrics returns the metrics compared for a phase: throughput,
// per-request speed, TTFT and TBT for decode and serve rows; prompt speed
// and TTFT for prefill rows.
func DefaultMetrics(p schema.Phase) []Metric {
	if p == schema.PhasePrefill {
		return []Metric{TotalTokS, TTFTMs}
	}
	return []Metric{TotalTokS, PerRequestTokS, TTFTMs, TBTMs}
}

// MetricByName returns the metric for a measurements column name (any
// numeric column of schema.Measurement, by its JSON tag) or for a name in
// Measurement.Extra ("extra:" is not needed: unknown names are looked up
// in Extra). Whether higher is better follows the unit suffix: times
// (_ms, _s) and error or preemption counts are lower-is-better, the rest
// higher-is-better.
func MetricByName(name string) (Metric, error) {
	switch name {
	case TotalTokS.Name:
		return TotalTokS, nil
	case PerRequestTokS.Name:
		return PerRequestTokS, nil
	case TTFTMs.Name:
		return TTFTMs, nil
	case TBTMs.Name:
		return TBTMs, nil
	}
	if name == "" || strings.ContainsAny(name, " \t,") {
		return Metric{}, fmt.Errorf("metric %q: want a measurements column name such as total_tok_s", name)
	}
	mt := Metric{Name: name, HigherIsBetter: higherIsBetter(name), Unit: unitOf(name)}
	if i, ok := measurementFields()[name]; ok {
		mt.get = func(m *schema.Measurement) (float64, bool) {
			return numeric(reflect.ValueOf(m).Elem().Field(i))
		}
		return mt, nil
	}
	if _, ok := reflect.TypeOf(schema.Measurement{}).FieldByName(name); ok {
		return Metric{}, fmt.Errorf("metric %q: use the column name (JSON tag), not the Go field name", name)
	}
	mt.get = func(m *schema.Measurement) (float64, bool) {
		for _, e := range m.Extra {
			if e.Name == name {
				return e.Value, true
			}
		}
		return 0, false
	}
	return mt, nil
}

// measurementFields maps the JSON tag of every numeric pointer field of
// schema.Measurement to its field index.
func measurementFields() map[string]int {
	out := map[string]int{}
	t := reflect.TypeOf(schema.Measurement{})
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if f.Type.Kind() != reflect.Pointer {
			continue
		}
		switch f.Type.Elem().Kind() {
		case reflect.Float64, reflect.Int64, reflect.Int32:
		default:
			continue
		}
		tag, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if tag != "" && tag != "-" {
			out[tag] = i
		}
	}
	return out
}

func numeric(v reflect.Value) (float64, bool) {
	if v.IsNil() {
		return 0, false
	}
	e := v.Elem()
	switch e.Kind() {
	case reflect.Float64:
		return e.Float(), true
	case reflect.Int64, reflect.Int32:
		return float64(e.Int()), true
	}
	return 0, false
}

func higherIsBetter(name string) bool {
	switch {
	case strings.HasSuffix(name, "_ms"), strings.HasSuffix(name, "_s") && !strings.HasSuffix(name, "_tok_s") && !strings.HasSuffix(name, "_req_s"):
		return false
	case strings.Contains(name, "error"), strings.Contains(name, "preemption"):
		return false
	}
	return true
}

func unitOf(name string) string {
	switch {
	case strings.HasSuffix(name, "_tok_s"):
		return "tok/s"
	case strings.HasSuffix(name, "_req_s"):
		return "req/s"
	case strings.HasSuffix(name, "_ms"):
		return "ms"
	case strings.HasSuffix(name, "_s"):
		return "s"
	}
	return ""
}
