package runner

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"
)

// cellConfig is one sustained-decode cell to measure.
type cellConfig struct {
	// label names the cell in its requests' ids (CellRequestLabel).
	label       string
	prompt      Prompt
	concurrency int
	duration    time.Duration
	maxTokens   int
	// idle is how long a request may go without a byte before it is
	// failed as stalled.
	idle time.Duration
	// startTimeout bounds the wait for every stream to produce tokens.
	startTimeout time.Duration
	// drainTimeout bounds the wait, after that, for /metrics to show the
	// server's queue drained; past it the window opens anyway, with a
	// note.
	drainTimeout time.Duration
	// slots is how many requests the server runs at once (llama.cpp's
	// total_slots; 0 when unknown): with C above it, the drained state is
	// slots running and C − slots waiting.
	slots int
	// metrics enables the /metrics condition on the window's start and
	// the running-gauge sampling.
	metrics bool
	// maxConsecutiveErrors ends the cell as an error when this many
	// requests fail in a row across its streams.
	maxConsecutiveErrors int
	// onTokens, when set, is called from the coordinator about every
	// 250 ms with the tokens streamed so far (for progress).
	onTokens func(phase string, tokens int64, elapsed time.Duration)
}

// cellRun is the raw outcome of one decode cell: every request's record
// and its streams' tick logs, plus the window.
type cellRun struct {
	epoch   time.Time
	ws, we  int64 // window in ns from epoch; ws < 0 when it never started
	recs    []record
	streams []*stream
	// stop tells why the cell ended early: "" (window complete), a
	// looped request, or an error reason.
	looped    *record
	errReason string
	// running holds the server's running-requests gauge sampled during
	// the window; gaugeFailed is set when a scrape of it failed (and a
	// note says so).
	running     []float64
	gaugeFailed bool
	// before and after are /metrics scrapes around the cell.
	before, after metricsSnapshot
	haveMetrics   bool
	// notes say what the cell's figures lack or what was unusual (a
	// /metrics scrape skipped, a queue that did not drain).
	notes []string
}

// runCell runs C closed-loop streams of cfg.prompt: each sends the prompt,
// reads the whole stream, and sends it again at once. It goes through
// three phases over one cellState: the ramp-up (until every stream has
// produced a token and, when /metrics is scraped, it shows C requests
// running and none waiting), the window (cfg.duration), and the drain
// (every request stopped, its record kept, /metrics scraped again).
func (c *Client) runCell(ctx context.Context, cfg cellConfig, pool []*stream) cellRun {
	s := newCellState(ctx, c, cfg, pool)
	defer s.stop(errStopped)
	s.scrapeBefore()
	s.startStreams()
	stopWatch := s.watchStalls()
	defer s.tick.Stop()
	if ws, ok := s.rampUp(); ok {
		s.window(ws)
	}
	s.drain(stopWatch)
	return s.run
}

// cellState is what a running decode cell shares between its C stream
// goroutines, its stall watchdog and the coordinator that moves it
// through its phases. The atomics and channels are written by the
// streams and read by the coordinator; abort, the only way a stream or
// the coordinator ends the cell early, records why once.
type cellState struct {
	c    *Client
	cfg  cellConfig
	ctx  context.Context // the caller's: its end interrupts the cell
	run  cellRun
	body []byte
	// stopCtx is the parent of every request; stop ends them all.
	stopCtx context.Context
	stop    context.CancelCauseFunc
	streams sync.WaitGroup
	tick    *time.Ticker // progress, every 250 ms

	// Ramp-up: how many streams' first requests produced a token, the
	// latest of those first tokens (ns from the epoch), and a channel
	// closed when all C have.
	producing   atomic.Int32
	lastFirst   atomic.Int64
	allProduced chan struct{}

	// Per stream: its request in flight (active) and how to fail it
	// (cancel), for the watchdog; its tokens so far, for progress.
	active []atomic.Bool
	cancel []atomic.Pointer[context.CancelCauseFunc]
	tokens []atomic.Int64

	consecutive atomic.Int32 // requests failed in a row, across streams
	recsMu      sync.Mutex   // guards run.recs as streams hand theirs in

	abortOnce sync.Once
	aborted   chan struct{} // closed by abort
	abortMu   sync.Mutex    // guards abortWhy and looped
	abortWhy  string
	looped    *record
}

func newCellState(ctx context.Context, c *Client, cfg cellConfig, pool []*stream) *cellState {
	C := cfg.concurrency
	s := &cellState{
		c: c, cfg: cfg, ctx: ctx,
		run:         cellRun{ws: -1, streams: pool[:C]},
		body:        c.completionBody(cfg.prompt.Text, cfg.maxTokens),
		tick:        time.NewTicker(250 * time.Millisecond),
		allProduced: make(chan struct{}),
		active:      make([]atomic.Bool, C),
		cancel:      make([]atomic.Pointer[context.CancelCauseFunc], C),
		tokens:      make([]atomic.Int64, C),
		aborted:     make(chan struct{}),
	}
	s.stopCtx, s.stop = context.WithCancelCause(ctx)
	return s
}

// abort ends the cell early, once: why is the error reason ("" for a
// loop), loop the looping request.
func (s *cellState) abort(why string, loop *record) {
	s.abortOnce.Do(func() {
		s.abortMu.Lock()
		s.abortWhy, s.looped = why, loop
		s.abortMu.Unlock()
		close(s.aborted)
	})
}

// interrupted aborts the cell because the caller's context ended.
func (s *cellState) interrupted() {
	s.abort("interrupted: "+context.Cause(s.ctx).Error(), nil)
}

// scrapeBefore takes the /metrics snapshot the cell's server figures
// start from.
func (s *cellState) scrapeBefore() {
	if !s.cfg.metrics {
		return
	}
	if snap, err := s.c.scrape(s.ctx); err == nil {
		s.run.before, s.run.haveMetrics = snap, true
	} else {
		s.run.note("server figures skipped: /metrics before the cell: %v", err)
	}
}

// startStreams starts the epoch and the C closed-loop streams.
func (s *cellState) startStreams() {
	s.run.epoch = time.Now()
	for i, st := range s.run.streams {
		st.log = st.log[:0]
		st.last.Store(0)
		st.want, st.cutAt, st.maxBytes = int64(s.cfg.maxTokens), 0, 0
		st.label = s.cfg.label
		st.tokens = &s.tokens[i]
		st.onLoop = func(r *record) { s.abort("", r) }
		s.streams.Add(1)
		go s.loop(i, st)
	}
}

// loop is stream i: it sends the prompt again as soon as each request
// ends, until the cell stops, then hands in its records.
func (s *cellState) loop(i int, st *stream) {
	defer s.streams.Done()
	var recs []record
	st.onFirst = s.firstToken(st)
	for seq := 0; s.stopCtx.Err() == nil; seq++ {
		reqCtx, cancel := context.WithCancelCause(s.stopCtx)
		s.cancel[i].Store(&cancel)
		s.active[i].Store(true)
		rec := record{slot: i, seq: seq}
		s.c.do(reqCtx, s.body, s.run.epoch, st, &rec)
		s.active[i].Store(false)
		cancel(nil)
		recs = append(recs, rec)
		s.countFailure(&rec)
	}
	s.recsMu.Lock()
	s.run.recs = append(s.run.recs, recs...)
	s.recsMu.Unlock()
}

// firstToken returns the hook of a stream's first token: it counts the
// stream as producing (the last of the C opens the ramp-up's gate) and
// then removes itself.
func (s *cellState) firstToken(st *stream) func(t int64) {
	return func(t int64) {
		st.onFirst = nil
		for {
			old := s.lastFirst.Load()
			if t <= old || s.lastFirst.CompareAndSwap(old, t) {
				break
			}
		}
		if s.producing.Add(1) == int32(s.cfg.concurrency) {
			close(s.allProduced)
		}
	}
}

// countFailure keeps the run of failures across streams and aborts the
// cell when it reaches cfg.maxConsecutiveErrors; a request the runner
// cut counts neither way.
func (s *cellState) countFailure(rec *record) {
	switch {
	case rec.cut:
	case rec.failed():
		if n := s.consecutive.Add(1); int(n) >= s.cfg.maxConsecutiveErrors {
			s.abort(fmt.Sprintf("%d requests failed in a row; last: %s", n, rec.err), nil)
		}
	default:
		s.consecutive.Store(0)
	}
}

// watchStalls starts the stall watchdog: it fails a request that has
// received nothing for cfg.idle. Waiting for its headers and first
// event, queued behind other prefills, a request may be silent for long:
// the ramp-up bound applies then.
//
// Note: it costs the read loop one atomic store per event (the arrival
// time it stamps anyway) and the cell one goroutine waking every idle/4
// (at most every second) to look at C streams: nothing per byte, no timer
// reset per read.
func (s *cellState) watchStalls() (stop func()) {
	pre := max(s.cfg.idle, s.cfg.startTimeout)
	return watch(s.cfg.idle, s.run.epoch, func(now int64) bool {
		for i, st := range s.run.streams {
			if !s.active[i].Load() {
				continue
			}
			if err := st.silent(now, pre, pre, s.cfg.idle); err != nil {
				if f := s.cancel[i].Load(); f != nil {
					(*f)(err)
				}
			}
		}
		return true
	})
}

// progress reports the tokens streamed so far in phase.
func (s *cellState) progress(phase string) {
	if s.cfg.onTokens == nil {
		return
	}
	var n int64
	for i := range s.tokens {
		n += s.tokens[i].Load()
	}
	s.cfg.onTokens(phase, n, time.Since(s.run.epoch))
}

// rampUp waits until every stream produces tokens, then for the server's
// queue to drain (queueDrained). It returns where the window starts (ns
// from the epoch), or false when the cell ended before.
func (s *cellState) rampUp() (ws int64, ok bool) {
	deadline := time.NewTimer(s.cfg.startTimeout)
	defer deadline.Stop()
	for {
		select {
		case <-s.allProduced:
			return s.queueDrained(s.lastFirst.Load())
		case <-s.aborted:
			return 0, false
		case <-s.ctx.Done():
			s.interrupted()
			return 0, false
		case <-deadline.C:
			s.abort(fmt.Sprintf("only %d of %d streams produced tokens within %v", s.producing.Load(), s.cfg.concurrency, s.cfg.startTimeout), nil)
			return 0, false
		case <-s.tick.C:
			s.progress("ramp-up")
		}
	}
}

// queueDrained, when /metrics is there, waits for the drained queue
// (queueWant) for at most cfg.drainTimeout, then opens the window anyway
// with a note. It returns the window's start, no earlier than ws, or
// false when the cell ended meanwhile.
func (s *cellState) queueDrained(ws int64) (int64, bool) {
	if !s.run.haveMetrics {
		return ws, true
	}
	wantR, wantW := s.queueWant()
	timeout := s.cfg.drainTimeout
	if timeout <= 0 {
		timeout = s.cfg.startTimeout
	}
	bound := time.NewTimer(timeout)
	defer bound.Stop()
	now := func() int64 { return max(ws, int64(time.Since(s.run.epoch))) }
	for {
		snap, err := s.c.scrape(s.stopCtx)
		if err != nil {
			// Scraping failed mid-run: keep the client's condition.
			s.run.note("queue drain not checked: /metrics: %v", err)
			return ws, true
		}
		r, okR := snap.get("running")
		w, okW := snap.get("waiting")
		if !okR || !okW || (r >= float64(wantR) && w <= float64(wantW)) {
			return now(), true
		}
		select {
		case <-s.aborted:
			return 0, false
		case <-s.ctx.Done():
			s.interrupted()
			return 0, false
		case <-bound.C:
			s.run.note("window opened with the server's queue not drained: %.0f running and %.0f waiting (want %d and %d) after %v",
				r, w, wantR, wantW, timeout)
			return now(), true
		case <-time.After(100 * time.Millisecond):
			s.progress("queue drain")
		}
	}
}

// queueWant returns the server's running and waiting requests once the
// cell's queue has drained: C running and none waiting, or with C above
// the server's slots every slot running and the rest waiting.
func (s *cellState) queueWant() (running, waiting int) {
	C := s.cfg.concurrency
	if s.cfg.slots > 0 && C > s.cfg.slots {
		return s.cfg.slots, C - s.cfg.slots
	}
	return C, 0
}

// window measures from ws for cfg.duration, or until the cell aborts,
// sampling the server's running gauge meanwhile, then stops every
// request.
func (s *cellState) window(ws int64) {
	run := &s.run
	run.ws = ws
	we := ws + int64(s.cfg.duration)
	stopSampling := s.sampleRunning(ws)
	s.await(time.Until(run.epoch.Add(time.Duration(we))), "measure")
	run.we = min(we, int64(time.Since(run.epoch)))
	stopSampling()
}

// await waits for d, reporting progress in phase, unless the cell aborts
// or the caller's context ends first.
func (s *cellState) await(d time.Duration, phase string) {
	end := time.NewTimer(d)
	defer end.Stop()
	for {
		select {
		case <-end.C:
			return
		case <-s.aborted:
			return
		case <-s.ctx.Done():
			s.interrupted()
			return
		case <-s.tick.C:
			s.progress(phase)
		}
	}
}

// sampleRunning samples the server's running-requests gauge from the
// window's start ws until the returned stop, which also stops every
// request (and a scrape in flight).
//
// Note: the gauge is sampled in its own goroutine so that a /metrics
// scrape that hangs (each is bounded by Timeouts.Metrics) never holds
// the window's end.
func (s *cellState) sampleRunning(ws int64) (stop func()) {
	if !s.run.haveMetrics {
		return func() { s.stop(errStopped) }
	}
	done := make(chan struct{})
	var sampler sync.WaitGroup
	sampler.Add(1)
	go func() {
		defer sampler.Done()
		s.run.running = s.c.sampleRunning(s.stopCtx, done, func(err error) {
			s.run.gaugeFailed = true
			s.run.note("server running-requests gauge skipped from %.1f s into the window: /metrics: %v",
				time.Since(s.run.epoch.Add(time.Duration(ws))).Seconds(), err)
		})
	}()
	return func() {
		close(done)
		s.stop(errStopped)
		sampler.Wait()
	}
}

// drain stops every request and the watchdog, waits for the streams to
// hand in their records, and takes the /metrics snapshot after the cell.
func (s *cellState) drain(stopWatch func()) {
	s.stop(errStopped)
	stopWatch()
	s.streams.Wait()
	s.abortMu.Lock()
	s.run.errReason, s.run.looped = s.abortWhy, s.looped
	s.abortMu.Unlock()
	if s.run.looped != nil {
		s.endAtLoop()
	}
	s.scrapeAfter()
}

// endAtLoop points run.looped at the looping request's final record (it
// was cut by the stop) and ends the window where the loop was found.
func (s *cellState) endAtLoop() {
	run := &s.run
	for i := range run.recs {
		if run.recs[i].looped {
			run.looped = &run.recs[i]
			break
		}
	}
	if run.ws >= 0 {
		run.we = min(run.we, run.looped.loopAt)
	}
}

// scrapeAfter takes the /metrics snapshot the server figures end at.
func (s *cellState) scrapeAfter() {
	if !s.run.haveMetrics {
		return
	}
	if snap, err := s.c.scrape(s.ctx); err == nil {
		s.run.after = snap
	} else {
		s.run.haveMetrics = false
		s.run.note("server figures skipped: /metrics after the cell: %v", err)
	}
}

// note adds a note to the cell.
func (run *cellRun) note(format string, args ...any) {
	run.notes = append(run.notes, fmt.Sprintf(format, args...))
}

// runningEvery is how often a decode cell's window scrapes the server's
// running-requests gauge.
const runningEvery = 500 * time.Millisecond

// NoteNoRunningGauge starts the note of a cell whose window ended before
// any scrape of the server's running-requests gauge finished (its
// server_running_avg is empty).
const NoteNoRunningGauge = "server running-requests gauge not sampled"

// sampleRunning scrapes the server's running-requests gauge every runningEvery
// until stop is closed or ctx ends, and returns the samples. The first
// failed scrape ends the sampling and is reported to fail.
func (c *Client) sampleRunning(ctx context.Context, stop <-chan struct{}, fail func(error)) []float64 {
	var out []float64
	t := time.NewTicker(runningEvery)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return out
		case <-ctx.Done():
			return out
		case <-t.C:
		}
		s, err := c.scrape(ctx)
		if err != nil {
			if ctx.Err() == nil {
				fail(err)
			}
			return out
		}
		if r, ok := s.get("running"); ok {
			out = append(out, r)
		}
	}
}

// errCell is returned for a cell that could not start.
var errCell = errors.New("cell failed")
