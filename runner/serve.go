package runner

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"time"

	"speedmatrix/schema"
)

// ServeConfig describes an open-loop serving run (Config.Serve): request
// rates, or a sweep that finds them, instead of the closed-loop matrix.
// Its rows are phase serve, as other tools' serving runs are.
type ServeConfig struct {
	// Rates are the request rates to offer, per second, in order.
	Rates []float64
	// Sweep, when above 0 and Rates is empty, finds the rates first: a
	// closed-loop probe at one stream (the synchronous rate) and one at
	// ProbeConcurrency streams (the saturation rate), then Sweep rates
	// evenly spaced above the synchronous rate up to the saturation
	// rate, as guidellm's sweep profile does. The probes are rows too.
	Sweep            int
	ProbeConcurrency int
	// Arrival is ArrivalPoisson (default) or ArrivalConstant; Seed seeds
	// the arrival gaps and the lengths drawn for each request.
	Arrival string
	Seed    uint64
	// Input and Output are each request's prompt and answer lengths in
	// tokens (defaults 1024 and 128, vLLM's random dataset's).
	Input, Output Lengths
	// Requests per rate, or when 0 every arrival within Config.Duration.
	Requests int
	// SLO decides goodput; without bounds every completed request is good.
	SLO SLO
	// MaxInFlight bounds the requests in flight (default 1024): an
	// arrival finding them all busy waits, late and counted.
	MaxInFlight int
	// Drain bounds the wait for requests in flight after a rate's last
	// arrival (default DefaultDrain); the requests still streaming then
	// are cut and counted incomplete.
	Drain time.Duration
}

// defaults fills the zero fields of a serve config and checks the rest.
func (s *ServeConfig) defaults() error {
	switch s.Arrival {
	case "":
		s.Arrival = ArrivalPoisson
	case ArrivalPoisson, ArrivalConstant:
	default:
		return fmt.Errorf("arrival %q: want %s or %s", s.Arrival, ArrivalPoisson, ArrivalConstant)
	}
	if len(s.Rates) == 0 && s.Sweep <= 0 {
		return errors.New("no request rates and no sweep")
	}
	for _, r := range s.Rates {
		if !(r > 0) || math.IsInf(r, 0) {
			return fmt.Errorf("rate %v: want requests per second above 0", r)
		}
	}
	if s.Input.Max <= 0 {
		s.Input = Fixed(1024)
	}
	if s.Output.Max <= 0 {
		s.Output = Fixed(128)
	}
	if s.ProbeConcurrency <= 0 {
		s.ProbeConcurrency = 64
	}
	if s.MaxInFlight <= 0 {
		s.MaxInFlight = 1024
	}
	if s.Drain <= 0 {
		s.Drain = DefaultDrain
	}
	if s.Requests < 0 {
		return fmt.Errorf("requests %d: want at least 1 per rate", s.Requests)
	}
	return nil
}

// ServeRequestLabel is the label a serve load's request ids carry:
// "serve-r<rate>" ("serve-r2", "serve-r0.5"), "serve-sync" and
// "serve-c<N>" for a sweep's probes.
func ServeRequestLabel(rate float64, concurrency int) string {
	if rate > 0 && !math.IsInf(rate, 0) {
		return "serve-r" + strconv.FormatFloat(rate, 'f', -1, 64)
	}
	if concurrency == 1 {
		return "serve-sync"
	}
	return "serve-c" + strconv.Itoa(concurrency)
}

// serveLabel labels a serve row's context as parse labels other tools'
// serve rows (the nearest multiple of 1,024 with a K; the count below
// 896), so that compare aligns them.
//
// Note: parse.serveLabel is the same rule; runner does not import parse.
func serveLabel(tokens int64) string {
	if tokens < 896 {
		return strconv.FormatInt(tokens, 10)
	}
	return strconv.FormatInt(max(1, (tokens+512)/1024), 10) + "K"
}

// runServe measures the rates of cfg.Serve (after a sweep's probes) and
// returns their serve rows.
func (r *Runner) runServe(ctx context.Context) (*schema.Matrix, error) {
	cfg, sc := &r.cfg, r.cfg.Serve
	started := time.Now().UTC()
	m := &schema.Matrix{}
	// done holds the rows of an interrupted run (-resume), one per load in
	// the order they were measured: the loads are planned again the same
	// way (a sweep's rates from its probes' rows) and those are skipped.
	var done []schema.Measurement
	if cfg.Done != nil {
		m.Run = cfg.Done.Run
		done = cfg.Done.Measurements
		m.Samples = append(m.Samples, cfg.Done.Samples...)
		if m.Run.StartedAt != nil {
			started = *m.Run.StartedAt
		}
	}
	info, err := r.c.Discover(ctx, cfg.KVTokens)
	if err != nil {
		return nil, err
	}
	if info.MaxModelLen > 0 && sc.Input.Max+sc.Output.Max+contextMargin > info.MaxModelLen {
		return nil, fmt.Errorf("server %s: %d input + %d output tokens do not fit max_model_len %d", r.c.base, sc.Input.Max, sc.Output.Max, info.MaxModelLen)
	}
	dropped, err := r.settle(ctx, m, &info, started)
	if err != nil {
		return nil, err
	}
	defer r.startPower(ctx, m)()
	run := &m.Run
	run.DecodeTest, run.PrefillMode = "Open-loop request rate", ""
	run.MaxOutputTokens = schema.I64(sc.Output.Max)
	if sc.Requests > 0 {
		run.MeasureSeconds = nil
	}
	// meta keeps a fact in the run's metadata once: a resumed run keeps
	// what the interrupted one wrote.
	meta := func(k, v string) {
		if !slices.ContainsFunc(run.Metadata, func(f schema.Field) bool { return f.Key == k }) {
			run.Metadata = append(run.Metadata, schema.Field{Section: "Run", Key: k, Value: v})
		}
	}
	if len(dropped) > 0 {
		meta("Request fields the server rejected", fmt.Sprint(dropped))
	}
	if info.PromptFit.Note != "" {
		meta("POST /tokenize", info.PromptFit.Note)
	}
	meta("Arrival", fmt.Sprintf("%s, seed %d", sc.Arrival, sc.Seed))
	meta("Input tokens", sc.Input.String())
	meta("Output tokens", sc.Output.String())
	if sc.Requests > 0 {
		meta("Requests per rate", strconv.Itoa(sc.Requests))
	}
	if !sc.SLO.IsZero() {
		meta("Goodput SLO", sc.SLO.String())
	}

	if cfg.Plan != nil {
		cfg.Plan(r.serveSchedule(len(done)))
	}
	ctxTokens := int64(math.Round(sc.Input.Mean()))
	label := serveLabel(ctxTokens)
	prompt, err := r.buildPrompt(ctx, sc.Input.Max, label, cfg.Tag)
	if err != nil {
		return nil, fmt.Errorf("prompt of %d tokens: %w", sc.Input.Max, err)
	}
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	rows := func(rate float64, conc int) schema.Measurement {
		x := schema.Measurement{Phase: schema.PhaseServe, ContextLabel: label, ContextTokens: schema.I64(ctxTokens)}
		if rate != 0 {
			x.RequestRate = schema.F64(rate)
		}
		if conc > 0 {
			x.Concurrency = schema.I32(int32(conc))
		}
		return x
	}
	load, loads := 0, len(sc.Rates)
	if loads == 0 {
		loads = sc.Sweep + 2
	}
	measure := func(x schema.Measurement, lc loadConfig) (schema.Measurement, error) {
		if load < len(done) {
			// Measured before the interrupt: kept as it is.
			d := done[load]
			if !sameLoad(d, x) {
				return x, fmt.Errorf("resume: row %d of the checkpoint (%s) is not the load planned (%s)", load+1, loadName(d), loadName(x))
			}
			m.Measurements = append(m.Measurements, d)
			load++
			return d, nil
		}
		lc.body = r.serveBodies(prompt, label, load, len(lc.at)+lc.n)
		lc.maxInFlight = sc.MaxInFlight
		lc.header = max(cfg.StartTimeout, r.c.timeouts.Header)
		lc.idle = cfg.IdleTimeout
		lc.drain = sc.Drain
		idx := load
		lc.onTokens = func(tokens int64, sent int, elapsed time.Duration) {
			r.progress(Progress{Cell: idx + 1, Cells: loads, Phase: "measure", Label: lc.label, PhaseName: schema.PhaseServe,
				Elapsed: elapsed, Tokens: tokens})
		}
		res := r.c.runLoad(ctx, lc)
		if r.onLoad != nil {
			r.onLoad(&res)
		}
		load++
		if res.interrupted {
			return x, ctx.Err()
		}
		var span [2]int64
		x, span = r.serveRow(x, &res, load-1, m)
		roundFigures(&x)
		r.loadEnergy(ctx, &x, res.epoch, span)
		m.Measurements = append(m.Measurements, x)
		r.progress(Progress{Cell: load, Cells: loads, Phase: "done", Done: true, Label: lc.label, PhaseName: schema.PhaseServe, Status: x.Status, TokS: deref(x.TotalTokS)})
		if cfg.Checkpoint != nil {
			if err := cfg.Checkpoint(r.finish(m)); err != nil {
				return x, fmt.Errorf("checkpoint: %w", err)
			}
		}
		return x, nil
	}
	closedLoad := func(conc int) loadConfig {
		lc := loadConfig{label: ServeRequestLabel(0, conc), concurrency: conc, n: sc.Requests}
		if lc.n == 0 {
			// Enough for the whole window at any speed; the window ends it.
			lc.n, lc.closedFor = 1<<20, cfg.Duration
		}
		return lc
	}
	rates := sc.Rates
	if len(rates) == 0 {
		syncRow, err := measure(rows(0, 1), closedLoad(1))
		if err != nil {
			return r.finish(m), err
		}
		satRow, err := measure(rows(0, sc.ProbeConcurrency), closedLoad(sc.ProbeConcurrency))
		if err != nil {
			return r.finish(m), err
		}
		lo, hi := deref(syncRow.RequestThroughput), deref(satRow.RequestThroughput)
		if !(lo > 0) || !(hi > 0) {
			// The probes' rows are measured data: the run keeps them,
			// and says why it has no rates.
			meta("Sweep", fmt.Sprintf("not run: the probes measured no request throughput (synchronous %v, %d streams %v)", lo, sc.ProbeConcurrency, hi))
			return r.finish(m), nil
		}
		var how string
		rates, how = sweepRates(lo, hi, sc.Sweep, sc.ProbeConcurrency)
		meta("Sweep", how)
	}
	for k, rate := range rates {
		rng := newRand(sc.Seed ^ uint64(k+1)*0x9e3779b97f4a7c15)
		lc := loadConfig{label: ServeRequestLabel(rate, 0), at: schedule(sc.Arrival, rate, sc.Requests, cfg.Duration, rng)}
		if _, err := measure(rows(rate, 0), lc); err != nil {
			return r.finish(m), err
		}
	}
	return r.finish(m), nil
}

// sweepMinRise is how much the saturation probe's request throughput
// must exceed the synchronous probe's for a sweep to spread its rates
// between the two: below it the server's throughput does not rise with
// streams (or the probes were disturbed), and rates between two nearly
// equal figures would measure one load several times.
const sweepMinRise = 1.1

// sweepRates plans a sweep's n rates from the synchronous probe's request
// throughput lo and the saturation probe's hi (conc streams), ascending
// and never the same rate twice, with a sentence for the run's metadata.
// When hi rises above lo by sweepMinRise, the rates are evenly spaced
// above lo up to hi, as guidellm's sweep does; otherwise (a server whose
// throughput does not rise with streams, or a saturation probe that
// measured less than the synchronous one on a loaded machine) they are
// evenly spaced from 0 up to the higher of the two, and the metadata
// says why.
//
// Note: rates are rounded to 4 significant digits (the document prints
// them so) and a rate that rounds onto one already planned is left out:
// two rows at one rate would not read back as two rows.
func sweepRates(lo, hi float64, n, conc int) ([]float64, string) {
	from, top := lo, hi
	how := fmt.Sprintf("%d rates from the synchronous rate %.4g/s to the saturation rate %.4g/s (%d streams)", n, lo, hi, conc)
	if hi < lo*sweepMinRise {
		from, top = 0, max(lo, hi)
		how = fmt.Sprintf("%d rates up to %.4g/s: the saturation rate %.4g/s (%d streams) is not above the synchronous rate %.4g/s by %.0f%%, so the rates spread from 0 to the higher of the two",
			n, top, hi, conc, lo, 100*(sweepMinRise-1))
	}
	var rates []float64
	for k := 1; k <= n; k++ {
		r := roundSig(from+(top-from)*float64(k)/float64(n), 4)
		if r > 0 && (len(rates) == 0 || r > rates[len(rates)-1]) {
			rates = append(rates, r)
		}
	}
	if len(rates) < n {
		how += fmt.Sprintf("; %d of the %d rates coincided at 4 significant digits and were measured once", n-len(rates), n)
	}
	return rates, how
}

// sameLoad reports whether a checkpointed row d is of the load x is
// planned for: the same request rate, or the same probe's streams.
func sameLoad(d, x schema.Measurement) bool {
	return deref(d.RequestRate) == deref(x.RequestRate) && derefI32(d.Concurrency) == derefI32(x.Concurrency) &&
		d.Phase == x.Phase && d.ContextLabel == x.ContextLabel
}

// loadName names a serve row's load for messages.
func loadName(x schema.Measurement) string {
	if x.RequestRate != nil {
		return fmt.Sprintf("%v requests/s", *x.RequestRate)
	}
	return fmt.Sprintf("a probe of %d streams", derefI32(x.Concurrency))
}

func derefI32(p *int32) int32 {
	if p == nil {
		return 0
	}
	return *p
}

func deref(p *float64) float64 {
	if p == nil {
		return 0
	}
	return *p
}

// serveBodies returns the body and max_tokens of each of load's n
// requests: a prompt of its drawn input length with a tag of its own
// first (so no request shares a cached prefix with another), and its
// drawn max_tokens. The lengths are drawn here, in order, from the seed;
// the bodies are built by each request's goroutine.
//
// Note: a drawn input length below the fitted prompt's is cut from it in
// proportion to its bytes, so its token count is close, not exact; the
// measured mean (usage.prompt_tokens) is in prompt_tokens.
func (r *Runner) serveBodies(p Prompt, label string, load, n int) func(i int) ([]byte, int64) {
	sc := r.cfg.Serve
	rng := newRand(sc.Seed ^ 0x5eed ^ uint64(load)<<32)
	type req struct {
		in, out int64
		tag     uint32
	}
	reqs := make([]req, n)
	for i := range reqs {
		reqs[i] = req{in: sc.Input.draw(rng), out: sc.Output.draw(rng), tag: rng.Uint32()}
	}
	head := len(promptHead(r.cfg.Tag, label))
	return func(i int) ([]byte, int64) {
		q := reqs[i]
		text := p.Text
		if q.in < p.Tokens && p.Tokens > 0 {
			cut := int(int64(len(text)) * q.in / p.Tokens)
			text = text[:max(cut, head)]
		}
		text = promptHead(fmt.Sprintf("%08x", q.tag), label) + text[head:]
		return r.c.completionBody(text, int(q.out)), q.out
	}
}

// serveRow turns one load into its serve row (samples go to m).
// The span it returns is the row's, first request handed over to the
// last one's end (ns from res.epoch), for its energy (loadEnergy).
func (r *Runner) serveRow(x schema.Measurement, res *loadRun, load int, m *schema.Matrix) (schema.Measurement, [2]int64) {
	sc := r.cfg.Serve
	f := figuresOf(res, sc.SLO, !r.cfg.NoSamples)
	f.fill(&x)
	if !sc.SLO.IsZero() && f.seconds() > 0 {
		x.GoodputReqS = schema.F64(roundSig(float64(f.good)/f.seconds(), 4)) // as request_throughput
	}
	x.Extra = append(x.Extra, schema.Metric{Name: "requested_output_len", Value: sc.Output.Mean()})
	x.Status = schema.StatusValid
	var notes []string
	switch {
	case f.sent == 0:
		x.Status, x.StatusReason = schema.StatusError, "no request was sent"
	case f.overran > 0:
		x.Status, x.StatusReason = schema.StatusError, f.overranReason()
	case float64(f.errored)/float64(f.sent) > r.cfg.MaxErrorRate:
		x.Status = schema.StatusError
		x.StatusReason = fmt.Sprintf("%d of %d requests failed (over %.0f%%); first: %s", f.errored, f.sent, 100*r.cfg.MaxErrorRate, f.errSample)
	case f.completed == 0:
		x.Status, x.StatusReason = schema.StatusError, "no request completed"
	}
	if f.late > 0 {
		notes = append(notes, fmt.Sprintf("%d of %d requests were sent more than %v late (the client fell behind its schedule)", f.late, f.sent, time.Duration(lateAfter)))
	}
	if f.incomplete > 0 {
		notes = append(notes, fmt.Sprintf("%d requests were still streaming %v after the last arrival and were cut", f.incomplete, sc.Drain))
	}
	addNotes(&x, notes)
	for i := range f.samples {
		s := &f.samples[i]
		s.Phase, s.ContextLabel, s.Repeat = schema.PhaseServe, x.ContextLabel, int32(load)
		if x.Concurrency != nil {
			s.Concurrency = *x.Concurrency
		}
	}
	m.Samples = append(m.Samples, f.samples...)
	return x, [2]int64{f.firstStart, f.lastEnd}
}
