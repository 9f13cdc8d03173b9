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
	// the window.
	running []float64
	// before and after are /metrics scrapes around the cell.
	before, after metricsSnapshot
	haveMetrics   bool
	// notes say what the cell's figures lack or what was unusual (a
	// /metrics scrape skipped, a queue that did not drain).
	notes []string
}

// runCell runs C closed-loop streams of cfg.prompt: each sends the prompt,
// reads the whole stream, and sends it again at once. The window starts
// when every stream has produced a token (and /metrics, when scraped,
// shows C requests running and none waiting) and lasts cfg.duration.
func (c *Client) runCell(ctx context.Context, cfg cellConfig, pool []*stream) cellRun {
	C := cfg.concurrency
	body := c.completionBody(cfg.prompt.Text, cfg.maxTokens)
	run := cellRun{ws: -1, streams: pool[:C]}
	if cfg.metrics {
		if s, err := c.scrape(ctx); err == nil {
			run.before, run.haveMetrics = s, true
		} else {
			run.note("server figures skipped: /metrics before the cell: %v", err)
		}
	}
	stopCtx, stop := context.WithCancelCause(ctx)
	defer stop(errStopped)

	var (
		producing   atomic.Int32 // streams whose first request produced a token
		lastFirst   atomic.Int64 // latest of those first-token times
		allProduce  = make(chan struct{})
		consecutive atomic.Int32
		abortOnce   sync.Once
		abortMu     sync.Mutex
		abortWhy    string
		looped      *record
		recsMu      sync.Mutex
		cancels     = make([]atomic.Pointer[context.CancelCauseFunc], C)
		active      = make([]atomic.Bool, C)
		tokenCount  = make([]atomic.Int64, C)
		abortCh     = make(chan struct{})
	)
	abort := func(why string, loop *record) {
		abortOnce.Do(func() {
			abortMu.Lock()
			abortWhy, looped = why, loop
			abortMu.Unlock()
			close(abortCh)
		})
	}
	run.epoch = time.Now()
	epoch := run.epoch
	var wg sync.WaitGroup
	for i := 0; i < C; i++ {
		s := pool[i]
		s.log = s.log[:0]
		s.last.Store(0)
		s.want, s.cutAt, s.maxBytes = int64(cfg.maxTokens), 0, 0
		s.label = cfg.label
		wg.Add(1)
		go func(i int, s *stream) {
			defer wg.Done()
			first := true
			var local []record
			for seq := 0; stopCtx.Err() == nil; seq++ {
				reqCtx, cancel := context.WithCancelCause(stopCtx)
				cancels[i].Store(&cancel)
				active[i].Store(true)
				rec := record{slot: i, seq: seq}
				s.onFirst = nil
				if first {
					s.onFirst = func(t int64) {
						first = false
						for {
							old := lastFirst.Load()
							if t <= old || lastFirst.CompareAndSwap(old, t) {
								break
							}
						}
						if producing.Add(1) == int32(C) {
							close(allProduce)
						}
					}
				}
				s.tokens = &tokenCount[i]
				s.onLoop = func(r *record) { abort("", r) }
				c.do(reqCtx, body, epoch, s, &rec)
				active[i].Store(false)
				cancel(nil)
				local = append(local, rec)
				switch {
				case rec.cut:
				case rec.failed():
					if n := consecutive.Add(1); int(n) >= cfg.maxConsecutiveErrors {
						abort(fmt.Sprintf("%d requests failed in a row; last: %s", n, rec.err), nil)
					}
				default:
					consecutive.Store(0)
				}
			}
			recsMu.Lock()
			run.recs = append(run.recs, local...)
			recsMu.Unlock()
		}(i, s)
	}

	// Stall watchdog: fail a request that has received nothing for idle.
	// Waiting for its headers and first event, queued behind other
	// prefills, a request may be silent for long: the ramp-up bound
	// applies then.
	//
	// Note: it costs the read loop one atomic store per event (the
	// arrival time it stamps anyway) and the cell one goroutine waking
	// every idle/4 (at most every second) to look at C streams: nothing
	// per byte, no timer reset per read.
	pre := max(cfg.idle, cfg.startTimeout)
	stopWatch := watch(cfg.idle, epoch, func(now int64) bool {
		for i := 0; i < C; i++ {
			if !active[i].Load() {
				continue
			}
			if err := pool[i].silent(now, pre, pre, cfg.idle); err != nil {
				if f := cancels[i].Load(); f != nil {
					(*f)(err)
				}
			}
		}
		return true
	})

	total := func() int64 {
		var n int64
		for i := range tokenCount {
			n += tokenCount[i].Load()
		}
		return n
	}
	progress := func(phase string) {
		if cfg.onTokens != nil {
			cfg.onTokens(phase, total(), time.Since(epoch))
		}
	}
	tick := time.NewTicker(250 * time.Millisecond)
	defer tick.Stop()
	deadline := time.NewTimer(cfg.startTimeout)
	defer deadline.Stop()

	// Phase 1: wait until every stream produces tokens.
	started := false
wait:
	for {
		select {
		case <-allProduce:
			started = true
			break wait
		case <-abortCh:
			break wait
		case <-ctx.Done():
			abort("interrupted: "+context.Cause(ctx).Error(), nil)
			break wait
		case <-deadline.C:
			abort(fmt.Sprintf("only %d of %d streams produced tokens within %v", producing.Load(), C, cfg.startTimeout), nil)
			break wait
		case <-tick.C:
			progress("ramp-up")
		}
	}
	ws := lastFirst.Load()
	// Phase 2: when /metrics is there, also wait for C running, 0 waiting
	// (with C above the server's slots: all slots running, the rest
	// waiting), for at most drainTimeout.
	if started && run.haveMetrics {
		wantR, wantW := C, 0
		if cfg.slots > 0 && C > cfg.slots {
			wantR, wantW = cfg.slots, C-cfg.slots
		}
		drainTimeout := cfg.drainTimeout
		if drainTimeout <= 0 {
			drainTimeout = cfg.startTimeout
		}
		drain := time.NewTimer(drainTimeout)
	drained:
		for {
			snap, err := c.scrape(stopCtx)
			if err != nil {
				// Scraping failed mid-run: keep the client's condition.
				run.note("queue drain not checked: /metrics: %v", err)
				break
			}
			r, okR := snap.get("running")
			w, okW := snap.get("waiting")
			if !okR || !okW || (r >= float64(wantR) && w <= float64(wantW)) {
				ws = max(ws, int64(time.Since(epoch)))
				break
			}
			select {
			case <-abortCh:
				started = false
			case <-ctx.Done():
				abort("interrupted: "+context.Cause(ctx).Error(), nil)
				started = false
			case <-drain.C:
				run.note("window opened with the server's queue not drained: %.0f running and %.0f waiting (want %d and %d) after %v",
					r, w, wantR, wantW, drainTimeout)
				ws = max(ws, int64(time.Since(epoch)))
				break drained
			case <-time.After(100 * time.Millisecond):
				progress("queue drain")
				continue
			}
			break
		}
		drain.Stop()
	}
	// Phase 3: the window.
	if started {
		run.ws = ws
		we := ws + int64(cfg.duration)
		end := time.NewTimer(time.Until(epoch.Add(time.Duration(we))))
		var sampler sync.WaitGroup
		sampleStop := make(chan struct{})
		if run.haveMetrics {
			// Note: the running gauge is sampled in its own goroutine so
			// that a /metrics scrape that hangs (each is bounded by
			// Timeouts.Metrics) never holds the window's end.
			sampler.Add(1)
			go func() {
				defer sampler.Done()
				run.running = c.sampleRunning(stopCtx, sampleStop, func(err error) {
					run.note("server running-requests gauge skipped from %.1f s into the window: /metrics: %v", time.Since(epoch.Add(time.Duration(ws))).Seconds(), err)
				})
			}()
		}
	window:
		for {
			select {
			case <-end.C:
				break window
			case <-abortCh:
				break window
			case <-ctx.Done():
				abort("interrupted: "+context.Cause(ctx).Error(), nil)
				break window
			case <-tick.C:
				progress("measure")
			}
		}
		end.Stop()
		run.we = min(we, int64(time.Since(epoch)))
		close(sampleStop)
		stop(errStopped) // also ends a scrape in flight
		sampler.Wait()
	}
	stop(errStopped)
	stopWatch()
	wg.Wait()
	abortMu.Lock()
	run.errReason, run.looped = abortWhy, looped
	abortMu.Unlock()
	if run.looped != nil {
		// The loop's request was cut by the stop; find its final record.
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
	if run.haveMetrics {
		if s, err := c.scrape(ctx); err == nil {
			run.after = s
		} else {
			run.haveMetrics = false
			run.note("server figures skipped: /metrics after the cell: %v", err)
		}
	}
	return run
}

// note adds a note to the cell.
func (run *cellRun) note(format string, args ...any) {
	run.notes = append(run.notes, fmt.Sprintf(format, args...))
}

// sampleRunning scrapes the server's running-requests gauge every 500 ms
// until stop is closed or ctx ends, and returns the samples. The first
// failed scrape ends the sampling and is reported to fail.
func (c *Client) sampleRunning(ctx context.Context, stop <-chan struct{}, fail func(error)) []float64 {
	var out []float64
	t := time.NewTicker(500 * time.Millisecond)
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
