package runner

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"speedmatrix/runner/sim"
)

// tokenizeServer serves the simulator with its POST /tokenize replaced
// by handler (nil: the simulator's own, vLLM's form).
func tokenizeServer(t *testing.T, p sim.Profile, endpoint string, handler func(w http.ResponseWriter, body []byte)) *Client {
	t.Helper()
	s := sim.New(p)
	t.Cleanup(s.Close)
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/tokenize" && handler != nil {
			b, err := io.ReadAll(r.Body)
			if err != nil {
				http.Error(w, err.Error(), http.StatusBadRequest)
				return
			}
			handler(w, b)
			return
		}
		s.ServeHTTP(w, r)
	}))
	t.Cleanup(hs.Close)
	c, err := NewClient(ClientConfig{URL: hs.URL, Model: p.ModelName, Endpoint: endpoint})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c
}

// llamaCppTokenize answers as llama.cpp server does: {"content"} is
// tokenized (a BOS first with add_special), and a request without it is
// answered {"tokens": []} with status 200.
func llamaCppTokenize(tok sim.Tokenizer) func(w http.ResponseWriter, body []byte) {
	return func(w http.ResponseWriter, body []byte) {
		var req struct {
			Content    *string `json:"content"`
			AddSpecial bool    `json:"add_special"`
		}
		if err := json.Unmarshal(body, &req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		ids := []int64{}
		if req.Content != nil {
			if req.AddSpecial {
				ids = append(ids, 1)
			}
			ids = append(ids, tok.IDs(*req.Content)...)
		}
		json.NewEncoder(w).Encode(map[string]any{"tokens": ids})
	}
}

// TestCheckTokenize finds the /tokenize form that counts as the endpoint
// does, with its offset, or falls back to probes, for the servers found
// in the field; prompts fitted with the outcome have the target length
// (exactly when /tokenize is used) as the endpoint counts it.
func TestCheckTokenize(t *testing.T) {
	p := fastProfile()
	p.CharsPerToken = 3.3
	p.ChatTemplateTokens = 7
	tok := sim.Tokenizer{CharsPerToken: p.CharsPerToken}
	tests := []struct {
		name       string
		endpoint   string
		handler    func(w http.ResponseWriter, body []byte)
		wantForm   string
		wantOffset int64
		wantNote   string
	}{
		{name: "vLLM chat", endpoint: EndpointChat, wantForm: "model+prompt/messages"},
		{name: "vLLM completions", endpoint: EndpointCompletions, wantForm: "model+prompt/messages"},
		// The chat template's 7 tokens, less the BOS /tokenize adds.
		{name: "llama.cpp chat", endpoint: EndpointChat, handler: llamaCppTokenize(tok), wantForm: "content", wantOffset: 6,
			wantNote: ""},
		{name: "llama.cpp completions", endpoint: EndpointCompletions, handler: llamaCppTokenize(tok), wantForm: "content", wantOffset: -1},
		{name: "TGI (an array of token objects to {inputs})", endpoint: EndpointChat, wantForm: "none", wantNote: "cannot unmarshal array",
			handler: func(w http.ResponseWriter, body []byte) {
				w.Write([]byte(`[{"id":1,"text":"a","start":0,"stop":1}]`))
			}},
		{name: "a tokenizer that is not the model's", endpoint: EndpointChat, wantForm: "none", wantNote: "where the endpoint counts",
			handler: func(w http.ResponseWriter, body []byte) {
				var req struct {
					Messages []struct{ Content string } `json:"messages"`
					Content  string                     `json:"content"`
				}
				json.Unmarshal(body, &req)
				text := req.Content
				for _, m := range req.Messages {
					text += m.Content
				}
				json.NewEncoder(w).Encode(map[string]any{"count": len(text) / 5})
			}},
		{name: "no /tokenize", endpoint: EndpointChat, wantForm: "none", wantNote: "HTTP 404",
			handler: func(w http.ResponseWriter, body []byte) { http.NotFound(w, nil) }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := tokenizeServer(t, p, tc.endpoint, tc.handler)
			ctx := context.Background()
			fit := c.checkTokenize(ctx, p.MaxModelLen)
			if fit.Form != tc.wantForm || fit.Offset != tc.wantOffset || !strings.Contains(fit.Note, tc.wantNote) {
				t.Fatalf("got %+v, want form %q offset %d note containing %q", fit, tc.wantForm, tc.wantOffset, tc.wantNote)
			}
			if (tc.wantNote == "") != (fit.Note == "") {
				t.Errorf("note %q, want none", fit.Note)
			}
			r, err := New(c, Config{Contexts: []int64{1000}, Concurrency: []int{1}})
			if err != nil {
				t.Fatal(err)
			}
			for _, target := range []int64{1000, 8192} {
				pr, err := r.buildPrompt(ctx, target, ContextLabel(target), r.cfg.Tag)
				if err != nil {
					t.Fatal(err)
				}
				n, err := c.probeTokens(ctx, pr.Text)
				if err != nil {
					t.Fatal(err)
				}
				if fit.Form != "none" {
					if n != target || !pr.Exact {
						t.Errorf("target %d: endpoint counts %d tokens (exact %v)", target, n, pr.Exact)
					}
				} else if !within(float64(n), float64(target), 0.01, 0) {
					t.Errorf("target %d: endpoint counts %d tokens, want within 1%%", target, n)
				}
			}
		})
	}
}

func TestPromptFitDescribe(t *testing.T) {
	tests := []struct {
		fit  PromptFit
		want string
	}{
		{PromptFit{Form: "model+prompt/messages"}, "exact, POST /tokenize"},
		{PromptFit{Form: "content", Offset: 6}, "exact, POST /tokenize +6"},
		{PromptFit{Form: "content", Offset: -1}, "exact, POST /tokenize -1"},
		{PromptFit{Form: "none"}, "calibrated with max_tokens=1 probes (±1%)"},
	}
	for _, tc := range tests {
		if got := tc.fit.Describe(); got != tc.want {
			t.Errorf("%+v: %q, want %q", tc.fit, got, tc.want)
		}
	}
}

// TestCheckTokenizeSmallContext: llama.cpp's server with 1,024-token
// slots, a 42-token chat template and a tokenizer of 1.75 bytes per token
// (the 3,000-byte check probe is about 1,700 tokens). The probes that
// learn the template offset must fit the slot, so the offset is found
// and a 256-token context is sent as 256 tokens, as the document says.
// Before, the long probe was refused ("exceeds the available context
// size"), the offset stayed 0 and 298 tokens went out for 256 while the
// run's metadata said "exact". When the probes cannot be sent at all,
// the fit says so and does not claim exact lengths.
func TestCheckTokenizeSmallContext(t *testing.T) {
	p := fastProfile()
	p.CharsPerToken = 1.75
	p.ChatTemplateTokens = 42
	p.MaxModelLen = 1024
	tok := sim.Tokenizer{CharsPerToken: p.CharsPerToken}
	c := tokenizeServer(t, p, EndpointChat, llamaCppTokenize(tok))
	ctx := context.Background()
	r, err := New(c, Config{Contexts: []int64{256, 512}, Concurrency: []int{1}, MaxTokens: 16})
	if err != nil {
		t.Fatal(err)
	}
	if r.info, err = c.Discover(ctx, 0); err != nil {
		t.Fatal(err)
	}
	r.info.PromptFit = c.checkTokenize(ctx, r.info.MaxModelLen)
	if fit := r.info.PromptFit; fit.Form != "content" || fit.Offset != 41 || fit.Unchecked || fit.Note != "" {
		t.Fatalf("prompt fit %+v, want form content, offset +41 (42 template tokens less the BOS /tokenize adds), checked", fit)
	}
	for _, target := range []int64{256, 512} {
		pr, err := r.buildPrompt(ctx, target, ContextLabel(target), r.cfg.Tag)
		if err != nil {
			t.Fatal(err)
		}
		n, err := c.probeTokens(ctx, pr.Text)
		if err != nil {
			t.Fatal(err)
		}
		if n != target || !pr.Exact {
			t.Errorf("context %d: the endpoint counts %d prompt tokens (exact %v)", target, n, pr.Exact)
		}
	}
}

// TestCheckTokenizeProbesFail: /tokenize counts but every probe fails:
// the offset is unknown, the fit says so (not "exact") and why.
func TestCheckTokenizeProbesFail(t *testing.T) {
	p := fastProfile()
	p.ChatTemplateTokens = 42
	tok := sim.Tokenizer{CharsPerToken: p.CharsPerToken}
	s := sim.New(p)
	t.Cleanup(s.Close)
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		switch {
		case r.URL.Path == "/tokenize":
			llamaCppTokenize(tok)(w, b)
		case strings.Contains(string(b), "tokenize check]"):
			http.Error(w, `{"error":{"message":"probe refused"}}`, http.StatusInternalServerError)
		default:
			r.Body = io.NopCloser(strings.NewReader(string(b)))
			s.ServeHTTP(w, r)
		}
	}))
	t.Cleanup(hs.Close)
	c, err := NewClient(ClientConfig{URL: hs.URL, Model: p.ModelName})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	fit := c.checkTokenize(context.Background(), p.MaxModelLen)
	if fit.Form != "content" || !fit.Unchecked || !strings.Contains(fit.Note, "offset not checked") || !strings.Contains(fit.Note, "probe refused") ||
		strings.Contains(fit.Describe(), "exact,") {
		t.Fatalf("prompt fit %+v (%q), want content, unchecked, saying why and not exact", fit, fit.Describe())
	}
}
