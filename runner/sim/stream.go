package sim

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"sync"
	"time"
)

// stream writes one response. Its hot path (writeChunk) appends the SSE
// event into a reused buffer by hand: no encoding/json and no allocation
// per token.
type stream struct {
	s      *Server
	w      http.ResponseWriter
	rc     *http.ResponseController
	rec    *record
	sq     *seq
	ans    answer
	req    *genRequest
	chat   bool
	fault  *Fault
	finish string
	prompt int64
	// reasoning is how many leading tokens go out as reasoning deltas.
	reasoning int64
	// release is called before the last write (see handleGenerate).
	release func()

	buf       []byte
	prefix    []byte // `data: {"id":…,"choices":[`
	sent      int64
	roleSent  bool
	cachedSet bool
	// loopPending defers the LoopCells decision to the first write past
	// LoopAfter.
	loopPending bool
	faultDone   bool
	padNext     bool
}

// midStream reports whether f strikes inside a stream.
func (f *Fault) midStream() bool {
	switch f.Kind {
	case FaultStreamError, FaultReset, FaultStall, FaultLongLine:
		return true
	}
	return false
}

func (st *stream) continuousUsage() bool {
	return st.req.StreamOptions != nil && st.req.StreamOptions.ContinuousUsageStats
}

func (st *stream) includeUsage() bool {
	return st.req.StreamOptions != nil && (st.req.StreamOptions.IncludeUsage || st.req.StreamOptions.ContinuousUsageStats)
}

// serveStream streams the response as server-sent events.
func (st *stream) serveStream(r *http.Request) {
	st.rc = http.NewResponseController(st.w)
	object := "text_completion"
	if st.chat {
		object = "chat.completion.chunk"
	}
	st.prefix = fmt.Appendf(nil, `data: {"id":"%s","object":"%s","created":%d,"model":%s,"choices":[`,
		st.rec.r.ID, object, st.rec.r.Start.Unix(), st.s.model)
	st.buf = make([]byte, 0, 512)
	h := st.w.Header()
	h.Set("Content-Type", "text/event-stream; charset=utf-8")
	h.Set("Cache-Control", "no-cache")
	st.w.WriteHeader(http.StatusOK)
	st.rec.update(func(r *RequestRecord) { r.Status = http.StatusOK })
	if !st.flush() {
		return
	}
	if st.chat && st.s.p.RoleChunkAtArrival && !st.writeRole() {
		return
	}
	ctx := r.Context()
	for {
		select {
		case <-st.sq.notify:
		case <-ctx.Done():
			st.setErr("client went away after %d tokens", st.sent)
			return
		}
		state := st.sq.state.Load()
		produced := st.sq.produced.Load()
		if state == seqAborted {
			st.setErr("server closed after %d tokens", st.sent)
			return
		}
		// The engine stores the count before the state, so a count at the
		// target with a stale state still means the sequence finished.
		if produced >= st.sq.target {
			state = seqFinished
		}
		if produced > 0 && !st.cachedSet {
			// The prefix-cache hit is known once the prefill is done;
			// record it now for readers of requests still in flight.
			st.cachedSet = true
			hit := st.sq.cached.Load()
			st.rec.update(func(r *RequestRecord) { r.CachedTokens = hit })
		}
		if produced > st.sent && st.chat && !st.roleSent && !st.writeRole() {
			return
		}
		for {
			if st.fault != nil && !st.faultDone && st.fault.midStream() && st.sent >= int64(st.fault.AfterTokens) {
				if !st.fire(r) {
					return
				}
				state = st.sq.state.Load()
				produced = st.sq.produced.Load()
				if produced >= st.sq.target && state != seqAborted {
					state = seqFinished
				}
			}
			if st.sent >= produced {
				break
			}
			to := produced
			if st.s.p.StrictChunks {
				to = min(to, st.sent+int64(st.s.p.ChunkTokens))
			}
			if st.fault != nil && !st.faultDone && st.fault.midStream() && int64(st.fault.AfterTokens) < to {
				to = max(int64(st.fault.AfterTokens), st.sent+1)
			}
			if st.sent < st.reasoning && to > st.reasoning {
				to = st.reasoning
			}
			last := state == seqFinished && to == st.sq.target && !st.s.p.FinishChunk
			if !st.writeChunk(st.sent, to, last) {
				return
			}
			st.sent = to
		}
		if state == seqFinished && st.sent == st.sq.target {
			st.end()
			return
		}
	}
}

// fire applies the mid-stream fault; it reports whether the stream goes
// on.
func (st *stream) fire(r *http.Request) bool {
	st.faultDone = true
	switch st.fault.Kind {
	case FaultStreamError:
		st.buf = fmt.Appendf(st.buf[:0], "data: {\"error\":{\"message\":\"injected fault after %d tokens\",\"type\":\"InternalServerError\",\"param\":null,\"code\":500}}\n\ndata: [DONE]\n\n", st.sent)
		if _, err := st.w.Write(st.buf); err == nil {
			st.flush()
		}
		st.setErr("stream error after %d tokens", st.sent)
		return false
	case FaultReset:
		if err := resetConn(st.w, true); err != nil {
			st.setErr("reset failed after %d tokens: %v", st.sent, err)
		} else {
			st.setErr("connection reset after %d tokens", st.sent)
		}
		return false
	case FaultStall:
		if !sleepCtx(r.Context(), time.Duration(float64(st.fault.Duration)/st.s.p.Speedup)) {
			st.setErr("client went away during a stall after %d tokens", st.sent)
			return false
		}
	case FaultLongLine:
		st.padNext = true
	}
	return true
}

// flush pushes buffered bytes to the connection.
func (st *stream) flush() bool {
	if err := st.rc.Flush(); err != nil {
		st.setErr("client went away after %d tokens: flush: %v", st.sent, err)
		return false
	}
	return true
}

func (st *stream) setErr(format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	st.rec.update(func(r *RequestRecord) {
		if r.Err == "" {
			r.Err = msg
		}
	})
}

// writeRole sends the role-only first chunk of a chat stream.
func (st *stream) writeRole() bool {
	st.roleSent = true
	b := append(st.buf[:0], st.prefix...)
	b = append(b, `{"index":0,"delta":{"role":"assistant"},"logprobs":null,"finish_reason":null}]`...)
	if st.continuousUsage() {
		b = st.appendUsage(b, 0)
	}
	b = append(b, "}\n\n"...)
	st.buf = b
	if _, err := st.w.Write(b); err != nil {
		st.setErr("client went away: write: %v", err)
		return false
	}
	if !st.flush() {
		return false
	}
	at := time.Now()
	st.rec.update(func(r *RequestRecord) { r.FirstChunk = at })
	return true
}

// appendUsage appends a usage object for completion tokens done.
func (st *stream) appendUsage(b []byte, done int64) []byte {
	b = append(b, `,"usage":{"prompt_tokens":`...)
	b = strconv.AppendInt(b, st.prompt, 10)
	b = append(b, `,"completion_tokens":`...)
	b = strconv.AppendInt(b, done, 10)
	b = append(b, `,"total_tokens":`...)
	b = strconv.AppendInt(b, st.prompt+done, 10)
	return append(b, '}')
}

// writeChunk sends tokens [from, to) as one event; last marks the event
// that carries finish_reason.
func (st *stream) writeChunk(from, to int64, last bool) bool {
	reasoning := from < st.reasoning
	b := append(st.buf[:0], st.prefix...)
	if st.chat {
		b = append(b, `{"index":0,"delta":{"`...)
		if reasoning {
			b = append(b, st.s.p.ReasoningField...)
		} else {
			b = append(b, "content"...)
		}
		b = append(b, `":"`...)
	} else {
		b = append(b, `{"index":0,"text":"`...)
	}
	if st.loopPending && to > int64(st.s.p.LoopAfter) {
		st.decideLoop()
	}
	b = st.ans.appendText(b, from, to)
	if st.padNext {
		st.padNext = false
		b = append(b, longLinePad(st.fault.LineBytes)...)
	}
	if st.chat {
		b = append(b, `"},"logprobs":null,"finish_reason":`...)
	} else {
		b = append(b, `","logprobs":null,"finish_reason":`...)
	}
	if last {
		b = append(b, '"')
		b = append(b, st.finish...)
		b = append(b, '"')
	} else {
		b = append(b, "null"...)
	}
	if !st.chat {
		b = append(b, `,"stop_reason":null`...)
	}
	b = append(b, "}]"...)
	if st.continuousUsage() {
		b = st.appendUsage(b, to)
	}
	b = append(b, "}\n\n"...)
	st.buf = b
	if _, err := st.w.Write(b); err != nil {
		st.setErr("client went away after %d tokens: write: %v", from, err)
		return false
	}
	if !st.flush() {
		return false
	}
	st.rec.addChunk(int64(time.Since(st.s.epoch)), int(to-from), reasoning, st.s.epoch)
	return true
}

// end sends the usage chunk and [DONE] of a completed stream, after the
// separate finish chunk when the profile asks for one.
func (st *stream) end() {
	b := st.buf[:0]
	if st.s.p.FinishChunk {
		b = append(b, st.prefix...)
		if st.chat {
			b = append(b, `{"index":0,"delta":{"content":""},"logprobs":null,"finish_reason":"`...)
		} else {
			b = append(b, `{"index":0,"text":"","logprobs":null,"finish_reason":"`...)
		}
		b = append(b, st.finish...)
		b = append(b, `"}]}`+"\n\n"...)
	}
	if st.includeUsage() {
		b = append(b, st.prefix...)
		b = append(b, ']')
		b = st.appendUsage(b, st.sent)
		b = append(b, "}\n\n"...)
	}
	noDone := st.fault != nil && st.fault.Kind == FaultNoDone
	if !noDone {
		b = append(b, "data: [DONE]\n\n"...)
	}
	st.buf = b
	st.release()
	if len(b) > 0 {
		if _, err := st.w.Write(b); err != nil {
			st.setErr("client went away at the end: write: %v", err)
			return
		}
		if !st.flush() {
			return
		}
	}
	at := time.Now()
	st.s.countFinish(st.finish)
	st.rec.update(func(r *RequestRecord) { r.Finished, r.FinishReason = at, st.finish })
}

// serveWhole answers a non-streaming request once generation ends.
func (st *stream) serveWhole(r *http.Request) {
	ctx := r.Context()
	for st.sq.state.Load() == seqActive {
		select {
		case <-st.sq.notify:
		case <-ctx.Done():
			st.setErr("client went away")
			return
		}
	}
	if st.sq.state.Load() == seqAborted {
		st.setErr("server closed")
		return
	}
	n := st.sq.target
	if f := st.fault; f != nil {
		switch f.Kind {
		case FaultReset:
			if err := resetConn(st.w, false); err != nil {
				st.setErr("reset failed: %v", err)
			} else {
				st.setErr("connection reset")
			}
			return
		case FaultStreamError:
			writeError(st.w, http.StatusInternalServerError, "InternalServerError", "injected fault")
			st.rec.update(func(r *RequestRecord) { r.Status = http.StatusInternalServerError })
			st.setErr("500 injected fault")
			return
		case FaultStall:
			if !sleepCtx(ctx, time.Duration(float64(f.Duration)/st.s.p.Speedup)) {
				st.setErr("client went away during a stall")
				return
			}
		}
	}
	reasoning := min(st.reasoning, n)
	content := string(st.ans.appendText(nil, reasoning, n))
	if st.fault != nil && st.fault.Kind == FaultLongLine {
		content += string(longLinePad(st.fault.LineBytes))
	}
	usage := map[string]int64{"prompt_tokens": st.prompt, "completion_tokens": n, "total_tokens": st.prompt + n}
	var resp map[string]any
	if st.chat {
		msg := map[string]any{"role": "assistant", "content": content}
		if reasoning > 0 {
			msg[st.s.p.ReasoningField] = string(st.ans.appendText(nil, 0, reasoning))
		}
		resp = map[string]any{
			"id": st.rec.r.ID, "object": "chat.completion", "created": st.rec.r.Start.Unix(), "model": st.s.p.ModelName,
			"choices": []any{map[string]any{"index": 0, "message": msg, "logprobs": nil, "finish_reason": st.finish}},
			"usage":   usage,
		}
	} else {
		resp = map[string]any{
			"id": st.rec.r.ID, "object": "text_completion", "created": st.rec.r.Start.Unix(), "model": st.s.p.ModelName,
			"choices": []any{map[string]any{"index": 0, "text": content, "logprobs": nil, "finish_reason": st.finish, "stop_reason": nil}},
			"usage":   usage,
		}
	}
	b, err := json.Marshal(resp)
	if err != nil {
		st.setErr("encode: %v", err)
		return
	}
	st.release()
	st.w.Header().Set("Content-Type", "application/json")
	st.w.WriteHeader(http.StatusOK)
	if _, err := st.w.Write(b); err != nil {
		st.rec.update(func(r *RequestRecord) { r.Status = http.StatusOK })
		st.setErr("client went away: write: %v", err)
		return
	}
	at := time.Since(st.s.epoch)
	if reasoning > 0 {
		st.rec.addChunk(int64(at), int(reasoning), true, st.s.epoch)
	}
	if n > reasoning {
		st.rec.addChunk(int64(at), int(n-reasoning), false, st.s.epoch)
	}
	st.s.countFinish(st.finish)
	st.rec.update(func(r *RequestRecord) {
		r.Status, r.Finished, r.FinishReason = http.StatusOK, st.s.epoch.Add(at), st.finish
	})
}

var (
	padOnce sync.Once
	padBuf  []byte
)

// longLinePad returns n bytes (1 MiB when n ≤ 0) of pseudo-random
// lowercase letters: one enormous SSE line that does not look like a loop.
func longLinePad(n int) []byte {
	padOnce.Do(func() {
		padBuf = make([]byte, 4<<20)
		for i := range padBuf {
			padBuf[i] = 'a' + byte(mix(uint64(i), 3, 5)%26)
		}
	})
	if n <= 0 {
		n = 1 << 20
	}
	return padBuf[:min(n, len(padBuf))]
}

// countFinish counts a completed request in vllm:request_success_total.
func (s *Server) countFinish(reason string) {
	if reason == "length" {
		s.m.successLength.Add(1)
	} else {
		s.m.successStop.Add(1)
	}
}

// decideLoop decides whether a stream of a LoopCells profile loops: it
// does when its cell (context label, requests in the server) is listed.
// Note: the count is taken when the stream reaches LoopAfter rather than at
// arrival: a closed loop's requests end and are resent together, so at
// arrival the others are often between requests, while mid-answer all C
// are in the server.
func (st *stream) decideLoop() {
	st.loopPending = false
	m := &st.s.m
	c := int(m.running.Load() + m.waiting.Load())
	if st.s.loops[LoopCell{ContextLabel: contextLabel(st.prompt), Concurrency: c}] {
		st.ans.loopAfter = int64(st.s.p.LoopAfter)
	}
}
