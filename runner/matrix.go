package runner

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"speedmatrix/power"
	"speedmatrix/redact"
	"speedmatrix/schema"
)

// Prefill modes (Config.PrefillMode).
const (
	// PrefillWarmup measures prefill from the first (cold) scout request
	// of a context's first decode cell: "Measured during decode warm-up".
	PrefillWarmup = "warmup"
	// PrefillStandalone sends PrefillRepeats unique cold prompts per
	// context and reports the median.
	PrefillStandalone = "standalone"
)

// BenchTool is the tool name written into Run.BenchTool.
const BenchTool = "speedmatrix run"

// Labels are what the user tells about the hardware and engine; the
// server cannot report them.
type Labels struct {
	GPU           string
	VRAMGB        *float64
	Quantization  string
	Engine        string
	EngineVersion string
	// LaunchCommand must already be redacted (parse.ParseLaunch).
	LaunchCommand string
	// Extra, when set, fills further run fields (the launch command's
	// settings) before the run id is computed.
	Extra func(r *schema.Run)
}

// Config describes a measuring run.
type Config struct {
	// Contexts are the decode contexts in tokens, before capping (each
	// also gets a prefill cell, from its scout); PrefillContexts adds
	// prefill-only contexts.
	Contexts        []int64
	PrefillContexts []int64
	Concurrency     []int
	// Duration is the measurement window of a decode cell (default 30 s).
	Duration time.Duration
	// MaxTokens is max_tokens of every decode request (default 4096).
	MaxTokens int
	// PrefillMode is PrefillWarmup (default) or PrefillStandalone, with
	// PrefillRepeats unique prompts (default 3).
	PrefillMode    string
	PrefillRepeats int
	// KVTokens overrides the KV budget the server reports.
	KVTokens int64
	// IdleTimeout fails a request of a decode cell that receives nothing
	// for this long once streaming (default: the client's Timeouts.Idle).
	IdleTimeout time.Duration
	// StartTimeout bounds the ramp-up of a cell (default 10 min): every
	// stream's first token, and a request's wait for its headers and
	// first event.
	StartTimeout time.Duration
	// DrainTimeout bounds the wait, after the ramp-up, for /metrics to
	// show the server's queue drained (default 1 min); past it the window
	// opens anyway and the cell says so.
	DrainTimeout time.Duration
	// Warn receives warnings given before any load (nil: none), such as a
	// concurrency above the server's slots.
	Warn func(msg string)
	// MaxErrorRate marks a cell error when more of its requests failed
	// (default 0.1).
	MaxErrorRate float64
	// Labels are stored in the run.
	Labels Labels
	// Tag is the per-run random prompt tag (random when empty; a resumed
	// run passes the checkpoint's).
	Tag string
	// Done holds the finished cells of an interrupted run (-resume); they
	// are kept as they are and not measured again.
	Done *schema.Matrix
	// Progress receives progress events (nil: none).
	Progress func(Progress)
	// Plan receives the run's Schedule once the server is discovered and
	// before any load (nil: none).
	Plan func(Schedule)
	// Note receives messages for the person running, before any load: a
	// requested context measured at another length (nil: none). They are
	// kept in the run's metadata too.
	Note func(string)
	// Checkpoint is called after each cell with the matrix so far.
	Checkpoint func(m *schema.Matrix) error
	// NoSamples drops per-request samples from the result.
	NoSamples bool
	// Serve, when set, makes the run an open-loop serving run (serve.go):
	// request rates instead of contexts and concurrency levels.
	Serve *ServeConfig
	// Power, when set, measures each decode cell's energy over its window
	// and the idle power for PowerIdle (default 2 s) before the first
	// cell (power.go).
	Power     power.Source
	PowerIdle time.Duration
}

// Runner measures one server.
type Runner struct {
	c    *Client
	cfg  Config
	info ServerInfo
	pool []*stream
	// scrub removes the API key, the URL's password and secrets of known
	// forms from every text of the matrix, in finish.
	scrub *redact.Scrubber
	// onLoad, set by tests only, sees each serve load's raw records
	// before its row is computed.
	onLoad func(*loadRun)
	// pw is the run's power meter (power.go).
	pw *powerState
}

// New returns a runner for the server behind c.
func New(c *Client, cfg Config) (*Runner, error) {
	if cfg.Serve != nil {
		if len(cfg.Contexts) > 0 || len(cfg.PrefillContexts) > 0 {
			return nil, errors.New("a serving run measures request rates, not contexts")
		}
		if err := cfg.Serve.defaults(); err != nil {
			return nil, err
		}
	} else if len(cfg.Contexts) == 0 && len(cfg.PrefillContexts) == 0 {
		return nil, errors.New("no contexts to measure")
	}
	if len(cfg.Contexts) > 0 && len(cfg.Concurrency) == 0 {
		return nil, errors.New("no concurrency levels")
	}
	if cfg.Duration <= 0 {
		cfg.Duration = 30 * time.Second
	}
	if cfg.MaxTokens <= 0 {
		cfg.MaxTokens = 4096
	}
	switch cfg.PrefillMode {
	case "":
		cfg.PrefillMode = PrefillWarmup
	case PrefillWarmup, PrefillStandalone:
	default:
		return nil, fmt.Errorf("prefill mode %q: want %s or %s", cfg.PrefillMode, PrefillWarmup, PrefillStandalone)
	}
	if cfg.PrefillRepeats <= 0 {
		cfg.PrefillRepeats = 3
	}
	if cfg.IdleTimeout <= 0 {
		cfg.IdleTimeout = c.timeouts.Idle
	}
	if cfg.StartTimeout <= 0 {
		cfg.StartTimeout = 10 * time.Minute
	}
	if cfg.DrainTimeout <= 0 {
		cfg.DrainTimeout = time.Minute
	}
	if cfg.MaxErrorRate <= 0 {
		cfg.MaxErrorRate = 0.1
	}
	if cfg.Tag == "" {
		cfg.Tag = NewTag()
	}
	if cfg.PowerIdle <= 0 {
		cfg.PowerIdle = 2 * time.Second
	}
	scrub := redact.NewScrubber(append([]string{c.apiKey}, redact.URLSecrets(c.base)...)...)
	return &Runner{c: c, cfg: cfg, scrub: scrub}, nil
}

// NewTag returns a random 8-hex-digit prompt tag.
func NewTag() string {
	var b [4]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// Tag returns the run's prompt tag (kept in checkpoints for -resume).
func (r *Runner) Tag() string { return r.cfg.Tag }

// cellKey names a cell for resume matching.
func cellKey(phase schema.Phase, label string, c int32) string {
	return fmt.Sprintf("%s/%s/%d", phase, label, c)
}

// Run measures every cell and returns the matrix. When ctx is cancelled
// it stops at once and returns the finished cells with ctx's error; a
// server that dies leaves the remaining cells as errors.
func (r *Runner) Run(ctx context.Context) (*schema.Matrix, error) {
	cfg := &r.cfg
	if cfg.Serve != nil {
		return r.runServe(ctx)
	}
	started := time.Now().UTC()
	m := &schema.Matrix{}
	done := map[string]bool{}
	if cfg.Done != nil {
		m.Run = cfg.Done.Run
		for _, x := range cfg.Done.Measurements {
			c := int32(0)
			if x.Concurrency != nil {
				c = *x.Concurrency
			}
			done[cellKey(x.Phase, x.ContextLabel, c)] = true
			m.Measurements = append(m.Measurements, x)
		}
		m.Samples = append(m.Samples, cfg.Done.Samples...)
		if m.Run.StartedAt != nil {
			started = *m.Run.StartedAt
		}
	}
	info, err := r.c.Discover(ctx, cfg.KVTokens)
	if err != nil {
		return nil, err
	}
	if err := checkContexts(cfg, info.MaxModelLen); err != nil {
		return nil, fmt.Errorf("server %s: %w", r.c.base, err)
	}
	slots := r.slotWarning(info)
	if slots != "" && cfg.Warn != nil {
		cfg.Warn(slots)
	}
	dropped, err := r.settle(ctx, m, &info, started)
	if err != nil {
		return nil, err
	}
	if cfg.Done == nil {
		if len(dropped) > 0 {
			m.Run.Metadata = append(m.Run.Metadata, schema.Field{Section: "Run", Key: "Request fields the server rejected", Value: strings.Join(dropped, ", ")})
		}
		if info.PromptFit.Note != "" {
			m.Run.Metadata = append(m.Run.Metadata, schema.Field{Section: "Run", Key: "POST /tokenize", Value: info.PromptFit.Note})
		}
		if slots != "" {
			m.Run.Metadata = append(m.Run.Metadata, schema.Field{Section: "Run", Key: NoteSlots, Value: slots})
		}
	}

	defer r.startPower(ctx, m)()

	maxC := 1
	for _, c := range cfg.Concurrency {
		maxC = max(maxC, c)
	}
	r.pool = make([]*stream, maxC)
	for i := range r.pool {
		r.pool[i] = newStream()
	}

	plan := r.plan()
	r.addNotes(m, NoteContextsChanged, r.contextNotes())
	total := 0
	for _, cx := range plan {
		total += len(cx.cells)
	}
	if cfg.Plan != nil {
		cfg.Plan(r.schedule(plan, done))
	}
	idx := 0
	var serverDown string
	// kvFullAt lists the cells where the server's KV cache overflowed:
	// cells at least as large in context and concurrency are over
	// capacity too, and not run.
	var kvFullAt []planCell
	fullBefore := func(tokens int64, c int) (string, bool) {
		for _, x := range kvFullAt {
			if tokens >= x.tokens && c >= x.c {
				return fmt.Sprintf("the server's KV cache overflowed at %s × %d", x.label, x.c), true
			}
		}
		return "", false
	}
	for _, cx := range plan {
		var prompt Prompt
		var promptErr error
		needPrompt := false
		for _, cell := range cx.cells {
			if !done[cell.key()] && !cell.over {
				needPrompt = true
			}
		}
		if needPrompt && serverDown == "" {
			r.progress(Progress{Cell: idx + 1, Cells: total, Phase: "prompt", Label: cx.label})
			prompt, promptErr = r.buildPrompt(ctx, cx.tokens, cx.label, cfg.Tag)
			if ctx.Err() != nil {
				return m, ctx.Err()
			}
		}
		scouted := false
		for _, cell := range cx.cells {
			idx++
			if done[cell.key()] {
				continue
			}
			meas := schema.Measurement{
				Phase: cell.phase, ContextLabel: cx.label,
				ContextTokens: schema.I64(cx.tokens), Concurrency: schema.I32(int32(cell.c)),
			}
			var samples []schema.Sample
			ev := Progress{Cell: idx, Cells: total, Label: cx.label, Concurrency: cell.c, PhaseName: cell.phase}
			fullWhy, full := fullBefore(cx.tokens, cell.c)
			switch {
			case cell.over:
				meas.Status = schema.StatusOverCapacity
				meas.StatusReason = fmt.Sprintf("%d requests × (%d context + %d output) tokens > KV budget %d (%s)",
					cell.c, cx.tokens, cfg.MaxTokens, info.KVTokens, info.KVSource)
			case full && cell.phase == schema.PhaseDecode:
				meas.Status, meas.StatusReason = schema.StatusOverCapacity, fullWhy
			case serverDown != "":
				meas.Status, meas.StatusReason = schema.StatusError, serverDown
			case promptErr != nil:
				meas.Status, meas.StatusReason = schema.StatusError, promptErr.Error()
				if !strings.HasPrefix(meas.StatusReason, "prompt") {
					meas.StatusReason = "prompt: " + meas.StatusReason
				}
			case cell.phase == schema.PhasePrefill:
				ev.Phase = "prefill"
				r.progress(ev)
				meas = r.prefillCell(ctx, meas, prompt, cx, !scouted)
				scouted = true
			default:
				ev.Phase = "scout"
				r.progress(ev)
				scout := r.c.probe(ctx, prompt.Text)
				scouted = true
				if scout.failed() {
					meas.Status, meas.StatusReason = schema.StatusError, "scout request: "+scout.err
					break
				}
				meas, samples = r.decodeCell(ctx, meas, prompt, cell.c, idx, total)
				if meas.Status == schema.StatusOverCapacity {
					kvFullAt = append(kvFullAt, planCell{label: cx.label, tokens: cx.tokens, c: cell.c})
				}
				if info.Slots > 0 && cell.c > info.Slots && meas.Status == schema.StatusValid {
					// Its figures are of info.Slots streams running and the
					// rest queued, not of cell.c at once: the cell says so.
					addNotes(&meas, []string{fmt.Sprintf("%d of the %d requests at once queue behind the server's %d slots", cell.c-info.Slots, cell.c, info.Slots)})
				}
			}
			if ctx.Err() != nil {
				// Interrupted: this cell is not finished; keep the rest.
				return r.finish(m), ctx.Err()
			}
			if meas.Status == schema.StatusError && serverDown == "" {
				if _, err := r.c.Discover(ctx, cfg.KVTokens); err != nil {
					serverDown = "server unreachable: " + err.Error()
				}
			}
			roundFigures(&meas)
			m.Measurements = append(m.Measurements, meas)
			m.Samples = append(m.Samples, samples...)
			ev.Phase, ev.Done = "done", true
			ev.Status = meas.Status
			if meas.TotalTokS != nil {
				ev.TokS = *meas.TotalTokS
			}
			r.progress(ev)
			if cfg.Checkpoint != nil {
				if err := cfg.Checkpoint(r.finish(m)); err != nil {
					return r.finish(m), fmt.Errorf("checkpoint: %w", err)
				}
			}
		}
	}
	r.sortMeasurements(m)
	return r.finish(m), nil
}

// finish scrubs secrets and stamps the end time and ids. Every matrix
// the runner hands out (to Checkpoint, or from Run) passes here, so this
// is the one place where what a server said (a status reason, a sample's
// error, an echoed bearer token) is made safe to store.
func (r *Runner) finish(m *schema.Matrix) *schema.Matrix {
	r.scrub.Walk(m)
	now := time.Now().UTC()
	m.Run.FinishedAt = &now
	// Note: the id leaves the samples out. A document holds no samples,
	// so this is what makes a run's document ingest to the same run id
	// (a duplicate) as the run archived with its samples.
	m.Run.RunID = schema.ComputeRunID(&schema.Matrix{Run: m.Run, Measurements: m.Measurements})
	for i := range m.Measurements {
		m.Measurements[i].RunID = m.Run.RunID
	}
	for i := range m.Samples {
		m.Samples[i].RunID = m.Run.RunID
	}
	return m
}

// sortMeasurements orders cells as the seeds print them: prefill by
// context, then decode by context and concurrency.
func (r *Runner) sortMeasurements(m *schema.Matrix) {
	key := func(x schema.Measurement) (int, int64, int32) {
		p := 0
		if x.Phase == schema.PhaseDecode {
			p = 1
		}
		var t int64
		if x.ContextTokens != nil {
			t = *x.ContextTokens
		}
		var c int32
		if x.Concurrency != nil {
			c = *x.Concurrency
		}
		return p, t, c
	}
	slices.SortStableFunc(m.Measurements, func(a, b schema.Measurement) int {
		pa, ta, ca := key(a)
		pb, tb, cb := key(b)
		switch {
		case pa != pb:
			return pa - pb
		case ta != tb:
			if ta < tb {
				return -1
			}
			return 1
		}
		return int(ca - cb)
	})
}

// settle negotiates the request fields the server takes, checks how it
// counts prompts, and fills m's run with what was learnt. It returns the
// fields the server refused.
//
// Note: info is the caller's: the prompt fit learnt here (and its note)
// must reach the metadata the caller writes from it.
func (r *Runner) settle(ctx context.Context, m *schema.Matrix, info *ServerInfo, started time.Time) ([]string, error) {
	dropped, err := r.c.Negotiate(ctx)
	if err != nil {
		return nil, fmt.Errorf("server %s: %w", r.c.base, err)
	}
	// /tokenize is checked with probe requests, so after Negotiate has
	// settled which request fields the server takes.
	info.PromptFit = r.c.checkTokenize(ctx, info.MaxModelLen)
	r.info = *info
	r.fillRun(m, *info, started)
	return dropped, nil
}
