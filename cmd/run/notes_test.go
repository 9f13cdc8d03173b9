package runcmd

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"path/filepath"
	"strings"
	"testing"

	"speedmatrix/runner"
	"speedmatrix/runner/sim"
	"speedmatrix/schema"
)

// TestNotesReachTheDocument: what the runner notes about a run reaches
// the document run writes, not only stderr: a /tokenize offset that could
// not be checked (the probes that check it fail), and a concurrency above
// the server's slots (llama.cpp's /props), in the run's metadata and on
// the cell it changes. Before, the first was set on a copy and lost, the
// second printed on stderr only.
func TestNotesReachTheDocument(t *testing.T) {
	p := sim.DefaultProfile()
	front := simBehind(t, func(w http.ResponseWriter, r *http.Request, body []byte) bool {
		switch {
		case r.URL.Path == "/version":
			http.NotFound(w, r)
		case r.URL.Path == "/props":
			fmt.Fprintf(w, `{"default_generation_settings":{"n_ctx":%d},"total_slots":1,"build_info":"b1-test"}`, p.MaxModelLen)
		case strings.HasSuffix(r.URL.Path, "/completions") && bytes.Contains(body, []byte(" tokenize check] ")):
			http.Error(w, `{"error":{"message":"probe refused","code":500}}`, http.StatusInternalServerError)
		default:
			return false
		}
		return true
	})
	out := filepath.Join(t.TempDir(), "run.md")
	code, stdout, stderr := runCmd(t, context.Background(), "-url", front, "-model", p.ModelName,
		"-contexts", "1K", "-concurrency", "1,2", "-duration", "300ms", "-max-tokens", "50", "-out", out)
	if code != exitOK {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	doc := readDocument(t, out)
	meta := map[string]string{}
	for _, f := range doc.Run.Metadata {
		meta[f.Key] = f.Value
	}
	if v := meta["POST /tokenize"]; !strings.Contains(v, "not checked") || !strings.Contains(v, "probe refused") {
		t.Errorf("the document's POST /tokenize note is %q, want the unchecked offset and why (metadata %q)", v, meta)
	}
	if !strings.Contains(doc.Run.Dataset, "not exact") {
		t.Errorf("dataset %q claims exact prompt lengths with the offset unchecked", doc.Run.Dataset)
	}
	if v := meta[runner.NoteSlots]; !strings.Contains(v, "concurrency 2 exceeds the server's 1 slots") {
		t.Errorf("the document's slots warning is %q (metadata %q)", v, meta)
	}
	for _, x := range doc.Measurements {
		if x.Phase == schema.PhaseDecode && x.Concurrency != nil && *x.Concurrency == 2 &&
			!strings.Contains(x.StatusReason, "1 of the 2 requests at once queue behind the server's 1 slots") {
			t.Errorf("decode 1K × 2: %s (%s), want the queue noted", x.Status, x.StatusReason)
		}
	}
}

// TestSmallSlotPromptsExact: llama.cpp's server with 1,024-token slots
// (its /tokenize takes {"content"} and sees no chat template; the
// template adds 42 tokens; this tokenizer makes the 3,000-byte check
// probe about 1,700 tokens). The run learns the offset with probes that
// fit, and the document's prompts are the 256 tokens it says, exactly,
// as the server counted them. Before, 298 tokens went out for 256 and
// the document said "exact".
func TestSmallSlotPromptsExact(t *testing.T) {
	p := sim.DefaultProfile()
	p.CharsPerToken, p.ChatTemplateTokens, p.MaxModelLen = 1.75, 42, 1024
	srv, simURL, err := sim.Listen(p, "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	tok := sim.Tokenizer{CharsPerToken: p.CharsPerToken}
	front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/tokenize" {
			var req struct {
				Content    *string `json:"content"`
				AddSpecial bool    `json:"add_special"`
			}
			json.NewDecoder(r.Body).Decode(&req)
			ids := []int64{}
			if req.Content != nil {
				if req.AddSpecial {
					ids = append(ids, 1)
				}
				ids = append(ids, tok.IDs(*req.Content)...)
			}
			json.NewEncoder(w).Encode(map[string]any{"tokens": ids})
			return
		}
		target, _ := url.Parse(simURL)
		httputil.NewSingleHostReverseProxy(target).ServeHTTP(w, r)
	}))
	t.Cleanup(front.Close)
	out := filepath.Join(t.TempDir(), "run.md")
	code, stdout, stderr := runCmd(t, context.Background(), "-url", front.URL, "-model", p.ModelName,
		"-contexts", "256", "-concurrency", "1", "-duration", "300ms", "-max-tokens", "32", "-out", out)
	if code != exitOK {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	doc := readDocument(t, out)
	if !strings.Contains(doc.Run.Dataset, "exact, POST /tokenize +41") {
		t.Errorf("dataset %q, want exact with the template's offset +41", doc.Run.Dataset)
	}
	var got []string
	n := 0
	for _, rec := range srv.Requests() {
		if rec.MaxTokens == 32 {
			n++
			if rec.PromptTokens != 256 {
				got = append(got, fmt.Sprint(rec.PromptTokens))
			}
		}
	}
	if n == 0 || len(got) > 0 {
		t.Errorf("%d decode requests of the 256-token context; these carried other than 256 prompt tokens: %s", n, strings.Join(got, ", "))
	}
}
