package runner

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptrace"
	"strings"
	"syscall"
	"time"
)

// Endpoint names accepted by ClientConfig.Endpoint.
const (
	EndpointChat        = "chat"
	EndpointCompletions = "completions"
)

// ClientConfig describes how to reach one OpenAI-compatible server.
type ClientConfig struct {
	// URL is the server's base URL, with or without a trailing /v1.
	URL string
	// Model is the served model name sent in every request.
	Model string
	// Endpoint is EndpointChat (default) or EndpointCompletions.
	Endpoint string
	// APIKey is sent as a bearer token. It is never stored in results,
	// printed or logged.
	APIKey string
	// MaxConns bounds the connections to the server; it must be at least
	// the highest concurrency of the run.
	MaxConns int
	// NoIgnoreEOS turns off ignore_eos (on by default, as in the seeds).
	NoIgnoreEOS bool
	// Timeouts bound every request; zero fields take DefaultTimeouts'.
	Timeouts Timeouts
	// LineBufferBytes bounds the memory that all streams together hold
	// for SSE lines longer than a stream's initial 32 KiB buffer
	// (DefaultLineBufferBytes when 0); a request whose line cannot grow
	// within it fails, and says so. One line is capped at 64 MiB anyway.
	LineBufferBytes int64
}

// Timeouts bound the requests of a client, so that no server, however it
// misbehaves, holds a run: each is the longest silence of one kind.
type Timeouts struct {
	// Connect bounds dialing a connection (TCP and TLS).
	Connect time.Duration
	// Request bounds the whole of a small request and its answer:
	// /v1/models, /version, /props, /info, /get_server_info, /tokenize.
	Request time.Duration
	// Metrics bounds one /metrics scrape; a scrape past it is skipped.
	Metrics time.Duration
	// Header bounds how long a one-token probe (negotiation, tokenize
	// check, calibration, prefill, scout) waits for its response headers
	// and then for its first event: a cold prefill of the longest context.
	Header time.Duration
	// Idle bounds the silence between two reads of a stream once it has
	// sent its first event.
	Idle time.Duration
	// IdleConn is how long an unused connection is kept for reuse. It must
	// be shorter than the server keeps it (llama.cpp's server: 5 s).
	IdleConn time.Duration
}

// DefaultTimeouts returns the timeouts a run uses unless told otherwise.
func DefaultTimeouts() Timeouts {
	return Timeouts{
		Connect:  10 * time.Second,
		Request:  30 * time.Second,
		Metrics:  5 * time.Second,
		Header:   5 * time.Minute,
		Idle:     2 * time.Minute,
		IdleConn: 4 * time.Second,
	}
}

// withDefaults fills zero fields from DefaultTimeouts.
func (t Timeouts) withDefaults() Timeouts {
	d := DefaultTimeouts()
	for _, f := range []struct{ v, def *time.Duration }{
		{&t.Connect, &d.Connect}, {&t.Request, &d.Request}, {&t.Metrics, &d.Metrics},
		{&t.Header, &d.Header}, {&t.Idle, &d.Idle}, {&t.IdleConn, &d.IdleConn},
	} {
		if *f.v <= 0 {
			*f.v = *f.def
		}
	}
	return t
}

// Client sends requests to one server over one shared transport.
type Client struct {
	base      string
	model     string
	endpoint  string
	apiKey    string
	ignoreEOS bool
	http      *http.Client
	transport *http.Transport
	// fresh sends the one retry of a request that found its reused
	// connection closed by the server (see retryable): a transport
	// without keep-alives always dials a new connection.
	fresh      *http.Client
	timeouts   Timeouts
	contUsage  bool // ask for continuous_usage_stats
	streamOpts bool // send stream_options at all
	// tok and tokOffset are how /tokenize counts prompts (checkTokenize).
	tok       tokenizeForm
	tokOffset int64
	// lines bounds the SSE line buffers of all the client's streams.
	lines *lineBudget
	// ids names every streaming request (RequestIDHeader).
	ids *requestIDs
}

// NewClient returns a client for cfg.
func NewClient(cfg ClientConfig) (*Client, error) {
	base := strings.TrimRight(strings.TrimSpace(cfg.URL), "/")
	base = strings.TrimSuffix(base, "/v1")
	if !strings.HasPrefix(base, "http://") && !strings.HasPrefix(base, "https://") {
		return nil, fmt.Errorf("url %q: want http:// or https://", cfg.URL)
	}
	ep := cfg.Endpoint
	if ep == "" {
		ep = EndpointChat
	}
	if ep != EndpointChat && ep != EndpointCompletions {
		return nil, fmt.Errorf("endpoint %q: want %s or %s", ep, EndpointChat, EndpointCompletions)
	}
	n := cfg.MaxConns
	if n < 16 {
		n = 16
	}
	to := cfg.Timeouts.withDefaults()
	// Note: one transport for the whole run, sized for the highest
	// concurrency, so that closed-loop requests reuse connections instead
	// of paying a dial (and TIME_WAIT churn) per request. Compression is
	// off: a gzip reader between the socket and the SSE reader would
	// buffer tokens and blur their arrival times. Idle connections are
	// dropped sooner than servers drop them (llama.cpp's after 5 s), so
	// that a request rarely meets a connection the server has closed.
	tr := &http.Transport{
		Proxy:               nil,
		DialContext:         (&net.Dialer{Timeout: to.Connect, KeepAlive: 30 * time.Second}).DialContext,
		TLSHandshakeTimeout: to.Connect,
		MaxIdleConns:        n + 16,
		MaxIdleConnsPerHost: n + 16,
		MaxConnsPerHost:     n + 16,
		IdleConnTimeout:     to.IdleConn,
		DisableCompression:  true,
		ForceAttemptHTTP2:   false,
		// Note: no transport-wide ResponseHeaderTimeout: a streaming
		// request queued behind long prefills may get its headers late
		// (llama.cpp sends them with the first token). Small requests are
		// bounded whole by Timeouts.Request, streams by the watchdogs
		// (Timeouts.Header for probes, the ramp-up bound in cells).
		ResponseHeaderTimeout: 0,
		ReadBufferSize:        32 << 10,
		WriteBufferSize:       64 << 10,
	}
	fresh := tr.Clone()
	fresh.DisableKeepAlives = true
	return &Client{
		base:       base,
		model:      cfg.Model,
		endpoint:   ep,
		apiKey:     cfg.APIKey,
		ignoreEOS:  !cfg.NoIgnoreEOS,
		transport:  tr,
		http:       &http.Client{Transport: tr},
		fresh:      &http.Client{Transport: fresh},
		timeouts:   to,
		contUsage:  true,
		streamOpts: true,
		lines:      newLineBudget(cfg.LineBufferBytes),
		ids:        newRequestIDs(),
	}, nil
}

// Timeouts returns the client's timeouts, defaults filled in.
func (c *Client) Timeouts() Timeouts { return c.timeouts }

// Close releases idle connections.
func (c *Client) Close() {
	c.transport.CloseIdleConnections()
	c.fresh.CloseIdleConnections()
}

// String describes the client without its API key.
func (c *Client) String() string {
	return fmt.Sprintf("client(%s, model %q, %s)", c.base, c.model, c.endpoint)
}

// BaseURL returns the server's base URL (without /v1).
func (c *Client) BaseURL() string { return c.base }

// newRequest builds a request to path with the API key set.
func (c *Client) newRequest(ctx context.Context, method, path string, body []byte) (*http.Request, error) {
	var r io.Reader
	if body != nil {
		r = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.base+path, r)
	if err != nil {
		return nil, err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if c.apiKey != "" {
		req.Header.Set("Authorization", "Bearer "+c.apiKey)
	}
	return req, nil
}

// getJSON fetches path and decodes its JSON into v. It reports
// errNotFound for 404 and 405 so callers can tell a missing endpoint.
func (c *Client) getJSON(ctx context.Context, path string, v any) error {
	return c.doJSON(ctx, http.MethodGet, path, nil, v)
}

func (c *Client) doJSON(ctx context.Context, method, path string, body []byte, v any) error {
	b, err := c.fetch(ctx, method, path, body, c.timeouts.Request, 16<<20)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("%s %s: %w", method, path, err)
	}
	return nil
}

// getText fetches path as text (for /metrics), bounded by
// Timeouts.Metrics.
func (c *Client) getText(ctx context.Context, path string) ([]byte, error) {
	return c.fetch(ctx, http.MethodGet, path, nil, c.timeouts.Metrics, 64<<20)
}

// fetch sends a small request and reads its answer whole, in at most
// limit (headers, body and retries included) and at most maxBytes. A
// request past its limit fails with the limit in its error.
func (c *Client) fetch(ctx context.Context, method, path string, body []byte, limit time.Duration, maxBytes int64) ([]byte, error) {
	rctx, cancel := context.WithTimeoutCause(ctx, limit, fmt.Errorf("no answer within %v", limit))
	defer cancel()
	wrap := func(err error) error {
		if ctx.Err() == nil && rctx.Err() != nil {
			err = context.Cause(rctx)
		}
		return fmt.Errorf("%s %s: %w", method, path, err)
	}
	resp, _, err := c.send(rctx, nil, func(ctx context.Context) (*http.Request, error) {
		return c.newRequest(ctx, method, path, body)
	})
	if err != nil {
		return nil, wrap(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, maxBytes))
	if err != nil {
		return nil, wrap(err)
	}
	if resp.StatusCode == http.StatusNotFound || resp.StatusCode == http.StatusMethodNotAllowed {
		return nil, fmt.Errorf("%s %s: HTTP %d: %w", method, path, resp.StatusCode, errNotFound)
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("%s %s: HTTP %d: %s", method, path, resp.StatusCode, snippet(b))
	}
	return b, nil
}

// send sends the request newReq builds (with trace's hooks, when not nil)
// and, when it failed on a reused connection that the server had closed
// before answering (retryable), once more on a new connection; retried
// says so.
func (c *Client) send(ctx context.Context, trace *httptrace.ClientTrace, newReq func(ctx context.Context) (*http.Request, error)) (resp *http.Response, retried bool, err error) {
	var reused, answered bool
	ctx = httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{
		GotConn:              func(i httptrace.GotConnInfo) { reused = i.Reused },
		GotFirstResponseByte: func() { answered = true },
	})
	if trace != nil {
		ctx = httptrace.WithClientTrace(ctx, trace)
	}
	hc := c.http
	for {
		req, err := newReq(ctx)
		if err != nil {
			return nil, retried, err
		}
		resp, err = hc.Do(req)
		if err == nil || retried || !reused || answered || ctx.Err() != nil || !retryable(err) {
			return resp, retried, err
		}
		// The server closed the idle connection as the request went out:
		// nothing reached it, so send it once more on a new connection.
		retried, hc = true, c.fresh
	}
}

// retryable reports whether a request that failed with err before any
// response byte, on a connection that had served requests before, met a
// connection the server had closed (its idle timeout, or a limit of
// requests per connection). Go's transport retries such requests only
// when they are idempotent, which a POST is not.
func retryable(err error) bool {
	return errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE) ||
		strings.Contains(err.Error(), "server closed idle connection")
}

// errNotFound marks an endpoint the server does not have.
var errNotFound = fmt.Errorf("endpoint not found")

// snippet shortens a response body for an error message.
func snippet(b []byte) string {
	s := strings.TrimSpace(string(b))
	var e struct {
		Error   json.RawMessage `json:"error"`
		Message string          `json:"message"`
		Detail  any             `json:"detail"`
	}
	if json.Unmarshal(b, &e) == nil {
		var inner struct {
			Message string `json:"message"`
		}
		var str string
		switch {
		case json.Unmarshal(e.Error, &inner) == nil && inner.Message != "":
			s = inner.Message
		case json.Unmarshal(e.Error, &str) == nil && str != "":
			s = str
		case e.Message != "":
			s = e.Message
		case e.Detail != nil:
			s = fmt.Sprint(e.Detail)
		}
	}
	if len(s) > 300 {
		s = s[:300] + "…"
	}
	return s
}

// completionBody returns the JSON body of a streaming request for prompt
// with maxTokens, built once per cell and reused for every request of it.
func (c *Client) completionBody(prompt string, maxTokens int) []byte {
	type msg struct {
		Role    string `json:"role"`
		Content string `json:"content"`
	}
	type streamOpts struct {
		IncludeUsage    bool `json:"include_usage"`
		ContinuousUsage bool `json:"continuous_usage_stats,omitempty"`
	}
	body := struct {
		Model         string      `json:"model"`
		Messages      []msg       `json:"messages,omitempty"`
		Prompt        *string     `json:"prompt,omitempty"`
		MaxTokens     int         `json:"max_tokens"`
		Stream        bool        `json:"stream"`
		StreamOptions *streamOpts `json:"stream_options,omitempty"`
		IgnoreEOS     bool        `json:"ignore_eos,omitempty"`
		Temperature   float64     `json:"temperature"`
	}{
		Model:       c.model,
		MaxTokens:   maxTokens,
		Stream:      true,
		IgnoreEOS:   c.ignoreEOS,
		Temperature: 0,
	}
	if c.streamOpts {
		body.StreamOptions = &streamOpts{IncludeUsage: true, ContinuousUsage: c.contUsage}
	}
	if c.endpoint == EndpointChat {
		body.Messages = []msg{{Role: "user", Content: prompt}}
	} else {
		body.Prompt = &prompt
	}
	b, err := json.Marshal(body)
	if err != nil {
		panic("runner: encode request: " + err.Error()) // strings and ints always encode
	}
	return b
}

// path returns the completion path of the client's endpoint.
func (c *Client) path() string {
	if c.endpoint == EndpointChat {
		return "/v1/chat/completions"
	}
	return "/v1/completions"
}

// Negotiate sends a one-token request and, when the server rejects it as
// malformed (HTTP 400 or 422, as strict OpenAI-compatible servers answer
// unknown fields), drops the optional fields one at a time:
// stream_options.continuous_usage_stats, then ignore_eos, then
// stream_options. It returns the fields dropped, and an error only when
// even the minimal request is rejected (a wrong model name, say) or the
// server does not answer it (Timeouts.Header, Timeouts.Idle).
func (c *Client) Negotiate(ctx context.Context) ([]string, error) {
	var dropped []string
	steps := []struct {
		name string
		drop func()
	}{
		{"continuous_usage_stats", func() { c.contUsage = false }},
		{"ignore_eos", func() { c.ignoreEOS = false }},
		{"stream_options", func() { c.streamOpts = false }},
	}
	for i := 0; ; i++ {
		rec := c.probe(ctx, "Hello")
		if !rec.failed() {
			return dropped, nil
		}
		if strings.HasPrefix(rec.err, errStalled.Error()) {
			// A server that does not answer the first request of the run
			// would hold every cell as long: stop before any load.
			return dropped, fmt.Errorf("the first request got no answer: %s", rec.err)
		}
		rejected := strings.HasPrefix(rec.err, "HTTP 400") || strings.HasPrefix(rec.err, "HTTP 422")
		if !rejected {
			// Another failure (a 5xx, a reset) is no verdict on the
			// request's fields; the cells will record it as data.
			return dropped, nil
		}
		if i == len(steps) {
			return dropped, fmt.Errorf("even a minimal request is rejected: %s", rec.err)
		}
		steps[i].drop()
		dropped = append(dropped, steps[i].name)
	}
}
