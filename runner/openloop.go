package runner

import (
	"context"
	"sync"
	"sync/atomic"
	"time"
)

// loadConfig is one load of a serve run: an open-loop rate (at holds
// every request's send time) or a closed loop (at is nil: concurrency
// streams send n requests, each the moment the previous one ended).
type loadConfig struct {
	// label names the load's requests in their ids ("serve-r2").
	label string
	// at holds the send times, ns from the load's epoch, ascending.
	at []int64
	// n and concurrency shape a closed loop (at == nil).
	n, concurrency int
	// closedFor, when above 0, ends a closed loop's sending after it.
	closedFor time.Duration
	// body returns request i's body and its max_tokens (0: unbounded):
	// an open loop's is built by the dispatcher before the request's send
	// time, a closed loop's in the request's goroutine. A request that
	// streams past its max_tokens (a server that ignores it) is marked
	// overran and read no further, so that it holds neither the load nor
	// its drain.
	body func(i int) (body []byte, maxTokens int64)
	// maxInFlight bounds the requests in flight; an arrival that finds
	// them all busy waits for one to end (it is then late, and counted).
	maxInFlight int
	// header bounds a request's wait for its response headers and first
	// event (it may queue behind others); idle the silence between reads.
	header, idle time.Duration
	// drain bounds the wait for requests still in flight once the last
	// was sent; past it they are cut (incomplete).
	drain time.Duration
	// clock chooses how send times are waited for (the benchmark
	// compares them); the zero value is the runtime timer.
	clock clockKind
	// onTokens, when set, is called about every 250 ms with the tokens
	// streamed so far and the requests sent.
	onTokens func(tokens int64, sent int, elapsed time.Duration)
}

// DefaultDrain bounds the wait for a rate's requests in flight after its
// last arrival when ServeConfig.Drain is not set.
//
// Note: 30 s outlasts a request of vLLM's default 128 output tokens at
// 5 tok/s (25.6 s), so a healthy server's tail ends within it, and it keeps a
// short rate short (a fixed minute made `-rates 5,10 -duration 2s` take
// 129.5 s against a server that kept streaming). A request still
// streaming then is cut, counted in incomplete_requests and noted on
// the row; a longer tail asks for a longer -drain.
const DefaultDrain = 30 * time.Second

// loadRun is the raw outcome of one load: every request's record (in
// send order; lag[i] is how late request i's goroutine, its body built,
// called net/http: before a connection is taken and the request written,
// ns) and the streams whose logs hold their ticks.
type loadRun struct {
	epoch   time.Time
	recs    []record
	lag     []int64
	sent    int // requests dispatched (all but those a stop prevented)
	streams []*stream
	// stoppedAt is when requests still in flight were cut (ns from
	// epoch), -1 when all ended by themselves.
	stoppedAt   int64
	interrupted bool
}

// runLoad sends the requests of cfg and reads every stream to its end.
//
// Note: arrivals are scheduled by the clock, never by completions: the
// dispatcher hands request i to a goroutine of its own at epoch+at[i]
// whatever the server does (no coordinated omission). Only the client's
// own bound (maxInFlight) can hold an arrival back; how late each one
// was handed over is recorded (lag), so a client that fell behind says
// so instead of silently lowering the load.
func (c *Client) runLoad(ctx context.Context, cfg loadConfig) loadRun {
	n := len(cfg.at)
	closed := cfg.at == nil
	if closed {
		n = cfg.n
		cfg.maxInFlight = cfg.concurrency
	}
	run := loadRun{recs: make([]record, n), lag: make([]int64, n), stoppedAt: -1}
	stopCtx, stop := context.WithCancelCause(ctx)
	defer stop(errStopped)

	// Streams are reused: a free list of at most maxInFlight.
	var (
		mu      sync.Mutex
		free    []int
		active  = map[int]context.CancelCauseFunc{}
		slots   = make(chan struct{}, cfg.maxInFlight)
		wg      sync.WaitGroup
		tokens  atomic.Int64
		sentNow atomic.Int64
	)
	get := func() (int, *stream) {
		mu.Lock()
		defer mu.Unlock()
		if k := len(free); k > 0 {
			i := free[k-1]
			free = free[:k-1]
			return i, run.streams[i]
		}
		s := newStream()
		s.label = cfg.label
		s.tokens = &tokens
		run.streams = append(run.streams, s)
		return len(run.streams) - 1, s
	}
	run.epoch = time.Now()
	epoch := run.epoch
	clock := newSendClock(stopCtx, epoch, cfg.clock)
	defer clock.close()

	// Stall watchdog, as in closed-loop cells: nothing per byte.
	stopWatch := watch(min(cfg.idle, cfg.header), epoch, func(now int64) bool {
		mu.Lock()
		defer mu.Unlock()
		for i, cancel := range active {
			if err := run.streams[i].silent(now, cfg.header, cfg.header, cfg.idle); err != nil {
				cancel(err)
			}
		}
		return true
	})
	progressDone := make(chan struct{})
	if cfg.onTokens != nil {
		go func() {
			t := time.NewTicker(250 * time.Millisecond)
			defer t.Stop()
			for {
				select {
				case <-progressDone:
					return
				case <-t.C:
					cfg.onTokens(tokens.Load(), int(sentNow.Load()), time.Since(epoch))
				}
			}
		}()
	}

	for i := 0; i < n; i++ {
		var due, want int64
		var body []byte
		if !closed {
			// The body is built before its time comes, so the send lag
			// is the clock's and the scheduler's, not the encoder's.
			body, want = cfg.body(i)
			due = cfg.at[i]
			if !clock.until(due) {
				break
			}
		}
		select {
		case slots <- struct{}{}:
		case <-stopCtx.Done():
		}
		if stopCtx.Err() != nil {
			break
		}
		if closed {
			due = int64(time.Since(epoch))
			if cfg.closedFor > 0 && due >= int64(cfg.closedFor) {
				<-slots
				break
			}
		}
		si, s := get()
		reqCtx, cancel := context.WithCancelCause(stopCtx)
		s.last.Store(due)
		s.headers.Store(false)
		s.streaming.Store(false)
		mu.Lock()
		active[si] = cancel
		mu.Unlock()
		run.sent++
		sentNow.Add(1)
		wg.Add(1)
		go func(i, si int, s *stream, due, want int64, body []byte) {
			defer wg.Done()
			rec := &run.recs[i]
			rec.slot, rec.seq = si, i
			if body == nil { // a closed loop's, built when it is sent
				body, want = cfg.body(i)
			}
			s.want, s.cutAt = want, 0
			if want > 0 {
				s.cutAt = want + 1
			}
			c.do(reqCtx, body, epoch, s, rec)
			run.lag[i] = rec.start - due
			cancel(nil)
			mu.Lock()
			delete(active, si)
			free = append(free, si)
			mu.Unlock()
			<-slots
		}(i, si, s, due, want, body)
	}
	// Wait for the requests in flight, at most drain.
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	drain := time.NewTimer(cfg.drain)
	select {
	case <-done:
	case <-drain.C:
		run.stoppedAt = int64(time.Since(epoch))
		stop(errStopped)
		<-done
	case <-ctx.Done():
		run.interrupted = true
		run.stoppedAt = int64(time.Since(epoch))
		stop(errStopped)
		<-done
	}
	drain.Stop()
	if ctx.Err() != nil {
		run.interrupted = true
	}
	stopWatch()
	close(progressDone)
	run.recs = run.recs[:run.sent]
	run.lag = run.lag[:run.sent]
	return run
}
