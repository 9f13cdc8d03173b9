package sim

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// testClient is a straightforward OpenAI streaming client for tests: it
// reads SSE lines with bufio, timestamps each event when its line arrives
// and decodes it with encoding/json.
type testClient struct {
	base string
	hc   *http.Client
}

func newTestClient(base string, conns int) *testClient {
	tr := &http.Transport{MaxIdleConnsPerHost: conns, MaxConnsPerHost: 0, DisableCompression: true}
	return &testClient{base: base, hc: &http.Client{Transport: tr}}
}

// event is one decoded SSE data line.
type event struct {
	At   time.Time
	Raw  []byte
	Done bool
	// Decoded fields.
	ID      string `json:"id"`
	Choices []struct {
		Delta struct {
			Role             string `json:"role"`
			Content          string `json:"content"`
			ReasoningContent string `json:"reasoning_content"`
			Reasoning        string `json:"reasoning"`
		} `json:"delta"`
		Text         string  `json:"text"`
		FinishReason *string `json:"finish_reason"`
	} `json:"choices"`
	Usage *usage `json:"usage"`
	Error *struct {
		Message string `json:"message"`
	} `json:"error"`
}

type usage struct {
	PromptTokens     int64 `json:"prompt_tokens"`
	CompletionTokens int64 `json:"completion_tokens"`
	TotalTokens      int64 `json:"total_tokens"`
}

// text returns the event's content and reasoning text.
func (e *event) text() (content, reasoning string) {
	for _, c := range e.Choices {
		content += c.Delta.Content + c.Text
		reasoning += c.Delta.ReasoningContent + c.Delta.Reasoning
	}
	return
}

// result is what a client saw of one request.
type result struct {
	Status  int
	Body    []byte // non-streaming body or error body
	Events  []event
	ReadErr error
	Start   time.Time
}

// tokenEvents returns the events that carried text, with the number of
// words in them: every simulator token is one word.
func (r *result) tokenEvents() (counts []int, content, reasoning string) {
	for i := range r.Events {
		c, re := r.Events[i].text()
		if n := len(strings.Fields(c)) + len(strings.Fields(re)); n > 0 {
			counts = append(counts, n)
		}
		content += c
		reasoning += re
	}
	return
}

// finalUsage returns the usage of the last event that had one.
func (r *result) finalUsage() *usage {
	for i := len(r.Events) - 1; i >= 0; i-- {
		if r.Events[i].Usage != nil {
			return r.Events[i].Usage
		}
	}
	return nil
}

func (r *result) sawDone() bool {
	return len(r.Events) > 0 && r.Events[len(r.Events)-1].Done
}

func (c *testClient) post(ctx context.Context, path string, body any) (*result, error) {
	b, err := json.Marshal(body)
	if err != nil {
		return nil, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.base+path, bytes.NewReader(b))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	res := &result{Start: time.Now()}
	resp, err := c.hc.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	res.Status = resp.StatusCode
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		res.Body, res.ReadErr = io.ReadAll(resp.Body)
		return res, nil
	}
	br := bufio.NewReaderSize(resp.Body, 64<<10)
	for {
		line, err := br.ReadBytes('\n')
		at := time.Now()
		if err != nil {
			if err != io.EOF || len(line) > 0 {
				res.ReadErr = err
			}
			return res, nil
		}
		line = bytes.TrimRight(line, "\r\n")
		data, ok := bytes.CutPrefix(line, []byte("data: "))
		if !ok {
			continue
		}
		ev := event{At: at, Raw: append([]byte(nil), data...)}
		if string(data) == "[DONE]" {
			ev.Done = true
		} else if err := json.Unmarshal(data, &ev); err != nil {
			return nil, fmt.Errorf("decode event %q: %w", truncate(data, 200), err)
		}
		res.Events = append(res.Events, ev)
	}
}

func (c *testClient) get(t *testing.T, path string) (int, []byte) {
	t.Helper()
	resp, err := c.hc.Get(c.base + path)
	if err != nil {
		t.Fatalf("GET %s: %v", path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("GET %s: read: %v", path, err)
	}
	return resp.StatusCode, b
}

func truncate(b []byte, n int) string {
	if len(b) > n {
		return string(b[:n]) + "…"
	}
	return string(b)
}

// startSim starts a simulator for p and closes it at the end of the test.
func startSim(t testing.TB, p Profile) (*Server, *testClient) {
	t.Helper()
	s, url, err := Start(p)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s, newTestClient(url, 64)
}

// chatBody is a chat request for prompt.
func chatBody(prompt string, maxTokens int, extra map[string]any) map[string]any {
	b := map[string]any{
		"model":    "sim",
		"messages": []map[string]any{{"role": "user", "content": prompt}},
		"stream":   true,
		"stream_options": map[string]any{
			"include_usage": true,
		},
		"max_tokens": maxTokens,
		"ignore_eos": true,
	}
	for k, v := range extra {
		b[k] = v
	}
	return b
}

// proseOfTokens returns a prompt of exactly n tokens at 4 characters per
// token, starting with tag.
func proseOfTokens(tag string, n int) string {
	s := tag + strings.Repeat("abcd", n)
	return s[:n*4]
}
