package sim

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

func TestEndpoints(t *testing.T) {
	p := DefaultProfile()
	p.SGLangServerInfo = true
	p.ChatTemplateTokens = 3
	_, c := startSim(t, p)
	ctx := context.Background()

	t.Run("models", func(t *testing.T) {
		code, b := c.get(t, "/v1/models")
		var resp struct {
			Data []struct {
				ID          string `json:"id"`
				MaxModelLen int64  `json:"max_model_len"`
			} `json:"data"`
		}
		if err := json.Unmarshal(b, &resp); err != nil || code != 200 || len(resp.Data) != 1 {
			t.Fatalf("code %d, %v: %s", code, err, b)
		}
		if resp.Data[0].ID != "sim" || resp.Data[0].MaxModelLen != 32768 {
			t.Errorf("got %+v", resp.Data[0])
		}
	})
	t.Run("version", func(t *testing.T) {
		code, b := c.get(t, "/version")
		var v struct{ Version string }
		if err := json.Unmarshal(b, &v); err != nil || code != 200 || v.Version != Version {
			t.Fatalf("code %d, %v: %s", code, err, b)
		}
	})
	t.Run("server_info", func(t *testing.T) {
		code, b := c.get(t, "/get_server_info")
		var v struct {
			MaxTotalNumTokens int64 `json:"max_total_num_tokens"`
		}
		if err := json.Unmarshal(b, &v); err != nil || code != 200 || v.MaxTotalNumTokens != p.KVTokens {
			t.Fatalf("code %d, %v: %s", code, err, b)
		}
	})
	t.Run("unknown", func(t *testing.T) {
		if code, _ := c.get(t, "/nope"); code != 404 {
			t.Errorf("code %d", code)
		}
	})

	// /tokenize must agree with usage.prompt_tokens, for prompts and chats.
	tokenize := []struct {
		name  string
		body  map[string]any
		req   map[string]any
		path  string
		count int64
	}{
		{"prompt", map[string]any{"prompt": "hello world!"}, map[string]any{"prompt": "hello world!", "max_tokens": 2, "stream": true, "stream_options": map[string]any{"include_usage": true}}, "/v1/completions", 3},
		{"prompt_1000", map[string]any{"prompt": proseOfTokens("x", 1000) + "z"}, map[string]any{"prompt": proseOfTokens("x", 1000) + "z", "max_tokens": 2, "stream": true, "stream_options": map[string]any{"include_usage": true}}, "/v1/completions", 1001},
		{"messages", map[string]any{"messages": []map[string]any{{"role": "system", "content": "be brief"}, {"role": "user", "content": "hello world!"}}},
			map[string]any{"messages": []map[string]any{{"role": "system", "content": "be brief"}, {"role": "user", "content": "hello world!"}}, "max_tokens": 2, "stream": true, "stream_options": map[string]any{"include_usage": true}}, "/v1/chat/completions", 2 + 3 + 3 + 3},
		{"parts", map[string]any{"messages": []map[string]any{{"role": "user", "content": []map[string]any{{"type": "text", "text": "hello "}, {"type": "text", "text": "world!"}}}}},
			map[string]any{"messages": []map[string]any{{"role": "user", "content": "hello world!"}}, "max_tokens": 2, "stream": true, "stream_options": map[string]any{"include_usage": true}}, "/v1/chat/completions", 3 + 3},
	}
	for _, tc := range tokenize {
		t.Run("tokenize_"+tc.name, func(t *testing.T) {
			r, err := c.post(ctx, "/tokenize", tc.body)
			if err != nil || r.Status != 200 {
				t.Fatalf("%v %+v", err, r)
			}
			var tok struct {
				Count       int64   `json:"count"`
				Tokens      []int64 `json:"tokens"`
				MaxModelLen int64   `json:"max_model_len"`
			}
			if err := json.Unmarshal(r.Body, &tok); err != nil {
				t.Fatal(err)
			}
			if tok.Count != tc.count || int64(len(tok.Tokens)) != tc.count || tok.MaxModelLen != 32768 {
				t.Errorf("count %d, %d tokens, max_model_len %d; want %d", tok.Count, len(tok.Tokens), tok.MaxModelLen, tc.count)
			}
			g, err := c.post(ctx, tc.path, tc.req)
			if err != nil || g.Status != 200 {
				t.Fatalf("%v %+v", err, g)
			}
			if u := g.finalUsage(); u == nil || u.PromptTokens != tc.count {
				t.Errorf("usage %+v, want prompt_tokens %d", u, tc.count)
			}
		})
	}

	t.Run("metrics", func(t *testing.T) {
		code, b := c.get(t, "/metrics")
		if code != 200 {
			t.Fatalf("code %d", code)
		}
		tp := expfmt.NewTextParser(model.LegacyValidation)
		fams, err := tp.TextToMetricFamilies(bytes.NewReader(b))
		if err != nil {
			t.Fatalf("parse: %v\n%s", err, b)
		}
		for _, name := range []string{
			"vllm:num_requests_running", "vllm:num_requests_waiting", "vllm:generation_tokens_total",
			"vllm:prompt_tokens_total", "vllm:num_preemptions_total", "vllm:prefix_cache_hits_total",
			"vllm:prefix_cache_queries_total", "vllm:cache_config_info", "vllm:kv_cache_usage_perc",
			"vllm:request_success_total",
		} {
			if fams[name] == nil {
				t.Errorf("missing %s", name)
			}
		}
		gen := fams["vllm:generation_tokens_total"].GetMetric()[0].GetCounter().GetValue()
		if gen != 8 { // four requests of 2 tokens above
			t.Errorf("generation_tokens_total = %v, want 8", gen)
		}
		var blocks, bs string
		for _, l := range fams["vllm:cache_config_info"].GetMetric()[0].GetLabel() {
			switch l.GetName() {
			case "num_gpu_blocks":
				blocks = l.GetValue()
			case "block_size":
				bs = l.GetValue()
			}
		}
		if blocks != "65536" || bs != "16" {
			t.Errorf("cache_config_info blocks %q block_size %q", blocks, bs)
		}
	})
}

func TestRequestErrors(t *testing.T) {
	_, c := startSim(t, DefaultProfile())
	cases := []struct {
		name string
		path string
		body any
		want string
	}{
		{"too_long", "/v1/chat/completions", chatBody(proseOfTokens("a", 30000), 4096, nil), "maximum context length is 32768"},
		{"no_messages", "/v1/chat/completions", map[string]any{"model": "sim", "stream": true}, "at least one message"},
		{"no_prompt", "/v1/completions", map[string]any{"model": "sim"}, "prompt is required"},
		{"zero_max", "/v1/completions", map[string]any{"prompt": "hi", "max_tokens": 0}, "at least 1"},
		{"min_over_max", "/v1/completions", map[string]any{"prompt": "hi", "max_tokens": 2, "min_tokens": 3}, "min_tokens"},
		{"bad_json", "/v1/completions", "{", "invalid JSON"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var body any = tc.body
			r, err := c.post(context.Background(), tc.path, body)
			if err != nil {
				t.Fatal(err)
			}
			if r.Status != 400 || !strings.Contains(string(r.Body), tc.want) {
				t.Errorf("status %d body %s; want 400 with %q", r.Status, r.Body, tc.want)
			}
		})
	}
}

// TestStreamTruth checks that what the client received is what the server
// recorded: the same chunks, the same token counts, exactly.
func TestStreamTruth(t *testing.T) {
	cases := []struct {
		name    string
		profile func(*Profile)
		path    string
		body    map[string]any
		want    int // output tokens
	}{
		{"chat", nil, "/v1/chat/completions", chatBody("tell me", 50, nil), 50},
		{"completions", nil, "/v1/completions", map[string]any{"prompt": "tell me", "max_tokens": 40, "ignore_eos": true, "stream": true, "stream_options": map[string]any{"include_usage": true}}, 40},
		{"mtp3", func(p *Profile) { p.ChunkTokens = 3 }, "/v1/chat/completions", chatBody("tell me", 50, nil), 50},
		{"reasoning", func(p *Profile) { p.Reasoning, p.ReasoningTokens = true, 7 }, "/v1/chat/completions", chatBody("tell me", 30, nil), 30},
		{"reasoning_field", func(p *Profile) {
			p.Reasoning, p.ReasoningTokens, p.ReasoningField, p.ChunkTokens = true, 8, "reasoning", 3
		}, "/v1/chat/completions", chatBody("tell me", 31, nil), 31},
		{"continuous_usage", nil, "/v1/chat/completions", chatBody("tell me", 20, map[string]any{"stream_options": map[string]any{"include_usage": true, "continuous_usage_stats": true}}), 20},
		{"eos", func(p *Profile) { p.EOSMeanTokens = 10 }, "/v1/chat/completions", chatBody("tell me", 500, map[string]any{"ignore_eos": false}), -1},
		{"min_tokens", func(p *Profile) { p.EOSMeanTokens = 2 }, "/v1/chat/completions", chatBody("tell me", 500, map[string]any{"ignore_eos": false, "min_tokens": 100}), -100},
		{"role_at_arrival", func(p *Profile) { p.RoleChunkAtArrival = true }, "/v1/chat/completions", chatBody("tell me", 10, nil), 10},
		{"finish_chunk", func(p *Profile) { p.FinishChunk = true }, "/v1/chat/completions", chatBody("tell me", 10, nil), 10},
		{"finish_chunk_completions", func(p *Profile) { p.FinishChunk = true }, "/v1/completions", map[string]any{"prompt": "tell me", "max_tokens": 12, "ignore_eos": true, "stream": true, "stream_options": map[string]any{"include_usage": true}}, 12},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := DefaultProfile()
			if tc.profile != nil {
				tc.profile(&p)
			}
			s, c := startSim(t, p)
			r, err := c.post(context.Background(), tc.path, tc.body)
			if err != nil {
				t.Fatal(err)
			}
			if r.Status != 200 || r.ReadErr != nil || !r.sawDone() {
				t.Fatalf("status %d, read error %v, done %v", r.Status, r.ReadErr, r.sawDone())
			}
			recs := s.Requests()
			if len(recs) != 1 {
				t.Fatalf("%d records", len(recs))
			}
			rec := recs[0]
			counts, content, reasoning := r.tokenEvents()
			u := r.finalUsage()
			if u == nil {
				t.Fatal("no usage")
			}
			total := len(strings.Fields(content)) + len(strings.Fields(reasoning))
			switch {
			case tc.want > 0 && int64(tc.want) != rec.OutputTokens:
				t.Errorf("truth %d tokens, want %d", rec.OutputTokens, tc.want)
			case tc.want < 0 && rec.OutputTokens < int64(-tc.want):
				t.Errorf("truth %d tokens, want at least %d", rec.OutputTokens, -tc.want)
			}
			if int64(total) != rec.OutputTokens || u.CompletionTokens != rec.OutputTokens || u.PromptTokens != rec.PromptTokens {
				t.Errorf("client saw %d tokens, usage %+v; truth %d output, %d prompt", total, u, rec.OutputTokens, rec.PromptTokens)
			}
			if len(counts) != len(rec.Chunks) {
				t.Fatalf("client saw %d token chunks, truth %d", len(counts), len(rec.Chunks))
			}
			for i, ch := range rec.Chunks {
				if counts[i] != ch.Tokens {
					t.Errorf("chunk %d: client %d tokens, truth %d", i, counts[i], ch.Tokens)
				}
				if i > 0 && ch.At.Before(rec.Chunks[i-1].At) {
					t.Errorf("chunk %d written before chunk %d", i, i-1)
				}
			}
			if p.Reasoning {
				if n := int64(len(strings.Fields(reasoning))); n != rec.ReasoningTokens || n != int64(p.ReasoningTokens) {
					t.Errorf("reasoning: client %d, truth %d, profile %d", n, rec.ReasoningTokens, p.ReasoningTokens)
				}
			}
			if p.ChunkTokens == 3 {
				// Steps add 3 tokens (the last one the remainder); a chunk
				// carries one step or several merged, and never splits one
				// (except at the reasoning/content boundary).
				sum := 0
				for i, n := range counts[:len(counts)-1] {
					sum += n
					if sum%3 != 0 && sum != p.ReasoningTokens {
						t.Errorf("chunk %d ends at token %d with 3-token steps", i, sum)
					}
				}
			}
			// The role-only chunk comes first on chat streams.
			if tc.path == "/v1/chat/completions" {
				ev := r.Events[0]
				if len(ev.Choices) != 1 || ev.Choices[0].Delta.Role != "assistant" || ev.Choices[0].Delta.Content != "" {
					t.Errorf("first event %s is not role-only", ev.Raw)
				}
				if rec.FirstChunk.IsZero() || rec.FirstChunk.After(rec.FirstToken) {
					t.Errorf("FirstChunk %v, FirstToken %v", rec.FirstChunk, rec.FirstToken)
				}
			}
			// finish_reason comes once: on the last token's chunk, or on an
			// empty chunk after it with FinishChunk.
			var finishes []int
			for i, ev := range r.Events {
				for _, c := range ev.Choices {
					if c.FinishReason != nil {
						finishes = append(finishes, i)
					}
				}
			}
			if len(finishes) != 1 {
				t.Fatalf("finish_reason in events %v", finishes)
			}
			if fc, re := r.Events[finishes[0]].text(); p.FinishChunk != (fc == "" && re == "") {
				t.Errorf("finish event %s with FinishChunk %v", r.Events[finishes[0]].Raw, p.FinishChunk)
			}
			// The usage chunk has no choices.
			last := r.Events[len(r.Events)-2]
			if last.Usage == nil || len(last.Choices) != 0 || !bytes.Contains(last.Raw, []byte(`"choices":[]`)) {
				t.Errorf("usage event %s", last.Raw)
			}
			if rec.Finished.IsZero() || rec.Err != "" || rec.Status != 200 {
				t.Errorf("record %+v", rec)
			}
			if tc.name == "continuous_usage" {
				var prev int64
				for _, ev := range r.Events[:len(r.Events)-1] {
					if ev.Usage == nil {
						t.Fatalf("event without usage: %s", ev.Raw)
					}
					if ev.Usage.CompletionTokens < prev {
						t.Errorf("usage went back: %s", ev.Raw)
					}
					prev = ev.Usage.CompletionTokens
				}
			}
		})
	}
}

func TestNonStreaming(t *testing.T) {
	p := DefaultProfile()
	p.Reasoning, p.ReasoningTokens = true, 5
	s, c := startSim(t, p)
	r, err := c.post(context.Background(), "/v1/chat/completions", map[string]any{
		"messages": []map[string]any{{"role": "user", "content": "hello"}}, "max_tokens": 25, "ignore_eos": true,
	})
	if err != nil || r.Status != 200 {
		t.Fatalf("%v %+v", err, r)
	}
	var resp struct {
		Choices []struct {
			Message struct {
				Content          string `json:"content"`
				ReasoningContent string `json:"reasoning_content"`
			} `json:"message"`
			FinishReason string `json:"finish_reason"`
		} `json:"choices"`
		Usage usage `json:"usage"`
	}
	if err := json.Unmarshal(r.Body, &resp); err != nil {
		t.Fatal(err)
	}
	rec := s.Requests()[0]
	got := len(strings.Fields(resp.Choices[0].Message.Content)) + len(strings.Fields(resp.Choices[0].Message.ReasoningContent))
	if got != 25 || resp.Usage.CompletionTokens != 25 || rec.OutputTokens != 25 || rec.ReasoningTokens != 5 || resp.Choices[0].FinishReason != "length" {
		t.Errorf("got %d words, usage %+v, truth %d/%d, finish %q", got, resp.Usage, rec.OutputTokens, rec.ReasoningTokens, resp.Choices[0].FinishReason)
	}
}

// TestClientGoesAway checks that an abandoned stream is recorded as such
// and leaves the engine.
func TestClientGoesAway(t *testing.T) {
	s, c := startSim(t, DefaultProfile())
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Millisecond)
	defer cancel()
	_, _ = c.post(ctx, "/v1/chat/completions", chatBody("hi", 20000, nil))
	deadline := time.Now().Add(5 * time.Second)
	for {
		recs := s.Requests()
		if len(recs) == 1 && !recs[0].Finished.IsZero() && s.m.running.Load() == 0 {
			if !strings.Contains(recs[0].Err, "went away") || recs[0].OutputTokens >= 20000 {
				t.Errorf("record %+v", recs[0])
			}
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("request still running: %+v, running %d", recs, s.m.running.Load())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

var _ http.Handler = (*Server)(nil)

func TestAPIKey(t *testing.T) {
	p := DefaultProfile()
	p.APIKey = "sk-test"
	_, c := startSim(t, p)
	cases := []struct {
		name   string
		path   string
		header string
		want   int
	}{
		{"models_without", "/v1/models", "", 401},
		{"models_wrong", "/v1/models", "Bearer nope", 401},
		{"models_with", "/v1/models", "Bearer sk-test", 200},
		{"metrics_open", "/metrics", "", 200},
		{"version_open", "/version", "", 200},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			req, err := http.NewRequest(http.MethodGet, c.base+tc.path, nil)
			if err != nil {
				t.Fatal(err)
			}
			if tc.header != "" {
				req.Header.Set("Authorization", tc.header)
			}
			resp, err := c.hc.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != tc.want {
				t.Errorf("status %d, want %d", resp.StatusCode, tc.want)
			}
		})
	}
}

// TestZeroProfile checks that a zero Profile serves with defaults rather
// than spinning or dividing by zero.
func TestZeroProfile(t *testing.T) {
	s, c := startSim(t, Profile{})
	r, err := c.post(context.Background(), "/v1/chat/completions", chatBody("zero", 20, nil))
	if err != nil || r.Status != 200 || !r.sawDone() {
		t.Fatalf("%v %+v", err, r)
	}
	rec := s.Requests()[0]
	d := DefaultProfile()
	if got := s.Profile(); got.StepBase != d.StepBase || got.KVTokens != d.KVTokens || got.CharsPerToken != d.CharsPerToken || got.Speedup != 1 {
		t.Errorf("profile %+v", got)
	}
	if rec.OutputTokens != 20 {
		t.Errorf("%d tokens", rec.OutputTokens)
	}
}

// TestEndpointsOff checks the switches that make endpoints absent, as on
// servers that do not have them.
func TestEndpointsOff(t *testing.T) {
	cases := []struct {
		name   string
		mod    func(*Profile)
		method string
		path   string
		want   int
	}{
		{"no_tokenize", func(p *Profile) { p.NoTokenize = true }, "POST", "/tokenize", 404},
		{"no_metrics", func(p *Profile) { p.NoMetrics = true }, "GET", "/metrics", 404},
		{"no_server_info", func(p *Profile) {}, "GET", "/get_server_info", 404},
		{"tokenize_on", func(p *Profile) {}, "POST", "/tokenize", 200},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := DefaultProfile()
			tc.mod(&p)
			_, c := startSim(t, p)
			req, err := http.NewRequest(tc.method, c.base+tc.path, strings.NewReader(`{"prompt":"x"}`))
			if err != nil {
				t.Fatal(err)
			}
			resp, err := c.hc.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != tc.want {
				t.Errorf("status %d, want %d", resp.StatusCode, tc.want)
			}
		})
	}
}

func TestMaxRecords(t *testing.T) {
	cases := []struct {
		name      string
		max, sent int
		wantFirst uint64 // arrival number of the oldest record kept
		wantLen   int
	}{
		{"unbounded", 0, 7, 1, 7},
		{"bounded", 3, 7, 5, 3},
		{"under", 10, 4, 1, 4},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := DefaultProfile()
			p.MaxRecords = tc.max
			s, c := startSim(t, p)
			for range tc.sent {
				if r, err := c.post(context.Background(), "/v1/completions", map[string]any{"prompt": "x", "max_tokens": 2}); err != nil || r.Status != 200 {
					t.Fatalf("%v %+v", err, r)
				}
			}
			recs := s.Requests()
			if len(recs) != tc.wantLen || recs[0].N != tc.wantFirst || recs[len(recs)-1].N != uint64(tc.sent) {
				t.Errorf("%d records from %d to %d; want %d from %d to %d", len(recs), recs[0].N, recs[len(recs)-1].N, tc.wantLen, tc.wantFirst, tc.sent)
			}
			s.Reset()
			if n := len(s.Requests()); n != 0 {
				t.Errorf("%d records after Reset", n)
			}
		})
	}
}
