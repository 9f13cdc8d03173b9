package runner

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"speedmatrix/internal/testtool"
	"speedmatrix/internal/tinyllama"
	"speedmatrix/schema"
)

// TestOllamaContextBeyondEngine measures two contexts against a real engine
// whose requests hold 256 tokens (Ollama, num_ctx 256): 128 fits, 512
// does not, and Ollama silently keeps the first and last 256 prompt tokens
// and reports usage.prompt_tokens 256. The context that fits is measured
// with prompts of its size; the one that does not is never a valid cell
// (the prompt-token check or a refusal, not a truncated prompt measured
// as 512 tokens), and its reason says that the engine cuts prompts. The
// engine's version is discovered (Ollama's /api/version).
func TestOllamaContextBeyondEngine(t *testing.T) {
	bin := testtool.Ollama(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	o, err := tinyllama.StartOllama(ctx, tinyllama.OllamaConfig{Bin: bin, Dir: t.TempDir(), Parallel: 1, Context: 256})
	if err != nil {
		t.Fatal(err)
	}
	defer o.Close()
	defer func() {
		if t.Failed() {
			if b, err := os.ReadFile(o.LogPath); err == nil {
				t.Logf("ollama log (last 6 KB):\n%s", b[max(0, len(b)-6000):])
			}
		}
	}()
	// Note: bounds well inside the test's two minutes (a stream idle for
	// the default 2 m ran into the deadline once in CI with no reason
	// given): an engine that stalls ends as a cell with its reason, and
	// the engine's log is printed.
	to := Timeouts{Header: 20 * time.Second, Idle: 20 * time.Second}
	c, err := NewClient(ClientConfig{URL: o.URL, Model: o.Model, MaxConns: 2, Timeouts: to})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	// Ollama has no /version, /props or /info: its version is at
	// /api/version (0.0.0 for a build without release ldflags, as go
	// install makes it).
	var want struct {
		Version string `json:"version"`
	}
	if err := c.getJSON(ctx, "/api/version", &want); err != nil || want.Version == "" {
		t.Fatalf("GET /api/version: %+v, %v", want, err)
	}
	info, err := c.Discover(ctx, 0)
	if err != nil || info.Version != want.Version {
		t.Errorf("Discover: version %q, err %v; want %q", info.Version, err, want.Version)
	}
	r, err := New(c, Config{Contexts: []int64{128, 512}, Concurrency: []int{1}, Duration: 500 * time.Millisecond, MaxTokens: 16,
		IdleTimeout: 20 * time.Second, StartTimeout: 30 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	m, err := r.Run(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, x := range m.Measurements {
		t.Logf("%s %s: %s %q, prompt tokens %v", x.Phase, x.ContextLabel, x.Status, x.StatusReason, ptrVal(x.PromptTokens))
		ok := x.PromptTokens != nil && x.ContextTokens != nil &&
			absI(*x.PromptTokens-*x.ContextTokens) <= *x.ContextTokens/100
		switch {
		case x.ContextTokens != nil && *x.ContextTokens == 128:
			if x.Status != schema.StatusValid || !ok {
				t.Errorf("%s %s: %s %q, prompt tokens %v: the context fits the engine", x.Phase, x.ContextLabel, x.Status, x.StatusReason, ptrVal(x.PromptTokens))
			}
		case x.Status != schema.StatusValid && x.ContextTokens != nil && *x.ContextTokens == 512 &&
			!strings.Contains(x.StatusReason, "truncates prompts") && !strings.Contains(x.StatusReason, "prompt tokens"):
			t.Errorf("%s %s: reason %q does not say the engine cannot hold the context", x.Phase, x.ContextLabel, x.StatusReason)
		case x.Status == schema.StatusValid && !ok:
			t.Errorf("%s %s is valid with prompt tokens %v: the engine truncated the prompt", x.Phase, x.ContextLabel, ptrVal(x.PromptTokens))
		case x.Status == schema.StatusValid:
			t.Errorf("%s %s is valid beyond the engine's 256-token context", x.Phase, x.ContextLabel)
		}
	}
}

func ptrVal(p *int64) any {
	if p == nil {
		return nil
	}
	return *p
}

func absI(x int64) int64 { return max(x, -x) }
