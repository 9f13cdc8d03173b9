package runcmd

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"

	"speedmatrix/runner"
)

// engineProxy stands between the runner and a real engine and writes down,
// for every completion request, what the engine said and when its bytes
// passed: the test's independent account of a run. It forwards every
// request unchanged and each SSE line as soon as it arrives.
type engineProxy struct {
	upstream string
	client   *http.Client

	mu   sync.Mutex
	reqs []*proxied
}

// proxied is one completion request as the proxy saw it.
type proxied struct {
	arrived   time.Time
	id        string // the client's X-Request-Id
	maxTokens int
	prompt    string      // the user message (or prompt) text
	status    int         // the engine's HTTP status
	chunks    []time.Time // arrival of each chunk carrying content
	usage     *usage      // the engine's final usage, nil when none came
	finish    string      // the last finish_reason
	done      bool        // [DONE] passed
	cut       bool        // the client went away before the end
}

type usage struct {
	Prompt     int64 `json:"prompt_tokens"`
	Completion int64 `json:"completion_tokens"`
}

func newEngineProxy(upstream string) *engineProxy {
	return &engineProxy{upstream: upstream, client: &http.Client{Timeout: 2 * time.Minute}}
}

func (p *engineProxy) requests() []*proxied {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]*proxied(nil), p.reqs...)
}

func (p *engineProxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	var rec *proxied
	if strings.HasSuffix(r.URL.Path, "/completions") {
		var req struct {
			MaxTokens int    `json:"max_tokens"`
			Prompt    string `json:"prompt"`
			Messages  []struct {
				Content string `json:"content"`
			} `json:"messages"`
		}
		_ = json.Unmarshal(body, &req)
		rec = &proxied{arrived: time.Now(), id: r.Header.Get(runner.RequestIDHeader), maxTokens: req.MaxTokens, prompt: req.Prompt}
		for _, m := range req.Messages {
			rec.prompt += m.Content
		}
		p.mu.Lock()
		p.reqs = append(p.reqs, rec)
		p.mu.Unlock()
	}
	up, err := http.NewRequestWithContext(r.Context(), r.Method, p.upstream+r.URL.RequestURI(), bytes.NewReader(body))
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	up.Header = r.Header.Clone()
	resp, err := p.client.Do(up)
	if err != nil {
		if rec != nil {
			p.mu.Lock()
			rec.cut = true
			p.mu.Unlock()
		}
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	defer resp.Body.Close()
	for k, v := range resp.Header {
		w.Header()[k] = v
	}
	w.WriteHeader(resp.StatusCode)
	if rec == nil {
		io.Copy(w, resp.Body)
		return
	}
	p.mu.Lock()
	rec.status = resp.StatusCode
	p.mu.Unlock()
	flusher, _ := w.(http.Flusher)
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		line := sc.Bytes()
		p.note(rec, line, time.Now())
		if _, err := w.Write(append(line, '\n')); err != nil {
			break
		}
		if flusher != nil {
			flusher.Flush()
		}
	}
	if r.Context().Err() != nil {
		p.mu.Lock()
		rec.cut = !rec.done
		p.mu.Unlock()
	}
}

// note records one SSE line of rec's response.
func (p *engineProxy) note(rec *proxied, line []byte, at time.Time) {
	data, ok := bytes.CutPrefix(line, []byte("data: "))
	if !ok {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if string(bytes.TrimSpace(data)) == "[DONE]" {
		rec.done = true
		return
	}
	var ch struct {
		Choices []struct {
			Delta struct {
				Content string `json:"content"`
			} `json:"delta"`
			Text         string  `json:"text"`
			FinishReason *string `json:"finish_reason"`
		} `json:"choices"`
		Usage *usage `json:"usage"`
	}
	if err := json.Unmarshal(data, &ch); err != nil {
		return
	}
	for _, c := range ch.Choices {
		if c.Delta.Content != "" || c.Text != "" {
			rec.chunks = append(rec.chunks, at)
		}
		if c.FinishReason != nil {
			rec.finish = *c.FinishReason
		}
	}
	if ch.Usage != nil {
		rec.usage = ch.Usage
	}
}
