package runcmd

import (
	"crypto/rand"
	"encoding/binary"
	"errors"
	"flag"
	"fmt"
	"strconv"
	"time"

	"speedmatrix/runner"
)

// serveFlags are the flags of an open-loop serving run (-rates).
type serveFlags struct {
	rates, arrival, seed, input, output, slo string
	requests, maxInFlight                    int
	drain                                    time.Duration
	// seedUsed is the arrival seed of the run (drawn when -seed is not
	// given), printed so that the run can be repeated.
	seedUsed uint64
}

func (s *serveFlags) define(fs *flag.FlagSet) {
	fs.StringVar(&s.rates, "rates", "", "open-loop request rates per second, e.g. 1,2,4,8, or sweep (sweep:N for N rates): serve rows instead of the matrix")
	fs.StringVar(&s.arrival, "arrival", runner.ArrivalPoisson, "with -rates: arrival process, poisson or constant")
	fs.StringVar(&s.seed, "seed", "", "with -rates: seed of the arrivals and drawn lengths (default: random, printed)")
	fs.StringVar(&s.input, "input-tokens", "1024", "with -rates: prompt tokens per request, fixed (1024) or uniform:MIN-MAX")
	fs.StringVar(&s.output, "output-tokens", "128", "with -rates: output tokens (max_tokens) per request, fixed or uniform:MIN-MAX")
	fs.IntVar(&s.requests, "requests", 0, "with -rates: requests per rate (default: every arrival within -duration)")
	fs.IntVar(&s.maxInFlight, "max-inflight", 1024, "with -rates: most requests in flight; an arrival finding them all busy waits and counts as late")
	fs.StringVar(&s.slo, "slo", "", "with -rates: goodput's service-level objective, e.g. ttft:500ms,tbt:50ms (e2e too)")
	fs.DurationVar(&s.drain, "drain", runner.DefaultDrain, "with -rates: bound on the wait for requests still streaming after a rate's last arrival; those still streaming then are cut and counted in incomplete_requests (not -drain-timeout, a decode cell's wait for the server's queue)")
}

// key lists the settings that name a -rates run in its checkpoint key.
func (s *serveFlags) key() []string {
	return []string{"rates", s.rates, s.arrival, s.seed, s.input, s.output, s.slo, strconv.Itoa(s.requests), strconv.Itoa(s.maxInFlight)}
}

// serveOnly are the flags that mean something only with -rates.
var serveOnly = []string{"arrival", "seed", "input-tokens", "output-tokens", "requests", "slo", "max-inflight", "drain"}

// matrixOnly are the flags of the closed-loop matrix that a -rates run
// refuses: its lengths are -input-tokens and -output-tokens.
var matrixOnly = []string{"contexts", "prefill-contexts", "max-tokens", "prefill"}

// serveConfig reads the -rates flags: nil without -rates.
//
// Note: -concurrency combines with -rates sweep only, as the streams of
// its saturation probe (one value; default 64); with a list of rates the
// load is the rate and no concurrency applies, so it is refused. -duration
// is each rate's length unless -requests is given; both at once are
// refused.
func (o *options) serveConfig() (*runner.ServeConfig, error) {
	s := &o.serve
	if s.rates == "" {
		for _, f := range serveOnly {
			if o.set[f] {
				return nil, fmt.Errorf("-%s applies to open-loop runs: give -rates too", f)
			}
		}
		return nil, nil
	}
	for _, f := range matrixOnly {
		if o.set[f] {
			return nil, fmt.Errorf("-%s does not apply with -rates (prompt and output lengths are -input-tokens and -output-tokens)", f)
		}
	}
	rates, sweep, err := runner.ParseRates(s.rates)
	if err != nil {
		return nil, err
	}
	c := &runner.ServeConfig{Rates: rates, Sweep: sweep, Arrival: s.arrival, Requests: s.requests,
		ProbeConcurrency: 64, MaxInFlight: s.maxInFlight}
	if s.drain <= 0 {
		return nil, fmt.Errorf("-drain %v: want a positive duration", s.drain)
	}
	c.Drain = s.drain
	if s.maxInFlight < 1 {
		return nil, fmt.Errorf("-max-inflight %d: want at least 1", s.maxInFlight)
	}
	if s.arrival != runner.ArrivalPoisson && s.arrival != runner.ArrivalConstant {
		return nil, fmt.Errorf("-arrival %q: want %s or %s", s.arrival, runner.ArrivalPoisson, runner.ArrivalConstant)
	}
	if o.set["concurrency"] {
		if sweep == 0 {
			return nil, errors.New("-concurrency does not apply to a list of rates (open loop: the rate is the load); with -rates sweep it sets the saturation probe's streams")
		}
		n, err := runner.ParseConcurrency(o.concurrency)
		if err != nil {
			return nil, err
		}
		if len(n) != 1 {
			return nil, fmt.Errorf("-concurrency %s: -rates sweep takes one value, its saturation probe's streams", o.concurrency)
		}
		c.ProbeConcurrency = n[0]
	}
	if o.set["requests"] && s.requests < 1 {
		return nil, fmt.Errorf("-requests %d: want at least 1 per rate", s.requests)
	}
	if o.set["requests"] && o.set["duration"] {
		return nil, errors.New("-duration and -requests both bound a rate: give one")
	}
	if o.duration <= 0 && s.requests == 0 {
		return nil, fmt.Errorf("-duration %v: want each rate's length above 0 (e.g. 30s), or -requests", o.duration)
	}
	if c.Input, err = runner.ParseLengths(s.input); err != nil {
		return nil, fmt.Errorf("-input-tokens: %w", err)
	}
	if c.Output, err = runner.ParseLengths(s.output); err != nil {
		return nil, fmt.Errorf("-output-tokens: %w", err)
	}
	if c.SLO, err = runner.ParseSLO(s.slo); err != nil {
		return nil, fmt.Errorf("-slo: %w", err)
	}
	if s.seed == "" {
		var b [8]byte
		_, _ = rand.Read(b[:])
		s.seedUsed = binary.LittleEndian.Uint64(b[:]) >> 1 // fits an int64 for readers
	} else if s.seedUsed, err = strconv.ParseUint(s.seed, 10, 63); err != nil {
		return nil, fmt.Errorf("-seed %q: want a non-negative integer", s.seed)
	}
	c.Seed = s.seedUsed
	return c, nil
}
