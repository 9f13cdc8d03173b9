package power

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"speedmatrix/internal/source"
)

// DefaultPromQuery is the expression the Prometheus source evaluates when
// its URL names none: every DCGM energy counter it holds, summed (mJ).
const DefaultPromQuery = "sum(" + DCGMEnergy + ")"

// PromResult is an instant query's answer: its value summed over the
// series of a vector (or a scalar's value).
type PromResult struct {
	// At is the evaluation time the answer carries.
	At time.Time
	// Value is the sum; Series how many series it sums (1 for a scalar).
	Value  float64
	Series int
	// Texts are the values as written, one per series.
	Texts []string
}

// ParsePromQuery reads a Prometheus HTTP API answer to /api/v1/query.
// An error answer ("status": "error") is returned as an error with its
// type and message; an empty vector too (no series matched).
func ParsePromQuery(b []byte, name string) (PromResult, error) {
	var resp struct {
		Status    string `json:"status"`
		ErrorType string `json:"errorType"`
		Error     string `json:"error"`
		Data      *struct {
			ResultType string          `json:"resultType"`
			Result     json.RawMessage `json:"result"`
		} `json:"data"`
	}
	if err := json.Unmarshal(b, &resp); err != nil {
		return PromResult{}, jsonError(b, name, err)
	}
	switch {
	case resp.Status == "error":
		return PromResult{}, source.Errorf(name, 1, "query failed: %s: %s", resp.ErrorType, resp.Error)
	case resp.Status != "success":
		return PromResult{}, source.Errorf(name, 1, "status %q, want success", resp.Status)
	case resp.Data == nil:
		return PromResult{}, source.Errorf(name, 1, "no data")
	}
	line := lineAt(b, int64(bytes.Index(b, []byte(`"result"`))))
	var out PromResult
	switch resp.Data.ResultType {
	case "scalar":
		var pair []json.RawMessage
		if err := json.Unmarshal(resp.Data.Result, &pair); err != nil {
			return PromResult{}, source.Errorf(name, line, "scalar result: %v", err)
		}
		at, v, text, err := promSample(pair)
		if err != nil {
			return PromResult{}, source.Errorf(name, line, "scalar result: %v", err)
		}
		out = PromResult{At: at, Value: v, Series: 1, Texts: []string{text}}
	case "vector":
		var series []struct {
			Metric map[string]string `json:"metric"`
			Value  []json.RawMessage `json:"value"`
		}
		if err := json.Unmarshal(resp.Data.Result, &series); err != nil {
			return PromResult{}, source.Errorf(name, line, "vector result: %v", err)
		}
		if len(series) == 0 {
			return PromResult{}, source.Errorf(name, line, "the query matched no series")
		}
		for i, s := range series {
			at, v, text, err := promSample(s.Value)
			if err != nil {
				return PromResult{}, source.Errorf(name, line, "series %d %v: %v", i, s.Metric, err)
			}
			out.At, out.Value, out.Series = at, out.Value+v, out.Series+1
			out.Texts = append(out.Texts, text)
		}
	default:
		return PromResult{}, source.Errorf(name, line, "result type %q: want an instant vector or a scalar (an energy counter)", resp.Data.ResultType)
	}
	return out, nil
}

// promSample reads [unix seconds, "value"].
func promSample(pair []json.RawMessage) (time.Time, float64, string, error) {
	if len(pair) != 2 {
		return time.Time{}, 0, "", fmt.Errorf("want [time, \"value\"], got %d elements", len(pair))
	}
	var ts float64
	if err := json.Unmarshal(pair[0], &ts); err != nil {
		return time.Time{}, 0, "", fmt.Errorf("time %s: not a number", pair[0])
	}
	var s string
	if err := json.Unmarshal(pair[1], &s); err != nil {
		return time.Time{}, 0, "", fmt.Errorf("value %s: not a string", pair[1])
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return time.Time{}, 0, "", fmt.Errorf("value %q: not a finite number", s)
	}
	sec, frac := math.Modf(ts)
	return time.Unix(int64(sec), int64(frac*1e9)), v, s, nil
}

// Prometheus reads an energy counter from a Prometheus server's HTTP API:
// an instant query at each edge of a window, end minus start.
type Prometheus struct {
	// URL is the query endpoint, with the expression in its query
	// parameter (http://prom:9090/api/v1/query?query=sum(…)); a base URL
	// (http://prom:9090) gets /api/v1/query and DefaultPromQuery. Its
	// parameter unit (not sent) says the counter's unit: mJ (default, as
	// DCGM's), J or kWh.
	URL      string
	Client   *http.Client
	Timeouts Timeouts
}

// Name returns "prometheus URL" (without user information).
func (p *Prometheus) Name() string { return "prometheus " + displayURL(p.URL) }

// endpoint returns the query URL (without time) and the joules per unit
// of the counter.
func (p *Prometheus) endpoint() (*url.URL, float64, error) {
	u, err := url.Parse(p.URL)
	if err != nil {
		return nil, 0, err
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return nil, 0, fmt.Errorf("URL %s: want http or https", displayURL(p.URL))
	}
	if u.Path == "" || u.Path == "/" {
		u.Path = "/api/v1/query"
	}
	q := u.Query()
	if q.Get("query") == "" {
		q.Set("query", DefaultPromQuery)
	}
	scale := 1e-3
	switch unit := q.Get("unit"); unit {
	case "", "mJ":
	case "J":
		scale = 1
	case "kWh":
		scale = 3.6e6
	default:
		return nil, 0, fmt.Errorf("unit %q: want mJ, J or kWh", unit)
	}
	q.Del("unit")
	q.Del("time")
	u.RawQuery = q.Encode()
	return u, scale, nil
}

// Query evaluates the expression at t, bounded by ctx and
// Timeouts.Request.
func (p *Prometheus) Query(ctx context.Context, t time.Time) (PromResult, float64, error) {
	u, scale, err := p.endpoint()
	if err != nil {
		return PromResult{}, 0, err
	}
	q := u.Query()
	q.Set("time", strconv.FormatFloat(float64(t.UnixNano())/1e9, 'f', 3, 64))
	u.RawQuery = q.Encode()
	ctx, cancel := context.WithTimeout(ctx, p.Timeouts.withDefaults().Request)
	defer cancel()
	client := p.Client
	if client == nil {
		client = http.DefaultClient
	}
	b, err := getBody(ctx, client, u.String())
	if err != nil {
		return PromResult{}, 0, err
	}
	r, err := ParsePromQuery(b, displayURL(p.URL))
	return r, scale, err
}

// Start checks that the query answers now; Prometheus keeps the samples,
// so the meter itself samples nothing.
func (p *Prometheus) Start(ctx context.Context) (Meter, error) {
	if _, _, err := p.Query(ctx, time.Now()); err != nil {
		return nil, fmt.Errorf("%s: %w", p.Name(), err)
	}
	return promMeter{p}, nil
}

type promMeter struct{ p *Prometheus }

// Window evaluates the counter at both edges.
//
// Note: an instant query answers the newest sample at or before its time,
// so each edge is early by up to one of Prometheus's scrape intervals
// (EdgeJ is not known here and is left zero); windows much longer than
// the scrape interval keep that small.
func (m promMeter) Window(ctx context.Context, from, to time.Time) (Energy, error) {
	if !to.After(from) {
		return Energy{}, fmt.Errorf("empty window (%v to %v)", from, to)
	}
	a, scale, err := m.p.Query(ctx, from)
	if err != nil {
		return Energy{}, err
	}
	b, _, err := m.p.Query(ctx, to)
	if err != nil {
		return Energy{}, err
	}
	if a.Series != b.Series {
		return Energy{}, fmt.Errorf("the query summed %d series at the window's start and %d at its end", a.Series, b.Series)
	}
	if b.Value < a.Value {
		return Energy{}, errors.New("the energy counter fell over the window (reset?)")
	}
	j := (b.Value - a.Value) * scale
	return Energy{J: j, AvgW: j / to.Sub(from).Seconds(), Method: "counter", Readings: 2}, nil
}

func (m promMeter) Close() error { return nil }
