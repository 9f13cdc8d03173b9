package sim

import (
	"sync"
	"sync/atomic"
	"time"
)

// Sequence states, stored in seq.state.
const (
	seqActive int32 = iota
	seqFinished
	seqAborted
)

// seq is one request inside the engine. Fields under "engine" are touched
// only by the engine goroutine; the handler and the engine share the
// atomics and the notify channel.
type seq struct {
	n      uint64 // arrival number, 1-based
	prompt int64
	target int64 // tokens to generate
	hashes []uint64

	// engine
	prefillLeft int64 // tokens still to prefill, cachedLeft of them cached
	cachedLeft  int64
	stepCached  int64 // cached tokens among stepPrefill
	kv          int64 // tokens held in the KV cache
	gen         int64 // tokens generated
	stepPrefill int64 // prefill tokens planned for the current step
	stepDecode  int64 // tokens planned for the current step
	admitted    bool
	// quiet requests (not streamed) are woken only when they finish.
	quiet bool

	produced    atomic.Int64
	state       atomic.Int32
	cached      atomic.Int64 // prefix-cache hit of the first admission
	preemptions atomic.Int32
	// notify has capacity 1: the engine never blocks on it, and the writer
	// reads produced after each wake, so signals may merge.
	notify chan struct{}
}

func (s *seq) signal() {
	select {
	case s.notify <- struct{}{}:
	default:
	}
}

// engine is the simulated model executor: one goroutine that runs
// continuous-batching steps paced by deadlines.
type engine struct {
	p       *Profile
	tok     Tokenizer
	metrics *counters
	// ledger records the tokens generated after each step (energy.go).
	ledger *energyLedger

	mu       sync.Mutex
	incoming []*seq
	closed   bool
	wake     chan struct{}
	done     chan struct{}

	// engine goroutine only
	waiting []*seq
	running []*seq // in admission order
	kvUsed  int64
	cache   *prefixCache
	stats   engineStats
	woken   []*seq // requests to wake after a step, reused
}

// engineStats counts how late the engine woke for its step deadlines.
type engineStats struct {
	steps, lateSum, lateMax, resets atomic.Int64
	// lost is the time dropped at resets (ns): how far behind the engine
	// was each time it restarted its schedule.
	lost atomic.Int64
}

func (st *engineStats) record(late int64) {
	st.steps.Add(1)
	st.lateSum.Add(late)
	if late > st.lateMax.Load() {
		st.lateMax.Store(late)
	}
}

// EngineStats reports how well the engine kept its step deadlines: wake-up
// overshoot is how late it woke for a deadline (it does not accumulate:
// the next deadline follows the previous one, not the wake-up).
type EngineStats struct {
	// Steps counts engine steps since New.
	Steps int64
	// MeanOvershoot and MaxOvershoot describe wake-up lateness.
	MeanOvershoot, MaxOvershoot time.Duration
	// Resets counts times the engine fell more than 250 ms behind its
	// schedule (starved of CPU) and restarted it from the current time,
	// losing that time; Lost sums the time so lost. A rate measured over
	// wall time while the engine lost time is slower than the profile's
	// by at most Lost over that time.
	Resets int64
	Lost   time.Duration
}

func newEngine(p *Profile, m *counters) *engine {
	return &engine{
		p:       p,
		tok:     Tokenizer{CharsPerToken: p.CharsPerToken},
		metrics: m,
		wake:    make(chan struct{}, 1),
		done:    make(chan struct{}),
		cache:   newPrefixCache(int(p.PrefixCacheTokens / p.BlockSize)),
	}
}

// submit hands a request to the engine. It reports false when the engine
// is closed.
func (e *engine) submit(s *seq) bool {
	e.mu.Lock()
	if e.closed {
		e.mu.Unlock()
		return false
	}
	e.incoming = append(e.incoming, s)
	e.mu.Unlock()
	select {
	case e.wake <- struct{}{}:
	default:
	}
	return true
}

// close stops the engine and waits for its goroutine to end; every request
// still inside is aborted.
func (e *engine) close() {
	e.mu.Lock()
	already := e.closed
	e.closed = true
	e.mu.Unlock()
	if !already {
		select {
		case e.wake <- struct{}{}:
		default:
		}
	}
	<-e.done
}

// maxLag bounds how far behind its deadlines the engine may run before it
// gives up catching up (after an idle period, or when starved of CPU).
const maxLag = 250 * time.Millisecond

// run is the engine goroutine.
func (e *engine) run() {
	defer close(e.done)
	pinEngineThread()
	var deadline int64 // 0 = no step in progress
	for {
		e.mu.Lock()
		e.waiting = append(e.waiting, e.incoming...)
		clear(e.incoming)
		e.incoming = e.incoming[:0]
		closed := e.closed
		e.mu.Unlock()
		if closed {
			e.abortAll()
			return
		}
		e.dropAborted()
		e.admit()
		e.publishGauges()
		if len(e.running) == 0 {
			<-e.wake
			deadline = 0
			continue
		}
		d := e.plan()
		now := monoNow()
		if deadline == 0 || now-deadline > int64(maxLag) {
			if deadline != 0 {
				e.stats.resets.Add(1)
				e.stats.lost.Add(now - deadline)
			}
			deadline = now
		}
		deadline += int64(float64(d) / e.p.Speedup)
		sleepUntil(deadline)
		e.stats.record(monoNow() - deadline)
		e.finishStep()
	}
}

// dropAborted removes requests whose client went away.
func (e *engine) dropAborted() {
	e.waiting = filterSeqs(e.waiting, func(s *seq) bool { return s.state.Load() == seqActive })
	e.running = filterSeqs(e.running, func(s *seq) bool {
		if s.state.Load() == seqActive {
			return true
		}
		e.kvUsed -= s.kv
		s.kv = 0
		return false
	})
}

func filterSeqs(ss []*seq, keep func(*seq) bool) []*seq {
	out := ss[:0]
	for _, s := range ss {
		if keep(s) {
			out = append(out, s)
		}
	}
	clear(ss[len(out):])
	return out
}

// admit moves waiting requests into the running batch while MaxRunning and
// the KV budget allow, looking their prompts up in the prefix cache.
func (e *engine) admit() {
	for len(e.waiting) > 0 && len(e.running) < e.p.MaxRunning {
		s := e.waiting[0]
		need := s.prompt + s.gen
		if e.kvUsed+need > e.p.KVTokens && len(e.running) > 0 {
			return
		}
		e.waiting[0] = nil
		e.waiting = e.waiting[1:]
		hit := int64(e.cache.lookup(s.hashes)) * e.p.BlockSize
		hit = min(hit, s.prompt-1)
		if !s.admitted {
			s.admitted = true
			s.cached.Store(hit)
			e.metrics.promptTokens.Add(s.prompt)
			e.metrics.prefixQueries.Add(s.prompt)
			e.metrics.prefixHits.Add(hit)
		}
		// After a preemption the generated tokens are recomputed too.
		s.prefillLeft = s.prompt + s.gen - hit
		if e.p.CachedTokS > 0 {
			// Cached tokens still cost time, at CachedTokS.
			s.prefillLeft += hit
			s.cachedLeft = hit
		}
		s.kv = need
		e.kvUsed += need
		e.running = append(e.running, s)
	}
}

// plan decides what the next step does and returns its modelled duration.
// It preempts the most recently admitted requests while the step's new
// tokens would overflow the KV budget.
func (e *engine) plan() time.Duration {
	k := int64(e.p.ChunkTokens)
	for {
		var grow int64
		for _, s := range e.running {
			if s.prefillLeft == 0 {
				grow += min(k, s.target-s.gen)
			}
		}
		if e.kvUsed+grow <= e.p.KVTokens || len(e.running) <= 1 {
			break
		}
		last := e.running[len(e.running)-1]
		e.running = e.running[:len(e.running)-1]
		e.kvUsed -= last.kv
		last.kv = 0
		last.preemptions.Add(1)
		e.metrics.preemptions.Add(1)
		e.waiting = append([]*seq{last}, e.waiting...)
	}
	budget := e.p.MaxBatchedTokens
	var prefill float64 // seconds
	var decodeN int
	var ctx int64
	for _, s := range e.running {
		s.stepPrefill, s.stepCached, s.stepDecode = 0, 0, 0
		if s.prefillLeft > 0 {
			if budget > 0 {
				t := min(budget, s.prefillLeft)
				c := min(t, s.cachedLeft)
				budget -= t
				s.stepPrefill, s.stepCached = t, c
				prefill += float64(t-c) / e.p.PrefillRate(s.prompt)
				if c > 0 {
					prefill += float64(c) / e.p.CachedTokS
				}
			}
			continue
		}
		s.stepDecode = min(k, s.target-s.gen)
		decodeN++
		ctx += s.kv
	}
	return e.p.StepTime(decodeN, ctx) + time.Duration(prefill*float64(time.Second))
}

// finishStep applies the step that just ended: prefill progress, new
// tokens, finished requests; then wakes their writers.
func (e *engine) finishStep() {
	k := int64(e.p.ChunkTokens)
	keep := e.running[:0]
	for _, s := range e.running {
		var add int64
		switch {
		case s.stepPrefill > 0:
			s.prefillLeft -= s.stepPrefill
			s.cachedLeft -= s.stepCached
			if s.prefillLeft == 0 {
				e.cache.insert(s.hashes)
				// The step that ends a prefill samples the first token(s).
				add = min(k, s.target-s.gen)
			}
		case s.stepDecode > 0:
			add = s.stepDecode
			if k > 1 {
				// One draft of k−1 tokens per request and step, all
				// accepted but the ones past the answer's end.
				e.metrics.specDrafts.Add(1)
				e.metrics.specDraftTokens.Add(k - 1)
				e.metrics.specAccepted.Add(add - 1)
			}
		}
		if add > 0 {
			s.gen += add
			s.kv += add
			e.kvUsed += add
			e.metrics.generationTokens.Add(add)
			s.produced.Store(s.gen)
		}
		if s.gen >= s.target {
			e.kvUsed -= s.kv
			s.kv = 0
			s.state.CompareAndSwap(seqActive, seqFinished)
			e.woken = append(e.woken, s)
			continue
		}
		if add > 0 && !s.quiet {
			e.woken = append(e.woken, s)
		}
		keep = append(keep, s)
	}
	clear(e.running[len(keep):])
	e.running = keep
	e.ledger.record(e.metrics.generationTokens.Load())
	// Gauges first, so a client that sees its request end sees it gone
	// from /metrics too.
	e.publishGauges()
	for _, s := range e.woken {
		s.signal()
	}
	clear(e.woken)
	e.woken = e.woken[:0]
}

// abortAll ends every request still inside a closing engine.
func (e *engine) abortAll() {
	for _, ss := range [][]*seq{e.waiting, e.running} {
		for _, s := range ss {
			s.state.CompareAndSwap(seqActive, seqAborted)
			s.signal()
		}
	}
	e.waiting, e.running = nil, nil
	e.kvUsed = 0
	e.publishGauges()
}

// publishGauges copies the scheduler state into the metrics.
func (e *engine) publishGauges() {
	e.metrics.running.Store(int64(len(e.running)))
	e.metrics.waiting.Store(int64(len(e.waiting)))
	e.metrics.kvUsed.Store(e.kvUsed)
}
