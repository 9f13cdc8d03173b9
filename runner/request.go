package runner

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptrace"
	"sync/atomic"
	"time"
)

// tick is one token-bearing chunk of a request: when its bytes arrived
// (nanoseconds from the cell's epoch) and the request's token count after
// it.
type tick struct {
	t   int64
	cum int32
}

// record is what the client saw of one request.
type record struct {
	slot, seq    int
	start        int64 // request handed to the transport, ns from epoch
	sent         int64 // request fully written to the connection (TTFT's origin)
	first        int64 // first token of any kind; -1 when none
	firstContent int64 // first content token; -1 when none
	end          int64 // stream ended; -1 when cut at the window's end
	t0, t1       int   // its ticks are stream.log[t0:t1]
	prompt       int64 // usage.prompt_tokens; 0 when unreported
	tokens       int64 // output tokens, corrected by the final usage
	done         bool  // finished normally (finish_reason or [DONE])
	cut          bool  // stopped by the runner (window end, cell stop)
	err          string
	// retries counts sends again on a new connection after the server
	// closed a reused one before answering (0 or 1).
	retries int8
	// overran is true when the server streamed more tokens than
	// max_tokens asked for.
	overran bool
	// continuous is true when the server sent usage with every chunk, so
	// the tick counts are the server's; otherwise they count chunks
	// (corrected by the final usage when the request finished).
	continuous bool
	looped     bool
	loop       LoopHit
	loopAt     int64 // when the loop was detected
}

// failed reports whether the request is an error (counted, never counted
// as tokens).
func (r *record) failed() bool { return r.err != "" }

// stream is the per-connection state of one closed-loop stream, reused
// for every request it sends so the hot path allocates nothing per token.
type stream struct {
	// label names the stream's requests in their ids (requestIDs.next).
	label              string
	rd                 *sseReader
	ch                 chunk
	log                []tick
	content, reasoning loopDetector
	// last is the arrival time (ns from epoch) of the latest bytes, read
	// by the stall watchdog; headers and streaming tell it the request has
	// its response headers and its first event (before that, a queued
	// prefill may be silent long).
	last      atomic.Int64
	headers   atomic.Bool
	streaming atomic.Bool
	// want is the request's max_tokens: a request streaming more is
	// marked overran; past cutAt tokens (0: never) the client stops
	// reading it. maxBytes (0: unbounded) bounds its body. Probes set all
	// three, so that a server ignoring max_tokens=1 costs bounded time and
	// memory.
	want, cutAt int64
	maxBytes    int64
	// Hooks of the cell this stream serves; nil outside cells.
	onFirst func(t int64)   // the request's first token arrived at t
	onLoop  func(r *record) // the request's text loops
	tokens  *atomic.Int64   // running token count, for progress
}

func newStream() *stream { return &stream{rd: newSSEReader(nil, nil)} }

// errStalled is the cancel cause the watchdog gives a silent request.
var errStalled = errors.New("stalled")

// errStopped is the cancel cause when the runner ends the cell.
var errStopped = errors.New("stopped by the runner")

// errTooLong ends a response longer than its stream's maxBytes.
var errTooLong = errors.New("response longer than the client reads for it")

// silent reports why the request of s counts as stalled at now (ns from
// its epoch), or nil: no headers within header, no first event within
// first of the headers, or no bytes for idle once streaming.
func (s *stream) silent(now int64, header, first, idle time.Duration) error {
	quiet := now - s.last.Load()
	switch {
	case !s.headers.Load():
		if quiet > int64(header) {
			return fmt.Errorf("%w: no response headers within %v", errStalled, header)
		}
	case !s.streaming.Load():
		if quiet > int64(first) {
			return fmt.Errorf("%w: no event within %v of the response headers", errStalled, first)
		}
	case quiet > int64(idle):
		return fmt.Errorf("%w: no bytes for %v", errStalled, idle)
	}
	return nil
}

// watchPeriod is how often a watchdog looks at its streams: often enough
// to end a stall within a quarter of its limit, at most once a second.
func watchPeriod(limit time.Duration) time.Duration {
	return max(min(limit/4, time.Second), 10*time.Millisecond)
}

// watch starts a stall watchdog: every watchPeriod(limit) it calls look
// with the time since epoch (ns), until look returns false or the
// returned stop is called (which waits for nothing: the watchdog ends at
// its next tick at the latest). Probes, closed-loop cells and open-loop
// loads share it; each look checks its streams with stream.silent.
func watch(limit time.Duration, epoch time.Time, look func(now int64) bool) (stop func()) {
	done := make(chan struct{})
	go func() {
		t := time.NewTicker(watchPeriod(limit))
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				if !look(int64(time.Since(epoch))) {
					return
				}
			}
		}
	}()
	return func() { close(done) }
}

// capReader fails a body past max bytes; n is what is left.
type capReader struct {
	r      io.Reader
	n, max int64
}

func (c *capReader) Read(p []byte) (int, error) {
	if c.n <= 0 {
		return 0, fmt.Errorf("%w (%d bytes)", errTooLong, c.max)
	}
	if int64(len(p)) > c.n {
		p = p[:c.n]
	}
	n, err := c.r.Read(p)
	c.n -= int64(n)
	return n, err
}

// do sends one streaming request with body and reads it to the end,
// appending its ticks to s.log and filling rec. It never returns an
// error: a failed request is data, recorded in rec.err.
func (c *Client) do(ctx context.Context, body []byte, epoch time.Time, s *stream, rec *record) {
	rec.first, rec.firstContent, rec.end = -1, -1, -1
	rec.t0 = len(s.log)
	rec.t1 = rec.t0
	s.content.reset()
	s.reasoning.reset()
	rec.start = int64(time.Since(epoch))
	s.last.Store(rec.start)
	s.headers.Store(false)
	s.streaming.Store(false)
	// Note: TTFT starts when the request has been written, not when it
	// was handed to the transport, so that dialing a new connection or
	// waiting for a free one (client-side costs) is not charged to the
	// server. One trace per request, none per token.
	rec.sent = rec.start
	trace := &httptrace.ClientTrace{WroteRequest: func(httptrace.WroteRequestInfo) {
		rec.sent = int64(time.Since(epoch))
	}}
	id := c.ids.next(s.label)
	resp, retried, err := c.send(ctx, trace, func(ctx context.Context) (*http.Request, error) {
		req, err := c.newRequest(ctx, http.MethodPost, c.path(), body)
		if err == nil {
			req.Header.Set("Accept", "text/event-stream")
			req.Header.Set(RequestIDHeader, id)
		}
		return req, err
	})
	if retried {
		rec.retries++
	}
	if err != nil {
		c.fail(ctx, epoch, rec, "send", err)
		return
	}
	defer resp.Body.Close()
	s.last.Store(int64(time.Since(epoch)))
	s.headers.Store(true)
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 8<<10))
		rec.err = fmt.Sprintf("HTTP %d: %s", resp.StatusCode, snippet(b))
		rec.end = int64(time.Since(epoch))
		return
	}
	var rd io.Reader = resp.Body
	if s.maxBytes > 0 {
		rd = &capReader{r: resp.Body, n: s.maxBytes, max: s.maxBytes}
	}
	s.rd.reset(rd)
	s.rd.budget = c.lines
	var (
		cum        int64 // tokens so far
		continuous bool  // the server sends usage with every chunk
		final      int64 = -1
		finished   bool
	)
	for {
		p, at, err := s.rd.next()
		if err != nil {
			if err == io.EOF {
				if finished || rec.done {
					rec.done = true
					break
				}
				rec.err = "stream ended without finish_reason or [DONE]"
				rec.end = int64(time.Since(epoch))
				break
			}
			c.fail(ctx, epoch, rec, "read", err)
			break
		}
		t := int64(at.Sub(epoch))
		s.last.Store(t)
		if !s.streaming.Load() {
			s.streaming.Store(true)
		}
		if len(p) == 6 && string(p) == "[DONE]" {
			rec.done = true
			rec.end = t
			break
		}
		ch := &s.ch
		if err := scanChunk(p, ch); err != nil {
			rec.err = fmt.Sprintf("%v: %.200q", err, p)
			rec.end = t
			break
		}
		if ch.err {
			rec.err = "server error in stream: " + string(appendUnescaped(nil, ch.errMsg))
			rec.end = t
			break
		}
		if ch.usage {
			if ch.promptTokens > 0 {
				rec.prompt = ch.promptTokens
			}
			if ch.choices > 0 {
				continuous = true
			} else {
				final = ch.completionTokens
			}
		}
		if ch.tokens() {
			next := cum + 1
			if continuous && ch.completionTokens > cum {
				next = ch.completionTokens
			}
			if s.tokens != nil {
				s.tokens.Add(next - cum)
			}
			cum = next
			if rec.first < 0 {
				rec.first = t
				if s.onFirst != nil {
					s.onFirst(t)
				}
			}
			if rec.firstContent < 0 && (len(ch.content) > 0 || len(ch.text) > 0) {
				rec.firstContent = t
			}
			s.log = append(s.log, tick{t: t, cum: int32(cum)})
			if !rec.looped {
				if hit, ok := s.content.add(ch.content, ch.contentEsc); ok {
					rec.looped, rec.loop = true, hit
				} else if hit, ok := s.content.add(ch.text, ch.textEsc); ok {
					rec.looped, rec.loop = true, hit
				} else if hit, ok := s.reasoning.add(ch.reasoning, ch.reasoningEsc); ok {
					hit.Reasoning = true
					rec.looped, rec.loop = true, hit
				}
				if rec.looped {
					rec.loopAt = t
					if s.onLoop != nil {
						s.onLoop(rec)
					}
				}
			}
			if cum > s.want && s.want > 0 {
				// A server that ignores max_tokens: said on the cell; a
				// probe stops reading it.
				//
				// Note: the bounds cost the read loop this comparison per
				// token chunk; the byte bound is a reader wrapped around
				// probe bodies only, and stalls are watched from outside
				// the loop (silent), which stamps s.last as it did.
				rec.overran = true
				if s.cutAt > 0 && cum >= s.cutAt {
					rec.cut = true
					rec.end = t
					break
				}
			}
		}
		if ch.finish {
			finished = true
			rec.end = t
		}
	}
	s.rd.release() // an idle stream holds no long line's buffer
	rec.t1 = len(s.log)
	rec.continuous = continuous
	if rec.err != "" {
		return
	}
	if rec.done && rec.end < 0 {
		rec.end = int64(time.Since(epoch))
	}
	if final > 0 && final != cum && rec.t1 > rec.t0 && !continuous {
		// Several tokens per chunk (speculative decoding, MTP) without
		// continuous usage: the chunk count undercounts. Spread the final
		// count over the chunks in proportion, ending exactly at it.
		ticks := s.log[rec.t0:rec.t1]
		for i := range ticks {
			ticks[i].cum = int32((int64(ticks[i].cum)*final + cum/2) / cum)
		}
		ticks[len(ticks)-1].cum = int32(final)
		cum = final
	}
	rec.tokens = cum
}

// fail records a transport error, telling a runner stop and a stall from
// a broken connection.
func (c *Client) fail(ctx context.Context, epoch time.Time, rec *record, what string, err error) {
	cause := context.Cause(ctx)
	switch {
	case errors.Is(cause, errStopped):
		rec.cut = true
	case errors.Is(cause, errStalled):
		rec.err = cause.Error()
		rec.end = int64(time.Since(epoch))
	default:
		rec.err = fmt.Sprintf("%s: %v", what, err)
		rec.end = int64(time.Since(epoch))
	}
}

// Probe bounds: a one-token probe answered by a server that ignores
// max_tokens is read for at most probeMaxTokens tokens and probeMaxBytes
// bytes.
const (
	probeMaxTokens = 64
	probeMaxBytes  = 8 << 20
)

// probe sends prompt with max_tokens=1 and returns its record (TTFT from
// first − start, prompt tokens from usage). It is bounded in time
// (Timeouts.Header until the first event, then Timeouts.Idle), tokens and
// bytes.
func (c *Client) probe(ctx context.Context, prompt string) record {
	var rec record
	s := newStream()
	s.label = "probe"
	s.want, s.cutAt, s.maxBytes = 1, probeMaxTokens, probeMaxBytes
	pctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	epoch := time.Now()
	to := c.timeouts
	stop := watch(min(to.Header, to.Idle), epoch, func(now int64) bool {
		if err := s.silent(now, to.Header, to.Header, to.Idle); err != nil {
			cancel(err)
			return false
		}
		return true
	})
	c.do(pctx, c.completionBody(prompt, 1), epoch, s, &rec)
	stop()
	return rec
}
