package runner

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	mrand "math/rand/v2"
	"os"
	"runtime/debug"
	"slices"
	"strings"
	"time"

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
	// Note receives messages for the person running, before any load: a
	// requested context measured at another length (nil: none). They are
	// kept in the run's metadata too.
	Note func(string)
	// Checkpoint is called after each cell with the matrix so far.
	Checkpoint func(m *schema.Matrix) error
	// NoSamples drops per-request samples from the result.
	NoSamples bool
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
}

// New returns a runner for the server behind c.
func New(c *Client, cfg Config) (*Runner, error) {
	if len(cfg.Contexts) == 0 && len(cfg.PrefillContexts) == 0 {
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
	r.warnSlots(info)
	dropped, err := r.c.Negotiate(ctx)
	if err != nil {
		return nil, fmt.Errorf("server %s: %w", r.c.base, err)
	}
	// /tokenize is checked with probe requests, so after Negotiate has
	// settled which request fields the server takes.
	info.PromptFit = r.c.checkTokenize(ctx)
	r.info = info
	r.fillRun(m, info, started)
	if cfg.Done == nil {
		if len(dropped) > 0 {
			m.Run.Metadata = append(m.Run.Metadata, schema.Field{Section: "Run", Key: "Request fields the server rejected", Value: strings.Join(dropped, ", ")})
		}
		if info.PromptFit.Note != "" {
			m.Run.Metadata = append(m.Run.Metadata, schema.Field{Section: "Run", Key: "POST /tokenize", Value: info.PromptFit.Note})
		}
	}

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
				meas.Status, meas.StatusReason = schema.StatusError, "prompt: "+promptErr.Error()
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

// fillRun sets the run's metadata.
func (r *Runner) fillRun(m *schema.Matrix, info ServerInfo, started time.Time) {
	cfg := &r.cfg
	run := &m.Run
	run.SchemaVersion = schema.Version
	run.SourceFormat = schema.FormatRun
	run.Model = r.c.model
	run.ServedModel = r.c.model
	run.ModelID = r.c.model
	run.GPU = cfg.Labels.GPU
	run.VRAMGB = cfg.Labels.VRAMGB
	run.Quantization = cfg.Labels.Quantization
	run.Engine = cfg.Labels.Engine
	run.EngineVersion = cfg.Labels.EngineVersion
	if run.EngineVersion == "" {
		// "speedmatrix-sim 1" from an engine labelled speedmatrix-sim is
		// version "1": the name is not printed twice.
		run.EngineVersion = info.Version
		if run.Engine != "" {
			if v, ok := strings.CutPrefix(info.Version, run.Engine+" "); ok && strings.TrimSpace(v) != "" {
				run.EngineVersion = strings.TrimSpace(v)
			}
		}
	}
	run.LaunchCommand = cfg.Labels.LaunchCommand
	run.BenchTool = BenchTool
	run.BenchVersion = ClientVersion()
	run.ClientVersion = ClientVersion()
	run.DecodeTest = "Fixed duration"
	if cfg.PrefillMode == PrefillStandalone {
		run.PrefillMode = fmt.Sprintf("Standalone, median of %d cold prompts", cfg.PrefillRepeats)
	} else {
		run.PrefillMode = "Measured during decode warm-up"
	}
	run.MeasureSeconds = schema.F64(cfg.Duration.Seconds())
	run.MaxOutputTokens = schema.I64(int64(cfg.MaxTokens))
	if info.MaxModelLen > 0 {
		run.MaxModelLen = schema.I64(info.MaxModelLen)
	}
	if info.KVTokens > 0 {
		run.KVBudgetTokens = schema.I64(info.KVTokens)
	}
	s := started.UTC()
	run.StartedAt = &s
	run.Host, _ = os.Hostname()
	run.ServerURL = r.c.base
	run.Endpoint = r.c.endpoint
	run.Dataset = "neutral prose, tag " + cfg.Tag + "; prompt lengths " + info.PromptFit.Describe()
	title := run.Model
	if run.GPU != "" {
		title += " on " + run.GPU
	}
	run.Title = title
	if cfg.Labels.Extra != nil {
		cfg.Labels.Extra(run)
	}
}

// ClientVersion returns the module version of the running binary
// ("0.0.0-devel" plus the VCS revision when built from a checkout), in a
// form documents print after the tool's name and parsers split off.
func ClientVersion() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "0.0.0-devel"
	}
	v := strings.TrimPrefix(bi.Main.Version, "v")
	if v == "" || v == "(devel)" {
		v = "0.0.0-devel"
		for _, s := range bi.Settings {
			if s.Key == "vcs.revision" && len(s.Value) >= 12 {
				v += "+" + s.Value[:12]
			}
		}
	}
	return v
}

// planContext is one context of the run and its cells, in order.
type planContext struct {
	tokens int64
	label  string
	cells  []planCell
}

type planCell struct {
	phase  schema.Phase
	label  string
	tokens int64
	c      int
	over   bool
}

func (c planCell) key() string { return cellKey(c.phase, c.label, int32(c.c)) }

// plan lists contexts (capped, labelled, deduplicated, ascending) with
// their prefill cell first and decode cells by concurrency. Every decode
// context gets a prefill cell (its scout measures it for free), and so
// does every prefill context, as the seeds' "prefill at 8K, …, 123K,
// 128K" shows. Decode contexts are capped at max_model_len − max_tokens −
// 64; prefill-only ones, sent with max_tokens=1, at max_model_len − 65.
func (r *Runner) plan() []planContext {
	cfg := &r.cfg
	byTokens := map[int64]*planContext{}
	get := func(t int64) *planContext {
		if p := byTokens[t]; p != nil {
			return p
		}
		p := &planContext{tokens: t, label: ContextLabel(t)}
		byTokens[t] = p
		return p
	}
	addPrefill := func(p *planContext) {
		if !slices.ContainsFunc(p.cells, func(x planCell) bool { return x.phase == schema.PhasePrefill }) {
			p.cells = append(p.cells, planCell{phase: schema.PhasePrefill, label: p.label, c: 1})
		}
	}
	for _, t := range cfg.Contexts {
		p := get(capContext(t, r.info.MaxModelLen, cfg.MaxTokens))
		addPrefill(p)
		for _, c := range cfg.Concurrency {
			cell := planCell{phase: schema.PhaseDecode, label: p.label, c: c,
				over: overCapacity(c, p.tokens, cfg.MaxTokens, r.info.KVTokens)}
			if !slices.ContainsFunc(p.cells, func(x planCell) bool { return x.key() == cell.key() }) {
				p.cells = append(p.cells, cell)
			}
		}
	}
	for _, t := range cfg.PrefillContexts {
		addPrefill(get(capContext(t, r.info.MaxModelLen, 1)))
	}
	var out []planContext
	for _, p := range byTokens {
		slices.SortStableFunc(p.cells, func(a, b planCell) int {
			if a.phase != b.phase {
				if a.phase == schema.PhasePrefill {
					return -1
				}
				return 1
			}
			return a.c - b.c
		})
		out = append(out, *p)
	}
	slices.SortFunc(out, func(a, b planContext) int { return int(a.tokens - b.tokens) })
	return out
}

// buildPrompt fits a prompt of tokens tokens for a context.
func (r *Runner) buildPrompt(ctx context.Context, tokens int64, label, tag string) (Prompt, error) {
	head := promptHead(tag, label)
	seed := uint64(len(tag)) ^ uint64(tokens)
	for _, c := range tag {
		seed = seed*131 + uint64(c)
	}
	body := neutralText(mrand.New(mrand.NewPCG(seed, uint64(tokens))), int(tokens)*8+4096)
	if r.c.tok != tokenizeNone {
		return fitPrompt(ctx, head, body, tokens, r.c.tokenize, true)
	}
	// Probes must not warm the prefix cache for the measured prompt: they
	// carry another tag of the same shape.
	return fitProbed(ctx, head, promptHead(NewTag(), label), body, tokens, r.c.probeTokens)
}

// prefillCell measures prompt processing at one context: from the scout
// (a cold prompt, first=true) or, in standalone mode, the median of
// unique cold prompts.
func (r *Runner) prefillCell(ctx context.Context, m schema.Measurement, p Prompt, cx planContext, first bool) schema.Measurement {
	var ttfts, rates, prompts []float64
	n := 1
	if r.cfg.PrefillMode == PrefillStandalone || !first {
		n = r.cfg.PrefillRepeats
	}
	var lastErr string
	overran := false
	for i := 0; i < n; i++ {
		text := p.Text
		if r.cfg.PrefillMode == PrefillStandalone || !first {
			// A unique tag makes the prompt cold; the scout that follows
			// warms the shared prompt for decode.
			text = promptHead(NewTag(), cx.label) + p.Text[len(promptHead(r.cfg.Tag, cx.label)):]
		}
		rec := r.c.probe(ctx, text)
		if rec.overran {
			overran = true
		}
		if rec.failed() || rec.first < 0 {
			lastErr = rec.err
			if lastErr == "" {
				lastErr = "no token"
			}
			continue
		}
		ttft := float64(rec.first-rec.sent) * msPerNs
		pt := rec.prompt
		if pt <= 0 {
			pt = p.Tokens
		}
		ttfts = append(ttfts, ttft)
		prompts = append(prompts, float64(pt))
		rates = append(rates, float64(pt)/(ttft/1000))
	}
	if len(ttfts) == 0 {
		m.Status, m.StatusReason = schema.StatusError, "prefill request: "+lastErr
		return m
	}
	m.Status = schema.StatusValid
	m.TotalTokS = schema.F64(median(rates))
	m.TTFTMs = schema.F64(median(ttfts))
	m.PromptTokens = schema.I64(int64(median(prompts)))
	m.CompletedRequests = schema.I64(int64(len(ttfts)))
	if len(ttfts) < n {
		m.ErroredRequests = schema.I64(int64(n - len(ttfts)))
	}
	if overran {
		m.StatusReason = fmt.Sprintf("note: the server ignored max_tokens=1 (the client stopped reading at %d tokens)", probeMaxTokens)
	}
	return m
}

// decodeCell runs one sustained-decode cell and turns it into a
// measurement and samples.
func (r *Runner) decodeCell(ctx context.Context, m schema.Measurement, p Prompt, c, idx, total int) (schema.Measurement, []schema.Sample) {
	cfg := &r.cfg
	base := m
	cell := cellConfig{
		label:                CellRequestLabel(m.ContextLabel, c),
		prompt:               p,
		concurrency:          c,
		duration:             cfg.Duration,
		maxTokens:            cfg.MaxTokens,
		idle:                 cfg.IdleTimeout,
		startTimeout:         cfg.StartTimeout,
		drainTimeout:         cfg.DrainTimeout,
		slots:                r.info.Slots,
		metrics:              r.info.Metrics,
		maxConsecutiveErrors: max(2*c, 8),
		onTokens: func(phase string, tokens int64, elapsed time.Duration) {
			r.progress(Progress{Cell: idx, Cells: total, Phase: phase, Label: m.ContextLabel,
				Concurrency: c, PhaseName: schema.PhaseDecode, Elapsed: elapsed, Tokens: tokens})
		},
	}
	run := r.c.runCell(ctx, cell, r.pool)
	if full, n, why := kvFullRequests(run.recs); full > 0 && run.looped == nil {
		// The server's KV cache overflowed: over capacity, not broken.
		// The figures of a server that dropped requests are not kept; the
		// requests are, as samples.
		m = base
		m.Status = schema.StatusOverCapacity
		m.StatusReason = fmt.Sprintf("the server's KV cache is full: %d of %d requests failed with %q", full, n, why)
		if run.ws < 0 {
			return m, nil
		}
		f := figures(&run, !cfg.NoSamples)
		r.sampleCell(f.samples, m.ContextLabel, c)
		return m, f.samples
	}
	if run.ws < 0 {
		m.Status = schema.StatusError
		m.StatusReason = run.errReason
		if run.looped != nil {
			m.Status = schema.StatusLooped
		}
		r.loopEvidence(&m, run.looped)
		addNotes(&m, run.notes)
		return m, nil
	}
	f := figures(&run, !cfg.NoSamples)
	f.fill(&m)
	if f.retries > 0 {
		m.Extra = append(m.Extra, schema.Metric{Name: "client_retries", Value: float64(f.retries)})
	}
	m.Status = schema.StatusValid
	switch {
	case run.looped != nil:
		m.Status = schema.StatusLooped
		r.loopEvidence(&m, run.looped)
	case run.errReason != "":
		m.Status, m.StatusReason = schema.StatusError, run.errReason
	case f.requestsInCell > 0 && float64(f.errored)/float64(f.requestsInCell) > cfg.MaxErrorRate:
		m.Status = schema.StatusError
		m.StatusReason = fmt.Sprintf("%d of %d requests failed (over %.0f%%); first: %s",
			f.errored, f.requestsInCell, 100*cfg.MaxErrorRate, f.errSample)
	case f.tokens == 0:
		m.Status, m.StatusReason = schema.StatusError, "no tokens inside the window"
	}
	if run.haveMetrics {
		serverFigures(&m, run)
	}
	if f.overran > 0 {
		run.note("the server ignored max_tokens=%d: requests streamed up to %d tokens (%d of %d requests over)", cfg.MaxTokens, f.overranMax, f.overran, f.requestsInCell)
	}
	addNotes(&m, run.notes)
	r.sampleCell(f.samples, m.ContextLabel, c)
	return m, f.samples
}

// sampleCell names the cell of a decode cell's samples.
func (r *Runner) sampleCell(samples []schema.Sample, label string, c int) {
	for i := range samples {
		s := &samples[i]
		s.Phase, s.ContextLabel, s.Concurrency = schema.PhaseDecode, label, int32(c)
	}
}

// addNotes appends a cell's notes to its status reason ("note: …" on a
// valid cell).
func addNotes(m *schema.Measurement, notes []string) {
	if len(notes) == 0 {
		return
	}
	s := strings.Join(notes, "; ")
	if m.StatusReason == "" {
		m.StatusReason = "note: " + s
	} else {
		m.StatusReason += "; " + s
	}
}

// kvFullRequests counts the requests that failed because the server's KV
// cache was full, of n requests, with the first such error.
func kvFullRequests(recs []record) (full, n int, first string) {
	for i := range recs {
		if recs[i].cut && !recs[i].failed() && recs[i].first < 0 {
			continue // sent as the cell stopped
		}
		n++
		if kvFull(recs[i].err) {
			if full == 0 {
				first = recs[i].err
			}
			full++
		}
	}
	return full, n, first
}

// warnSlots warns before any load when a concurrency exceeds the slots
// the server runs at once: the extra requests queue, and the window opens
// when the slots run and the rest wait.
func (r *Runner) warnSlots(info ServerInfo) {
	if info.Slots <= 0 || r.cfg.Warn == nil {
		return
	}
	for _, c := range r.cfg.Concurrency {
		if c > info.Slots {
			r.cfg.Warn(fmt.Sprintf("concurrency %d exceeds the server's %d slots (/props total_slots): %d requests of each such cell wait in its queue; the window opens when %d run and %d wait, or after -drain-timeout %v",
				c, info.Slots, c-info.Slots, info.Slots, c-info.Slots, r.cfg.DrainTimeout))
			return
		}
	}
}

func (r *Runner) loopEvidence(m *schema.Measurement, q *record) {
	if q == nil {
		return
	}
	kind := "content"
	if q.loop.Reasoning {
		kind = "reasoning"
	}
	m.LoopPeriodChars = schema.I64(q.loop.PeriodChars)
	m.LoopCycles = schema.I64(q.loop.Cycles)
	m.StatusReason = fmt.Sprintf("%s of request %d.%d repeats a %d-character text %d times",
		kind, q.slot, q.seq, q.loop.PeriodChars, q.loop.Cycles)
}

// serverFigures copies what /metrics said about the cell.
func serverFigures(m *schema.Measurement, run cellRun) {
	if d, ok := metricsDelta(run.before, run.after, "generation_tokens"); ok {
		m.ServerGenerationTokens = schema.I64(int64(d))
	}
	if d, ok := metricsDelta(run.before, run.after, "preemptions"); ok {
		m.ServerPreemptions = schema.I64(int64(d))
	}
	hits, ok1 := metricsDelta(run.before, run.after, "prefix_hits")
	queries, ok2 := metricsDelta(run.before, run.after, "prefix_queries")
	if ok1 && ok2 && queries > 0 {
		m.ServerPrefixCacheHits = schema.F64(hits / queries)
	} else if v, ok := run.after.get("cache_hit_rate"); ok {
		m.ServerPrefixCacheHits = schema.F64(v)
	}
	acc, ok1 := metricsDelta(run.before, run.after, "spec_accepted")
	draft, ok2 := metricsDelta(run.before, run.after, "spec_draft")
	if ok1 && ok2 && draft > 0 {
		m.ServerSpecAcceptRate = schema.F64(acc / draft)
	}
	if len(run.running) > 0 {
		sum := 0.0
		for _, v := range run.running {
			sum += v
		}
		m.ServerRunningAvg = schema.F64(sum / float64(len(run.running)))
	}
}

func (r *Runner) progress(p Progress) {
	if r.cfg.Progress != nil {
		r.cfg.Progress(p)
	}
}
