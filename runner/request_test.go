package runner

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// step is one action of a scripted streaming response.
type step struct {
	line  string        // written followed by "\n\n" (unless raw)
	raw   bool          // write line as is
	sleep time.Duration // pause before writing
	reset bool          // reset the connection (RST) here
	stall bool          // stop writing until the client goes away
}

// scripted serves every completion request with status and steps.
func scripted(t testing.TB, status int, body string, steps []step) *Client {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if status != http.StatusOK {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(status)
			fmt.Fprint(w, body)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		fl := w.(http.Flusher)
		fl.Flush()
		for _, s := range steps {
			time.Sleep(s.sleep)
			switch {
			case s.reset:
				conn, _, err := http.NewResponseController(w).Hijack()
				if err != nil {
					t.Error(err)
					return
				}
				conn.(*net.TCPConn).SetLinger(0)
				conn.Close()
				return
			case s.stall:
				<-r.Context().Done()
				return
			case s.raw:
				fmt.Fprint(w, s.line)
			default:
				fmt.Fprint(w, s.line+"\n\n")
			}
			fl.Flush()
		}
	}))
	t.Cleanup(srv.Close)
	c, err := NewClient(ClientConfig{URL: srv.URL, Model: "m", APIKey: "sk-test-secret"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c
}

func content(s string) string {
	return `data: {"id":"x","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":` + fmt.Sprintf("%q", s) + `},"finish_reason":null}]}`
}

const (
	roleOnly   = `data: {"id":"x","choices":[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}]}`
	finishStop = `data: {"id":"x","choices":[{"index":0,"delta":{},"finish_reason":"length"}]}`
	done       = `data: [DONE]`
)

func usage(prompt, completion int) string {
	return fmt.Sprintf(`data: {"id":"x","choices":[],"usage":{"prompt_tokens":%d,"total_tokens":%d,"completion_tokens":%d}}`, prompt, prompt+completion, completion)
}

// TestRealServerQuirks covers what real servers send, one case each.
func TestRealServerQuirks(t *testing.T) {
	longText := strings.Repeat("é", 1<<19) // a 1 MiB line
	tests := []struct {
		name      string
		status    int
		body      string
		steps     []step
		cancelAt  time.Duration // cancel the request with errStalled
		tokens    int64
		prompt    int64
		ticks     int
		errSubstr string
		firstIsC  bool // first token is content (else reasoning)
		done      bool
	}{
		{name: "role-only first chunk, final usage with choices []",
			steps:  []step{{line: roleOnly}, {line: content("Hel")}, {line: content("lo")}, {line: finishStop}, {line: usage(12, 2)}, {line: done}},
			tokens: 2, prompt: 12, ticks: 2, firstIsC: true, done: true},
		{name: "reasoning_content deltas before content",
			steps: []step{{line: roleOnly},
				{line: `data: {"choices":[{"index":0,"delta":{"reasoning_content":"think"}}]}`},
				{line: `data: {"choices":[{"index":0,"delta":{"reasoning_content":" more"}}]}`},
				{line: content("answer"), sleep: 5 * time.Millisecond}, {line: finishStop}, {line: usage(5, 3)}, {line: done}},
			tokens: 3, prompt: 5, ticks: 3, done: true},
		{name: "reasoning field (vLLM ≥ 0.10)",
			steps: []step{{line: `data: {"choices":[{"index":0,"delta":{"reasoning":"hmm","content":null}}]}`},
				{line: content("ok"), sleep: 5 * time.Millisecond}, {line: finishStop}, {line: usage(5, 2)}, {line: done}},
			tokens: 2, prompt: 5, ticks: 2, done: true},
		{name: "three tokens per chunk, corrected by final usage",
			steps:  []step{{line: roleOnly}, {line: content("a b c")}, {line: content(" d e f")}, {line: content(" g h i")}, {line: finishStop}, {line: usage(7, 9)}, {line: done}},
			tokens: 9, prompt: 7, ticks: 3, firstIsC: true, done: true},
		{name: "continuous usage stats",
			steps: []step{
				{line: `data: {"choices":[{"index":0,"delta":{"role":"assistant"}}],"usage":{"prompt_tokens":4,"completion_tokens":0}}`},
				{line: `data: {"choices":[{"index":0,"delta":{"content":"ab"}}],"usage":{"prompt_tokens":4,"completion_tokens":2}}`},
				{line: `data: {"choices":[{"index":0,"delta":{"content":"cde"}}],"usage":{"prompt_tokens":4,"completion_tokens":5}}`},
				{line: `data: {"choices":[{"index":0,"delta":{},"finish_reason":"length"}],"usage":{"prompt_tokens":4,"completion_tokens":5}}`},
				{line: usage(4, 5)}, {line: done}},
			tokens: 5, prompt: 4, ticks: 2, firstIsC: true, done: true},
		{name: "error inside HTTP 200",
			steps:     []step{{line: roleOnly}, {line: content("x")}, {line: `data: {"error":{"message":"CUDA out of memory","type":"InternalServerError","code":500}}`}, {line: done}},
			errSubstr: "CUDA out of memory"},
		{name: "error as a string", steps: []step{{line: `data: {"error":"overloaded"}`}}, errSubstr: "overloaded"},
		{name: "HTTP 400", status: 400, body: `{"object":"error","message":"max_tokens is too large","type":"BadRequestError","code":400}`, errSubstr: "HTTP 400: max_tokens is too large"},
		{name: "HTTP 429", status: 429, body: `{"error":{"message":"rate limited"}}`, errSubstr: "HTTP 429: rate limited"},
		{name: "HTTP 500", status: 500, body: `Internal Server Error`, errSubstr: "HTTP 500: Internal Server Error"},
		{name: "HTTP 503", status: 503, body: `{"detail":"loading model"}`, errSubstr: "HTTP 503: loading model"},
		{name: "connection reset mid-stream",
			steps: []step{{line: roleOnly}, {line: content("a")}, {line: content("b")}, {reset: true}}, errSubstr: "read:"},
		{name: "stall mid-stream",
			steps: []step{{line: roleOnly}, {line: content("a")}, {stall: true}}, cancelAt: 300 * time.Millisecond, errSubstr: "stalled"},
		{name: "[DONE] missing after finish_reason",
			steps:  []step{{line: content("a")}, {line: content("b")}, {line: finishStop}, {line: usage(3, 2)}},
			tokens: 2, prompt: 3, ticks: 2, firstIsC: true, done: true},
		{name: "stream cut without finish_reason or [DONE]",
			steps: []step{{line: content("a")}, {line: content("b")}}, errSubstr: "without finish_reason"},
		{name: "very long SSE line",
			steps:  []step{{line: content("a")}, {line: content(longText)}, {line: finishStop}, {line: usage(3, 2)}, {line: done}},
			tokens: 2, prompt: 3, ticks: 2, firstIsC: true, done: true},
		{name: "CRLF line endings, comments and event fields",
			steps: []step{{raw: true, line: ": keep-alive\r\n\r\n"}, {raw: true, line: "event: message\r\nid: 1\r\n" + content("a") + "\r\n\r\n"},
				{raw: true, line: content("b") + "\r\n\r\n" + finishStop + "\r\n\r\n" + done + "\r\n\r\n"}},
			tokens: 2, ticks: 2, firstIsC: true, done: true},
		{name: "last line without newline",
			steps:  []step{{line: content("a")}, {line: finishStop}, {raw: true, line: usage(2, 1)}},
			tokens: 1, prompt: 2, ticks: 1, firstIsC: true, done: true},
		{name: "completions endpoint text",
			steps:  []step{{line: `data: {"choices":[{"index":0,"text":"hel","finish_reason":null}]}`}, {line: `data: {"choices":[{"index":0,"text":"lo","finish_reason":"length"}]}`}, {line: usage(3, 2)}, {line: done}},
			tokens: 2, prompt: 3, ticks: 2, firstIsC: true, done: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			status := tt.status
			if status == 0 {
				status = http.StatusOK
			}
			c := scripted(t, status, tt.body, tt.steps)
			ctx, cancel := context.WithCancelCause(context.Background())
			defer cancel(nil)
			if tt.cancelAt > 0 {
				time.AfterFunc(tt.cancelAt, func() { cancel(fmt.Errorf("%w: no bytes for %v", errStalled, tt.cancelAt)) })
			}
			s := newStream()
			var rec record
			c.do(ctx, c.completionBody("hi", 100), time.Now(), s, &rec)
			if tt.errSubstr != "" {
				if !strings.Contains(rec.err, tt.errSubstr) {
					t.Fatalf("err = %q, want it to contain %q", rec.err, tt.errSubstr)
				}
				return
			}
			if rec.err != "" {
				t.Fatalf("unexpected error %q", rec.err)
			}
			if rec.tokens != tt.tokens || rec.prompt != tt.prompt || rec.t1-rec.t0 != tt.ticks || rec.done != tt.done {
				t.Fatalf("tokens %d prompt %d ticks %d done %v; want %d %d %d %v", rec.tokens, rec.prompt, rec.t1-rec.t0, rec.done, tt.tokens, tt.prompt, tt.ticks, tt.done)
			}
			if rec.first < rec.sent || rec.first < 0 {
				t.Fatalf("first token at %d before the request was sent at %d", rec.first, rec.sent)
			}
			if tt.firstIsC != (rec.first == rec.firstContent) {
				t.Fatalf("first %d firstContent %d, want first-is-content %v", rec.first, rec.firstContent, tt.firstIsC)
			}
			ticks := s.log[rec.t0:rec.t1]
			if got := int64(ticks[len(ticks)-1].cum); got != tt.tokens {
				t.Fatalf("last tick cum %d, want %d", got, tt.tokens)
			}
			for i := 1; i < len(ticks); i++ {
				if ticks[i].cum <= ticks[i-1].cum || ticks[i].t < ticks[i-1].t {
					t.Fatalf("ticks not increasing: %+v", ticks)
				}
			}
		})
	}
}

// TestAPIKeyNeverStored checks the key is sent as a bearer token and
// appears neither in the client's description nor in a stored matrix.
func TestAPIKeyNeverStored(t *testing.T) {
	const key = "sk-very-secret-1234"
	var got string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = r.Header.Get("Authorization")
		http.NotFound(w, r)
	}))
	defer srv.Close()
	c, err := NewClient(ClientConfig{URL: srv.URL + "/v1/", Model: "m", APIKey: key})
	if err != nil {
		t.Fatal(err)
	}
	_, _ = c.Discover(context.Background(), 0)
	if got != "Bearer "+key {
		t.Fatalf("Authorization = %q", got)
	}
	if s := fmt.Sprintf("%v %+v %s", c, c, c.String()); strings.Contains(s, key) {
		t.Fatalf("client description holds the key: %s", s)
	}
}

// TestNegotiate drops request fields a strict server rejects.
func TestNegotiate(t *testing.T) {
	tests := []struct {
		name    string
		rejects []string
		dropped string
		fail    bool
	}{
		{"accepts all", nil, "", false},
		{"rejects continuous usage", []string{"continuous_usage_stats"}, "continuous_usage_stats", false},
		{"rejects ignore_eos too", []string{"continuous_usage_stats", "ignore_eos"}, "continuous_usage_stats,ignore_eos", false},
		{"rejects stream_options", []string{"stream_options"}, "continuous_usage_stats,ignore_eos,stream_options", false},
		{"rejects the model", []string{`"model"`}, "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				b, _ := io.ReadAll(r.Body)
				for _, f := range tt.rejects {
					if strings.Contains(string(b), f) {
						w.WriteHeader(http.StatusBadRequest)
						fmt.Fprintf(w, `{"error":{"message":"unknown field %s"}}`, f)
						return
					}
				}
				fmt.Fprint(w, content("x")+"\n\n"+finishStop+"\n\n"+done+"\n\n")
			}))
			defer srv.Close()
			c, err := NewClient(ClientConfig{URL: srv.URL, Model: "m"})
			if err != nil {
				t.Fatal(err)
			}
			dropped, err := c.Negotiate(context.Background())
			if (err != nil) != tt.fail {
				t.Fatalf("err = %v", err)
			}
			if got := strings.Join(dropped, ","); !tt.fail && got != tt.dropped {
				t.Fatalf("dropped %q, want %q", got, tt.dropped)
			}
		})
	}
}
