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
	rd                 *sseReader
	ch                 chunk
	log                []tick
	content, reasoning loopDetector
	// last is the arrival time (ns from epoch) of the latest bytes, read
	// by the stall watchdog; streaming tells it the request has received
	// its first event (before that, a queued prefill may be silent long).
	last      atomic.Int64
	streaming atomic.Bool
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
	s.streaming.Store(false)
	req, err := c.newRequest(ctx, http.MethodPost, c.path(), body)
	if err != nil {
		rec.err = err.Error()
		return
	}
	req.Header.Set("Accept", "text/event-stream")
	// Note: TTFT starts when the request has been written, not when it
	// was handed to the transport, so that dialing a new connection or
	// waiting for a free one (client-side costs) is not charged to the
	// server. One trace per request, none per token.
	rec.sent = rec.start
	trace := &httptrace.ClientTrace{WroteRequest: func(httptrace.WroteRequestInfo) {
		rec.sent = int64(time.Since(epoch))
	}}
	req = req.WithContext(httptrace.WithClientTrace(req.Context(), trace))
	resp, err := c.http.Do(req)
	if err != nil {
		c.fail(ctx, epoch, rec, "send", err)
		return
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 8<<10))
		rec.err = fmt.Sprintf("HTTP %d: %s", resp.StatusCode, snippet(b))
		rec.end = int64(time.Since(epoch))
		return
	}
	s.rd.reset(resp.Body)
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
		}
		if ch.finish {
			finished = true
			rec.end = t
		}
	}
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

// probe sends prompt with max_tokens=1 and returns its record (TTFT from
// first − start, prompt tokens from usage).
func (c *Client) probe(ctx context.Context, prompt string) record {
	var rec record
	s := newStream()
	c.do(ctx, c.completionBody(prompt, 1), time.Now(), s, &rec)
	return rec
}
