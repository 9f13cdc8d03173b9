package sim

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// MaxBodyBytes bounds a request body.
const MaxBodyBytes = 64 << 20

// genRequest is the subset of the OpenAI request the simulator honours.
type genRequest struct {
	Model               string          `json:"model"`
	Messages            []chatMessage   `json:"messages"`
	Prompt              json.RawMessage `json:"prompt"`
	Stream              bool            `json:"stream"`
	StreamOptions       *streamOptions  `json:"stream_options"`
	MaxTokens           *int64          `json:"max_tokens"`
	MaxCompletionTokens *int64          `json:"max_completion_tokens"`
	MinTokens           int64           `json:"min_tokens"`
	IgnoreEOS           bool            `json:"ignore_eos"`
}

type streamOptions struct {
	IncludeUsage         bool `json:"include_usage"`
	ContinuousUsageStats bool `json:"continuous_usage_stats"`
}

type chatMessage struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
}

// messageText returns a message's text: a string, or the text parts of an
// array of content parts.
func messageText(raw json.RawMessage) (string, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return "", nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err == nil {
		return s, nil
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if err := json.Unmarshal(raw, &parts); err != nil {
		return "", fmt.Errorf("content is neither a string nor an array of parts: %w", err)
	}
	var b strings.Builder
	for _, p := range parts {
		b.WriteString(p.Text)
	}
	return b.String(), nil
}

// promptText returns the text the prefix cache hashes and the prompt's
// token count. Chat messages are joined as role, NUL, content, NUL; each
// message adds ChatTemplateTokens.
func (s *Server) promptText(chat bool, msgs []chatMessage, prompt json.RawMessage) (string, int64, error) {
	if chat {
		if len(msgs) == 0 {
			return "", 0, errors.New("messages: at least one message is required")
		}
		var b strings.Builder
		var n int64
		for i, m := range msgs {
			t, err := messageText(m.Content)
			if err != nil {
				return "", 0, fmt.Errorf("messages[%d]: %w", i, err)
			}
			b.WriteString(m.Role)
			b.WriteByte(0)
			b.WriteString(t)
			b.WriteByte(0)
			n += s.tok.Count(t) + int64(s.p.ChatTemplateTokens)
		}
		return b.String(), n, nil
	}
	if len(prompt) == 0 {
		return "", 0, errors.New("prompt is required")
	}
	var p string
	if err := json.Unmarshal(prompt, &p); err != nil {
		var ps []string
		if err2 := json.Unmarshal(prompt, &ps); err2 != nil || len(ps) != 1 {
			return "", 0, errors.New("prompt must be a string (or an array of one string)")
		}
		p = ps[0]
	}
	return p, s.tok.Count(p), nil
}

// decoded is a validated generation request.
type decoded struct {
	req          genRequest
	text         string // what the prefix cache hashes
	promptTokens int64
	maxTokens    int64
}

// decodeGen decodes and validates a generation request body as vLLM
// would. On a validation error it returns what it decoded so far with the
// error (a 400 for the client).
func (s *Server) decodeGen(body []byte, chat bool) (*decoded, error) {
	d := &decoded{}
	if err := json.Unmarshal(body, &d.req); err != nil {
		return nil, fmt.Errorf("invalid JSON: %w", err)
	}
	var err error
	d.text, d.promptTokens, err = s.promptText(chat, d.req.Messages, d.req.Prompt)
	if err != nil {
		return nil, err
	}
	d.maxTokens = s.p.MaxModelLen - d.promptTokens
	if d.req.MaxCompletionTokens != nil {
		d.maxTokens = *d.req.MaxCompletionTokens
	}
	if d.req.MaxTokens != nil {
		d.maxTokens = *d.req.MaxTokens
	}
	switch {
	case d.promptTokens > s.p.MaxModelLen || d.maxTokens > s.p.MaxModelLen-d.promptTokens:
		return d, fmt.Errorf("This model's maximum context length is %d tokens. However, you requested %d tokens (%d in the messages, %d in the completion). Please reduce the length of the messages or completion.",
			s.p.MaxModelLen, d.promptTokens+d.maxTokens, d.promptTokens, d.maxTokens)
	case d.maxTokens < 1:
		return d, errors.New("max_tokens must be at least 1")
	case d.promptTokens < 1:
		return d, errors.New("the prompt is empty")
	case d.promptTokens >= s.p.KVTokens:
		return d, fmt.Errorf("prompt of %d tokens does not fit the KV cache of %d tokens", d.promptTokens, s.p.KVTokens)
	case d.req.MinTokens > d.maxTokens:
		return d, errors.New("min_tokens must not exceed max_tokens")
	case d.req.MinTokens < 0:
		return d, errors.New("min_tokens must not be negative")
	}
	return d, nil
}

// handleGenerate serves /v1/chat/completions (chat) and /v1/completions.
func (s *Server) handleGenerate(w http.ResponseWriter, r *http.Request, chat bool) {
	if r.Method != http.MethodPost {
		writeError(w, http.StatusMethodNotAllowed, "BadRequestError", "use POST")
		return
	}
	arrived := time.Now()
	n := s.seqNum.Add(1)
	s.inflight.Add(1)
	released := false
	// release stops counting the request as in flight; streams call it
	// just before their last write.
	release := func() {
		if !released {
			released = true
			s.inflight.Add(-1)
		}
	}
	defer release()
	rec := &record{}
	rec.r.N = n
	if chat {
		rec.r.Endpoint, rec.r.ID = "chat", "chatcmpl-sim"+strconv.FormatUint(n, 10)
	} else {
		rec.r.Endpoint, rec.r.ID = "completions", "cmpl-sim"+strconv.FormatUint(n, 10)
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxBodyBytes))
	rec.r.Start = arrived
	s.addRecord(rec)
	fail := func(status int, typ, msg string) {
		writeError(w, status, typ, msg)
		rec.update(func(r *RequestRecord) {
			r.Status, r.Err, r.Finished = status, fmt.Sprintf("%d %s", status, msg), time.Now()
		})
	}
	if err != nil {
		fail(http.StatusBadRequest, "BadRequestError", "read body: "+err.Error())
		return
	}
	d, err := s.decodeGen(body, chat)
	if d != nil {
		rec.update(func(r *RequestRecord) {
			r.Stream, r.PromptTokens, r.MaxTokens = d.req.Stream, d.promptTokens, d.maxTokens
		})
	}
	if err != nil {
		fail(http.StatusBadRequest, "BadRequestError", err.Error())
		return
	}
	req, text, promptTokens, maxTokens := &d.req, d.text, d.promptTokens, d.maxTokens
	fault := s.p.pickFault(n)
	if fault != nil {
		rec.update(func(r *RequestRecord) { r.Fault = fault.String() })
		if fault.Kind == FaultHTTPStatus {
			fail(fault.Status, statusType(fault.Status), fmt.Sprintf("injected fault: HTTP %d", fault.Status))
			return
		}
	}

	target, finish := s.answerLength(n, maxTokens, req.MinTokens, req.IgnoreEOS)
	rec.mu.Lock()
	rec.chunks = make([]chunkRec, 0, min(target/int64(s.p.ChunkTokens)+2, 256))
	rec.mu.Unlock()
	sq := &seq{n: n, prompt: promptTokens, target: target, quiet: !req.Stream, notify: make(chan struct{}, 1)}
	if s.p.PrefixCacheTokens > 0 {
		sq.hashes = s.tok.blockHashes(text, s.p.BlockSize)
	}
	ans := answer{seed: mix(s.p.Seed, n, 0x77), loopAfter: -1}
	loopPending := false
	switch {
	case s.p.LoopAfter <= 0:
	case s.loops == nil:
		ans.loopAfter = int64(s.p.LoopAfter)
	case req.Stream:
		// Decided when the stream reaches LoopAfter (see writeChunk).
		loopPending = true
	case s.loops[LoopCell{ContextLabel: contextLabel(promptTokens), Concurrency: int(s.inflight.Load())}]:
		ans.loopAfter = int64(s.p.LoopAfter)
	}
	st := &stream{loopPending: loopPending,
		s: s, w: w, rec: rec, sq: sq, ans: ans, chat: chat, fault: fault, finish: finish,
		prompt: promptTokens, req: req, release: release,
	}
	if chat && s.p.Reasoning {
		st.reasoning = int64(s.p.ReasoningTokens)
	}
	if !s.eng.submit(sq) {
		fail(http.StatusServiceUnavailable, "ServiceUnavailableError", "server is shutting down")
		return
	}
	if req.Stream {
		st.serveStream(r)
	} else {
		st.serveWhole(r)
	}
	sq.state.CompareAndSwap(seqActive, seqAborted)
	rec.update(func(r *RequestRecord) {
		r.CachedTokens = sq.cached.Load()
		r.Preemptions = int(sq.preemptions.Load())
		if r.Finished.IsZero() {
			r.Finished = time.Now()
		}
	})
}

// answerLength returns how many tokens a request generates and its
// finish_reason.
func (s *Server) answerLength(n uint64, maxTokens, minTokens int64, ignoreEOS bool) (int64, string) {
	if ignoreEOS {
		return maxTokens, "length"
	}
	l := 1 + int64(mix(s.p.Seed, n, 0xe05)%uint64(2*s.p.EOSMeanTokens))
	l = max(l, minTokens, 1)
	if l >= maxTokens {
		return maxTokens, "length"
	}
	return l, "stop"
}

// contextLabel is the seeds' context label: floor(tokens/1024) then "K".
func contextLabel(tokens int64) string { return strconv.FormatInt(tokens/1024, 10) + "K" }

// statusType names the OpenAI error type of an HTTP status.
func statusType(status int) string {
	switch status {
	case http.StatusBadRequest:
		return "BadRequestError"
	case http.StatusTooManyRequests:
		return "RateLimitError"
	case http.StatusServiceUnavailable:
		return "ServiceUnavailableError"
	default:
		return "InternalServerError"
	}
}

// resetConn hijacks the connection under w and closes it with SO_LINGER 0,
// so the peer sees a TCP reset. With flush, what was written so far goes
// out first; without, not even the status line does.
func resetConn(w http.ResponseWriter, flush bool) error {
	rc := http.NewResponseController(w)
	if flush {
		_ = rc.Flush()
	}
	conn, _, err := rc.Hijack()
	if err != nil {
		return fmt.Errorf("hijack: %w", err)
	}
	if tc, ok := conn.(*net.TCPConn); ok {
		_ = tc.SetLinger(0)
	}
	return conn.Close()
}
