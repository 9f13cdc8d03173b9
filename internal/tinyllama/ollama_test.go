//go:build unix

package tinyllama_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"syscall"
	"testing"
	"time"

	"speedmatrix/internal/testtool"
	"speedmatrix/internal/tinyllama"
)

// TestOllamaServesModel loads the model into a real engine (Ollama, which
// runs llama.cpp) and streams from it: llama.cpp tokenizes a prompt of
// known pieces as our vocabulary says, sends one token per chunk, never a
// control or byte token, and Close ends the server and its runner.
func TestOllamaServesModel(t *testing.T) {
	bin := testtool.Ollama(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	o, err := tinyllama.StartOllama(ctx, tinyllama.OllamaConfig{Bin: bin, Dir: t.TempDir(), Parallel: 1, Context: 512})
	if err != nil {
		t.Fatal(err)
	}
	defer o.Close()

	body := `{"model":"tiny","messages":[{"role":"user","content":"the model"}],"max_tokens":40,"temperature":0,` +
		`"stream":true,"stream_options":{"include_usage":true}}`
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, o.URL+"/v1/chat/completions", strings.NewReader(body))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var (
		chunks, prompt, completion int
		text                       strings.Builder
	)
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		data, ok := strings.CutPrefix(sc.Text(), "data: ")
		if !ok || data == "[DONE]" {
			continue
		}
		var ch struct {
			Choices []struct {
				Delta struct{ Content string } `json:"delta"`
			} `json:"choices"`
			Usage *struct {
				Prompt     int `json:"prompt_tokens"`
				Completion int `json:"completion_tokens"`
			} `json:"usage"`
		}
		if err := json.Unmarshal([]byte(data), &ch); err != nil {
			t.Fatalf("%v: %s", err, data)
		}
		for _, c := range ch.Choices {
			if c.Delta.Content != "" {
				chunks++
				text.WriteString(c.Delta.Content)
			}
		}
		if ch.Usage != nil {
			prompt, completion = ch.Usage.Prompt, ch.Usage.Completion
		}
	}
	// <s> ▁the ▁model: the template is the bare prompt.
	if prompt != 3 {
		t.Errorf("prompt tokens %d, want 3 (<s> ▁the ▁model)", prompt)
	}
	if completion != 40 || chunks != 40 {
		t.Errorf("%d completion tokens in %d chunks, want 40 in 40", completion, chunks)
	}
	for _, r := range text.String() {
		if r < ' ' || r > '~' {
			t.Errorf("output %q holds %q: a control or byte token was sampled", text.String(), r)
			break
		}
	}
	pid := o.PID()
	if err := o.Close(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-o.Exited():
	default:
		t.Fatal("server still running after Close")
	}
	if err := syscall.Kill(-pid, 0); !errors.Is(err, syscall.ESRCH) {
		t.Errorf("process group %d still has processes after Close (kill 0: %v)", pid, err)
	}
}
