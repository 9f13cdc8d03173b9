package runner

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"time"
)

// Arrival processes of an open-loop rate (ServeConfig.Arrival).
const (
	// ArrivalPoisson spaces requests by exponential gaps of mean 1/rate
	// (vLLM bench serve's default, guidellm's poisson profile).
	ArrivalPoisson = "poisson"
	// ArrivalConstant spaces requests exactly 1/rate apart.
	ArrivalConstant = "constant"
)

// ParseRates reads -rates: a comma-separated list of request rates per
// second ("1,2,4.5,8"), or "sweep" (five rates found by a probe) or
// "sweep:N" (N rates). It returns the rates, or the number of sweep
// rates with nil rates.
func ParseRates(s string) (rates []float64, sweep int, err error) {
	s = strings.TrimSpace(s)
	if n, ok := strings.CutPrefix(s, "sweep"); ok {
		if n == "" {
			return nil, 5, nil
		}
		k, err := strconv.Atoi(strings.TrimPrefix(n, ":"))
		if !strings.HasPrefix(n, ":") || err != nil || k < 1 || k > 100 {
			return nil, 0, fmt.Errorf("rates %q: want sweep or sweep:N with N from 1 to 100", s)
		}
		return nil, k, nil
	}
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		v, err := strconv.ParseFloat(f, 64)
		if err != nil || !(v > 0) || math.IsInf(v, 0) {
			return nil, 0, fmt.Errorf("rate %q: want requests per second above 0, e.g. 0.5 or 8", f)
		}
		rates = append(rates, v)
	}
	if len(rates) == 0 {
		return nil, 0, fmt.Errorf("no rates in %q: want e.g. 1,2,4,8 or sweep", s)
	}
	return rates, 0, nil
}

// Lengths is a token count per request: fixed (Min == Max) or drawn
// uniformly from [Min, Max] for each request.
type Lengths struct {
	Min, Max int64
	// Spec is the text it was read from ("1024", "uniform:512-2048").
	Spec string
}

// ParseLengths reads a token count ("1024", "1K") or a distribution
// "uniform:MIN-MAX".
func ParseLengths(s string) (Lengths, error) {
	s = strings.TrimSpace(s)
	one := func(f string) (int64, error) {
		v, err := ParseContexts(f)
		if err != nil || len(v) != 1 || v[0] < 1 {
			return 0, fmt.Errorf("token count %q: want a positive count such as 512 or 2K", f)
		}
		return v[0], nil
	}
	if r, ok := strings.CutPrefix(s, "uniform:"); ok {
		lo, hi, ok := strings.Cut(r, "-")
		if !ok {
			return Lengths{}, fmt.Errorf("lengths %q: want uniform:MIN-MAX, e.g. uniform:512-2048", s)
		}
		a, err := one(lo)
		if err != nil {
			return Lengths{}, err
		}
		b, err := one(hi)
		if err != nil {
			return Lengths{}, err
		}
		if b < a {
			return Lengths{}, fmt.Errorf("lengths %q: the maximum is below the minimum", s)
		}
		return Lengths{Min: a, Max: b, Spec: s}, nil
	}
	v, err := one(s)
	if err != nil {
		return Lengths{}, err
	}
	return Lengths{Min: v, Max: v, Spec: s}, nil
}

// Fixed returns a fixed length.
func Fixed(n int64) Lengths { return Lengths{Min: n, Max: n, Spec: strconv.FormatInt(n, 10)} }

// Mean returns the distribution's mean.
func (l Lengths) Mean() float64 { return float64(l.Min+l.Max) / 2 }

// draw returns one length.
func (l Lengths) draw(rng *rand.Rand) int64 {
	if l.Max <= l.Min {
		return l.Min
	}
	return l.Min + rng.Int64N(l.Max-l.Min+1)
}

// String returns the spec.
func (l Lengths) String() string {
	if l.Spec != "" {
		return l.Spec
	}
	if l.Min == l.Max {
		return strconv.FormatInt(l.Min, 10)
	}
	return fmt.Sprintf("uniform:%d-%d", l.Min, l.Max)
}

// SLO is the service-level objective of goodput: a request is good when
// it completed and each bound that is set (above 0) holds for it.
type SLO struct {
	TTFT, TBT, E2E time.Duration
}

// ParseSLO reads -slo: comma-separated key:value pairs, keys ttft, tbt
// (or tpot) and e2e (or e2el), values Go durations ("500ms") or plain
// milliseconds ("500"), as vLLM's --goodput takes them.
func ParseSLO(s string) (SLO, error) {
	var o SLO
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		k, v, ok := strings.Cut(f, ":")
		if !ok {
			return SLO{}, fmt.Errorf("slo %q: want key:value, e.g. ttft:500ms", f)
		}
		d, err := time.ParseDuration(strings.TrimSpace(v))
		if err != nil {
			ms, err2 := strconv.ParseFloat(strings.TrimSpace(v), 64)
			if err2 != nil {
				return SLO{}, fmt.Errorf("slo %q: want a duration such as 500ms", f)
			}
			d = time.Duration(ms * float64(time.Millisecond))
		}
		if d <= 0 {
			return SLO{}, fmt.Errorf("slo %q: want a bound above 0", f)
		}
		switch strings.ToLower(strings.TrimSpace(k)) {
		case "ttft":
			o.TTFT = d
		case "tbt", "tpot":
			o.TBT = d
		case "e2e", "e2el":
			o.E2E = d
		default:
			return SLO{}, fmt.Errorf("slo %q: unknown key %q (want ttft, tbt or e2e)", f, k)
		}
	}
	return o, nil
}

// IsZero reports whether no bound is set.
func (o SLO) IsZero() bool { return o.TTFT <= 0 && o.TBT <= 0 && o.E2E <= 0 }

// String prints the bounds as ParseSLO reads them.
func (o SLO) String() string {
	var parts []string
	for _, b := range []struct {
		k string
		d time.Duration
	}{{"ttft", o.TTFT}, {"tbt", o.TBT}, {"e2e", o.E2E}} {
		if b.d > 0 {
			parts = append(parts, b.k+":"+b.d.String())
		}
	}
	return strings.Join(parts, ",")
}

// meets reports whether a completed request's TTFT, TBT and E2E (ms; a
// TBT below 0 when it has none, a one-chunk answer) are within o.
func (o SLO) meets(ttft, tbt, e2e float64) bool {
	ok := func(v float64, d time.Duration) bool { return d <= 0 || v <= float64(d)/float64(time.Millisecond) }
	return ok(ttft, o.TTFT) && (tbt < 0 || ok(tbt, o.TBT)) && ok(e2e, o.E2E)
}

// schedule returns the send times (ns from the rate's start) of an
// open-loop rate: n requests, or when n is 0 every arrival before
// duration. Poisson gaps are drawn from rng.
func schedule(arrival string, rate float64, n int, duration time.Duration, rng *rand.Rand) []int64 {
	var out []int64
	t := 0.0 // seconds
	for i := 0; ; i++ {
		if n > 0 && i == n {
			break
		}
		if i > 0 {
			if arrival == ArrivalConstant {
				t = float64(i) / rate // no accumulated rounding
			} else {
				t += rng.ExpFloat64() / rate
			}
		}
		at := int64(t * 1e9)
		if n == 0 && at >= int64(duration) {
			break
		}
		out = append(out, at)
	}
	return out
}
