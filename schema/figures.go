package schema

import (
	"fmt"
	"math"
	"strings"
)

// Bound says which values a figure can take, by what it measures.
type Bound int

// The bounds of figures.
const (
	// NonNegative is a rate, a latency, a duration, a count or a token
	// total: finite and at least 0.
	NonNegative Bound = iota
	// Fraction is a share of a whole (a cache hit rate, an acceptance
	// rate): finite, from 0 to 1.
	Fraction
	// OfferedRate is a request rate a benchmark offered: at least 0, and
	// +Inf for "all requests at once" (vLLM's --request-rate inf).
	OfferedRate
)

// FigureError is a figure no instrument can produce: a negative or
// infinite rate, latency or count, a fraction outside 0–1.
type FigureError struct {
	// Field is the figure's column (ttft_ms, total_tok_s, …).
	Field string
	// Value is the figure as read.
	Value float64
	// Bound is what the figure may be.
	Bound Bound
}

// Error says which figure is impossible and why.
func (e *FigureError) Error() string {
	return fmt.Sprintf("%s %s: %s", e.Field, FormatFigure(e.Value), e.Bound.want())
}

// NonFinite reports whether the figure is infinite or not a number: the
// sentinel a tool writes when it divides by a zero duration or count,
// rather than a printed negative figure.
func (e *FigureError) NonFinite() bool { return math.IsInf(e.Value, 0) || math.IsNaN(e.Value) }

// FormatFigure prints a figure as the error texts do: Infinity,
// -Infinity, NaN or the shortest decimal.
func FormatFigure(v float64) string {
	switch {
	case math.IsInf(v, 1):
		return "Infinity"
	case math.IsInf(v, -1):
		return "-Infinity"
	case math.IsNaN(v):
		return "NaN"
	}
	return fmt.Sprint(v)
}

func (b Bound) want() string {
	switch b {
	case Fraction:
		return "a fraction is a finite number from 0 to 1"
	case OfferedRate:
		return "a request rate is a number from 0 up, or Infinity for all at once"
	}
	return "a rate, latency, count or token total is a finite number from 0 up"
}

// ok reports whether v is within b.
func (b Bound) ok(v float64) bool {
	switch b {
	case Fraction:
		return v >= 0 && v <= 1 // false for NaN
	case OfferedRate:
		return v >= 0 // false for NaN; +Inf allowed
	}
	return v >= 0 && !math.IsInf(v, 1)
}

// figure is one checked field of a measurement.
type figure struct {
	name  string
	bound Bound
	f     func(m *Measurement) **float64 // the field's address
	i     func(m *Measurement) **int64
}

// figures lists every numeric column of a measurement and its bound.
// TestFiguresCoverMeasurement checks that none is missing.
var figures = []figure{
	{name: "context_tokens", i: func(m *Measurement) **int64 { return &m.ContextTokens }},
	{name: "total_tok_s", f: func(m *Measurement) **float64 { return &m.TotalTokS }},
	{name: "per_request_tok_s", f: func(m *Measurement) **float64 { return &m.PerRequestTokS }},
	{name: "ttft_ms", f: func(m *Measurement) **float64 { return &m.TTFTMs }},
	{name: "tbt_ms", f: func(m *Measurement) **float64 { return &m.TBTMs }},
	{name: "avg_active_requests", f: func(m *Measurement) **float64 { return &m.AvgActiveRequests }},
	{name: "completed_requests", i: func(m *Measurement) **int64 { return &m.CompletedRequests }},
	{name: "output_tokens", i: func(m *Measurement) **int64 { return &m.OutputTokens }},
	{name: "measured_s", f: func(m *Measurement) **float64 { return &m.MeasuredS }},
	{name: "ttft_mean_ms", f: func(m *Measurement) **float64 { return &m.TTFTMeanMs }},
	{name: "ttft_p50_ms", f: func(m *Measurement) **float64 { return &m.TTFTP50Ms }},
	{name: "ttft_p90_ms", f: func(m *Measurement) **float64 { return &m.TTFTP90Ms }},
	{name: "ttft_p99_ms", f: func(m *Measurement) **float64 { return &m.TTFTP99Ms }},
	{name: "ttfc_ms", f: func(m *Measurement) **float64 { return &m.TTFCMs }},
	{name: "tbt_mean_ms", f: func(m *Measurement) **float64 { return &m.TBTMeanMs }},
	{name: "tbt_p50_ms", f: func(m *Measurement) **float64 { return &m.TBTP50Ms }},
	{name: "tbt_p90_ms", f: func(m *Measurement) **float64 { return &m.TBTP90Ms }},
	{name: "tbt_p99_ms", f: func(m *Measurement) **float64 { return &m.TBTP99Ms }},
	{name: "chunk_gap_mean_ms", f: func(m *Measurement) **float64 { return &m.ChunkGapMeanMs }},
	{name: "chunk_gap_p50_ms", f: func(m *Measurement) **float64 { return &m.ChunkGapP50Ms }},
	{name: "chunk_gap_p90_ms", f: func(m *Measurement) **float64 { return &m.ChunkGapP90Ms }},
	{name: "chunk_gap_p99_ms", f: func(m *Measurement) **float64 { return &m.ChunkGapP99Ms }},
	{name: "e2e_mean_ms", f: func(m *Measurement) **float64 { return &m.E2EMeanMs }},
	{name: "e2e_p50_ms", f: func(m *Measurement) **float64 { return &m.E2EP50Ms }},
	{name: "e2e_p90_ms", f: func(m *Measurement) **float64 { return &m.E2EP90Ms }},
	{name: "e2e_p99_ms", f: func(m *Measurement) **float64 { return &m.E2EP99Ms }},
	{name: "prompt_tokens", i: func(m *Measurement) **int64 { return &m.PromptTokens }},
	{name: "input_tokens_total", i: func(m *Measurement) **int64 { return &m.InputTokensTotal }},
	{name: "input_tok_s", f: func(m *Measurement) **float64 { return &m.InputTokS }},
	{name: "request_rate", bound: OfferedRate, f: func(m *Measurement) **float64 { return &m.RequestRate }},
	{name: "request_throughput", f: func(m *Measurement) **float64 { return &m.RequestThroughput }},
	{name: "goodput_req_s", f: func(m *Measurement) **float64 { return &m.GoodputReqS }},
	{name: "errored_requests", i: func(m *Measurement) **int64 { return &m.ErroredRequests }},
	{name: "server_generation_tokens", i: func(m *Measurement) **int64 { return &m.ServerGenerationTokens }},
	{name: "server_preemptions", i: func(m *Measurement) **int64 { return &m.ServerPreemptions }},
	{name: "server_prefix_cache_hit_rate", bound: Fraction, f: func(m *Measurement) **float64 { return &m.ServerPrefixCacheHits }},
	{name: "server_spec_accept_rate", bound: Fraction, f: func(m *Measurement) **float64 { return &m.ServerSpecAcceptRate }},
	{name: "server_running_avg", f: func(m *Measurement) **float64 { return &m.ServerRunningAvg }},
	{name: "energy_j", f: func(m *Measurement) **float64 { return &m.EnergyJ }},
	{name: "avg_power_w", f: func(m *Measurement) **float64 { return &m.AvgPowerW }},
	{name: "output_tok_per_j", f: func(m *Measurement) **float64 { return &m.OutputTokPerJ }},
	{name: "loop_period_chars", i: func(m *Measurement) **int64 { return &m.LoopPeriodChars }},
	{name: "loop_cycles", i: func(m *Measurement) **int64 { return &m.LoopCycles }},
}

// CheckFigures returns every figure of m outside what it measures
// allows (nil when all are possible): rates, latencies, durations,
// counts and token totals are finite and non-negative, fractions from 0
// to 1, an offered request rate non-negative or +Inf. The concurrency
// is a count of streams: non-negative too.
func (m *Measurement) CheckFigures() []*FigureError {
	var out []*FigureError
	if m.Concurrency != nil && *m.Concurrency < 0 {
		out = append(out, &FigureError{Field: "concurrency", Value: float64(*m.Concurrency)})
	}
	for _, f := range figures {
		var v float64
		switch {
		case f.f != nil:
			p := *f.f(m)
			if p == nil {
				continue
			}
			v = *p
		default:
			p := *f.i(m)
			if p == nil {
				continue
			}
			v = float64(*p)
		}
		if !f.bound.ok(v) {
			out = append(out, &FigureError{Field: f.name, Value: v, Bound: f.bound})
		}
	}
	return out
}

// ClearFigure sets the figure named field (a name of a FigureError) to
// null; it reports whether m has such a field.
func (m *Measurement) ClearFigure(field string) bool {
	if field == "concurrency" {
		m.Concurrency = nil
		return true
	}
	for _, f := range figures {
		if f.name != field {
			continue
		}
		if f.f != nil {
			*f.f(m) = nil
		} else {
			*f.i(m) = nil
		}
		return true
	}
	return false
}

// ExtraChecked reports whether an extra metric (Measurement.Extra) is,
// by its name, a rate, latency, duration, count or token total, and so
// bound to NonNegative: a word of the snake_case name is ms, count,
// requests or tokens, two words are tok and s (tok_s), or the last word
// is s (a duration: wall_time_s). A name holding a word that says the
// figure is signed is not checked: delay and lag (against a schedule a
// request is early or late), diff, delta, change, offset, skew, drift, ci (a
// confidence bound below a small mean), corr or correlation, slope,
// residual, bias, gain, improvement.
//
// Note: by the name, because an extra has no column to declare its
// bound; a name outside these rules is stored as read. The words were
// chosen against every extra the readers make of testdata (1,316
// names): schedule_delay_*_ms and *_diff_pct are negative there.
func ExtraChecked(name string) bool {
	checked, prev := false, ""
	for w := range strings.SplitSeq(strings.ToLower(name), "_") {
		switch w {
		case "delay", "lag", "diff", "delta", "change", "offset", "skew", "drift", "ci",
			"corr", "correlation", "slope", "residual", "bias", "gain", "improvement":
			return false
		case "ms", "count", "requests", "tokens":
			checked = true
		case "s":
			if prev == "tok" {
				checked = true
			}
		}
		prev = w
	}
	return checked || prev == "s"
}

// CheckExtra returns the error of an extra metric that ExtraChecked
// binds and whose value is negative, infinite or NaN (Field is the
// metric's name), nil for a possible one or one not checked.
func CheckExtra(e Metric) *FigureError {
	if NonNegative.ok(e.Value) || !ExtraChecked(e.Name) {
		return nil
	}
	return &FigureError{Field: e.Name, Value: e.Value}
}

// runFigures lists the figures of a run that have a bound.
var runFigures = []struct {
	name  string
	bound Bound
	f     func(r *Run) **float64
}{
	{"vram_gb", NonNegative, func(r *Run) **float64 { return &r.VRAMGB }},
	{"gpu_memory_utilization", Fraction, func(r *Run) **float64 { return &r.GPUMemoryUtilization }},
	{"measure_seconds", NonNegative, func(r *Run) **float64 { return &r.MeasureSeconds }},
}

// CheckFigures returns every figure of the run outside its bound: the
// GPU memory (vram_gb) and the measuring time (measure_seconds) are
// finite and non-negative, gpu_memory_utilization a fraction from 0 to
// 1 (vLLM's --gpu-memory-utilization). nil when all are possible.
func (r *Run) CheckFigures() []*FigureError {
	var out []*FigureError
	for _, f := range runFigures {
		if p := *f.f(r); p != nil && !f.bound.ok(*p) {
			out = append(out, &FigureError{Field: f.name, Value: *p, Bound: f.bound})
		}
	}
	return out
}

// ClearFigure sets the run's figure named field (a name of a
// FigureError of Run.CheckFigures) to null; it reports whether the run
// has such a field.
func (r *Run) ClearFigure(field string) bool {
	for _, f := range runFigures {
		if f.name == field {
			*f.f(r) = nil
			return true
		}
	}
	return false
}
