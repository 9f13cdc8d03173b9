package runner

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"speedmatrix/schema"
)

// Schedule is what a run is about to measure, step by step in the order
// the runner measures it, and how long each step is expected to take.
// Runner.Run builds it from the plan it then executes (the contexts
// capped to the server's max_model_len, the cells over its KV budget, the
// cells an interrupted run finished) and hands it to Config.Plan before
// any load; a progress printer uses it for the time left (Left).
type Schedule struct {
	// Steps are the cells of a matrix run, or the loads of a serving run,
	// in the order they are measured (Progress.Cell is a step's index + 1).
	Steps []Step
	// Window is a decode cell's measurement window, or a serving load's
	// length when -requests does not bound it.
	Window time.Duration
	// Serve is the serving run's configuration (nil for a matrix run).
	Serve *ServeConfig
}

// Step is one cell or load of a Schedule.
type Step struct {
	Phase       schema.Phase
	Label       string
	Concurrency int
	// Rate is a serving load's requests per second (0 for a sweep's
	// closed-loop probes and for its rates, which the probes decide).
	Rate float64
	// Skip says why the step is not measured ("" when it is): over the
	// KV budget, or finished by the interrupted run being resumed.
	Skip string
	// Fixed is the part of the step's length the runner sets (a decode
	// cell's window, a load's arrivals); Guess the allowance for the rest
	// (prompt, scout, ramp-up, queue drain, the requests still streaming
	// after the last arrival), which Left replaces by what the steps of
	// the same phase took once one has run. Unknown marks a step whose
	// length no setting tells (a sweep's rates with -requests).
	Fixed, Guess time.Duration
	Unknown      bool
}

// Skip reasons of a Step.
const (
	SkipOverCapacity = "over capacity"
	SkipDone         = "measured before the interrupt"
)

// Allowances for the parts of a step that no setting fixes, until a step
// of the same phase has run.
//
// Note: a decode cell's ramp-up is the scout (a cold prefill of the
// context) plus every stream's first token and, with /metrics, the queue
// draining; on the simulator it is well under a second, on a real server
// with a long context a few seconds. 5 s errs long for small contexts;
// Left corrects it after the first cell.
const (
	rampUpGuess  = 5 * time.Second
	prefillGuess = 2 * time.Second
	drainGuess   = 5 * time.Second
)

// schedule is the Schedule of the plan Run is about to execute; done
// holds the keys of the cells an interrupted run finished.
func (r *Runner) schedule(plan []planContext, done map[string]bool) Schedule {
	cfg := &r.cfg
	s := Schedule{Window: cfg.Duration}
	for _, cx := range plan {
		for _, c := range cx.cells {
			st := Step{Phase: c.phase, Label: cx.label, Concurrency: c.c}
			switch {
			case done[c.key()]:
				st.Skip = SkipDone
			case c.over:
				st.Skip = SkipOverCapacity
			case c.phase == schema.PhasePrefill:
				st.Guess = prefillGuess
				if cfg.PrefillMode == PrefillStandalone {
					st.Guess *= time.Duration(cfg.PrefillRepeats)
				}
			default:
				st.Fixed, st.Guess = cfg.Duration, rampUpGuess
			}
			s.Steps = append(s.Steps, st)
		}
	}
	return s
}

// serveSchedule is the Schedule of a serving run, done loads finished by
// the interrupted run.
func (r *Runner) serveSchedule(done int) Schedule {
	cfg, sc := &r.cfg, r.cfg.Serve
	s := Schedule{Serve: sc}
	if sc.Requests == 0 {
		s.Window = cfg.Duration
	}
	load := func(st Step) {
		st.Phase = schema.PhaseServe
		switch {
		case len(s.Steps) < done:
			st.Skip = SkipDone
		case sc.Requests == 0:
			st.Fixed = cfg.Duration
		case st.Rate > 0:
			st.Fixed = time.Duration(float64(sc.Requests) / st.Rate * float64(time.Second))
		default:
			st.Unknown = true
		}
		if st.Skip == "" {
			st.Guess = min(drainGuess, sc.Drain)
		}
		s.Steps = append(s.Steps, st)
	}
	if len(sc.Rates) == 0 {
		load(Step{Label: ServeRequestLabel(0, 1), Concurrency: 1})
		load(Step{Label: ServeRequestLabel(0, sc.ProbeConcurrency), Concurrency: sc.ProbeConcurrency})
		for range sc.Sweep {
			load(Step{Label: "sweep rate"})
		}
		return s
	}
	for _, rate := range sc.Rates {
		load(Step{Label: ServeRequestLabel(rate, 0), Rate: rate})
	}
	return s
}

// Estimate is the expected length of the steps still to measure, and how
// many of them have a length no setting tells (left out of it).
func (s Schedule) Estimate() (d time.Duration, unknown int) {
	return s.Left(0, nil)
}

// Left estimates the time the steps after the first done ones will take.
// took[i] is how long step i took, for the finished steps (i < done); a
// step's Guess is replaced by the mean of what the finished steps of its
// phase took beyond their Fixed part. It also returns how many of the
// steps left have a length no setting tells (left out of the estimate).
func (s Schedule) Left(done int, took []time.Duration) (d time.Duration, unknown int) {
	type mean struct {
		sum time.Duration
		n   int
	}
	seen := map[schema.Phase]*mean{}
	for i := 0; i < done && i < len(s.Steps) && i < len(took); i++ {
		st := s.Steps[i]
		if st.Skip != "" || st.Unknown {
			continue
		}
		m := seen[st.Phase]
		if m == nil {
			m = &mean{}
			seen[st.Phase] = m
		}
		m.sum += max(0, took[i]-st.Fixed)
		m.n++
	}
	for i := max(done, 0); i < len(s.Steps); i++ {
		st := s.Steps[i]
		switch {
		case st.Skip != "":
			continue
		case st.Unknown:
			unknown++
			continue
		}
		extra := st.Guess
		if m := seen[st.Phase]; m != nil {
			extra = m.sum / time.Duration(m.n)
		}
		d += st.Fixed + extra
	}
	return d, unknown
}

// String is the plan line a command prints before any load, e.g.
// "12 cells (2 contexts 8K, 16K: 2 prefill + 10 decode at concurrency 1,
// 2, 4, 8, 16), 30s window + about 5s ramp-up per decode cell: about 7 min".
func (s Schedule) String() string {
	if s.Serve != nil {
		return s.serveString()
	}
	var labels []string
	var conc []int
	prefill, decode, over, done, measured := 0, 0, 0, 0, 0
	for _, st := range s.Steps {
		if len(labels) == 0 || labels[len(labels)-1] != st.Label {
			labels = append(labels, st.Label)
		}
		switch st.Skip {
		case SkipOverCapacity:
			over++
		case SkipDone:
			done++
		case "":
			if st.Phase == schema.PhaseDecode {
				measured++
			}
		}
		if st.Phase == schema.PhasePrefill {
			prefill++
			continue
		}
		decode++
		if !slices.Contains(conc, st.Concurrency) {
			conc = append(conc, st.Concurrency)
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s (%s %s: ", plural(prefill+decode, "cell"), plural(len(labels), "context"), strings.Join(labels, ", "))
	var parts []string
	if prefill > 0 {
		parts = append(parts, fmt.Sprintf("%d prefill", prefill))
	}
	if decode > 0 {
		parts = append(parts, fmt.Sprintf("%d decode at concurrency %s", decode, joinInts(slices.Sorted(slices.Values(conc)))))
	}
	if len(parts) == 0 {
		parts = append(parts, "none to measure")
	}
	b.WriteString(strings.Join(parts, " + "))
	b.WriteString(")")
	if over > 0 {
		fmt.Fprintf(&b, ", %d over the KV budget (not run)", over)
	}
	if done > 0 {
		fmt.Fprintf(&b, ", %d measured before the interrupt (kept)", done)
	}
	if measured > 0 {
		fmt.Fprintf(&b, ", %v window + about %v ramp-up per decode cell", s.Window, rampUpGuess)
	}
	d, _ := s.Estimate()
	fmt.Fprintf(&b, ": %s", About(d))
	return b.String()
}

func (s Schedule) serveString() string {
	sc := s.Serve
	each := fmt.Sprintf("%d requests each", sc.Requests)
	if s.Window > 0 {
		each = fmt.Sprintf("%v each", s.Window)
	}
	var b strings.Builder
	if len(sc.Rates) == 0 {
		fmt.Fprintf(&b, "2 closed-loop probes (1 and %d streams) then %s between their request rates (%s arrivals), %s",
			sc.ProbeConcurrency, plural(sc.Sweep, "rate"), sc.Arrival, each)
	} else {
		rates := make([]string, len(sc.Rates))
		for i, r := range sc.Rates {
			rates[i] = strconv.FormatFloat(r, 'g', 4, 64)
		}
		fmt.Fprintf(&b, "%s (%s requests/s, %s arrivals), %s", plural(len(sc.Rates), "rate"), strings.Join(rates, ", "), sc.Arrival, each)
	}
	fmt.Fprintf(&b, " + about %v for the requests still streaming", min(drainGuess, sc.Drain))
	done := 0
	for _, st := range s.Steps {
		if st.Skip == SkipDone {
			done++
		}
	}
	if done > 0 {
		fmt.Fprintf(&b, ", %d measured before the interrupt (kept)", done)
	}
	d, unknown := s.Estimate()
	switch {
	case unknown == 0:
		fmt.Fprintf(&b, ": %s", About(d))
	case d == 0:
		b.WriteString(": a length the server's speed decides (told after the first load)")
	default:
		fmt.Fprintf(&b, ": %s before %s whose length the probes decide", About(d), plural(unknown, "more load"))
	}
	return b.String()
}

// About rounds a duration for a person: "about 40 s", "about 7 min",
// "about 1 h 20 min".
func About(d time.Duration) string {
	switch {
	case d < 10*time.Second:
		return fmt.Sprintf("about %d s", max(1, int(d.Round(time.Second)/time.Second)))
	case d < 55*time.Second:
		return fmt.Sprintf("about %d s", int(d.Round(10*time.Second)/time.Second))
	case d < 59*time.Minute+30*time.Second:
		return fmt.Sprintf("about %d min", max(1, int((d+30*time.Second)/time.Minute)))
	}
	m := int((d + 30*time.Second) / time.Minute)
	if m%60 == 0 {
		return fmt.Sprintf("about %d h", m/60)
	}
	return fmt.Sprintf("about %d h %d min", m/60, m%60)
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return strconv.Itoa(n) + " " + what + "s"
}

func joinInts(xs []int) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = strconv.Itoa(x)
	}
	return strings.Join(s, ", ")
}
