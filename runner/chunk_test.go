package runner

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// refChunk decodes a chunk with encoding/json for comparison.
type refChunk struct {
	Choices []struct {
		Delta *struct {
			Content          *string `json:"content"`
			ReasoningContent *string `json:"reasoning_content"`
			Reasoning        *string `json:"reasoning"`
		} `json:"delta"`
		Text         *string `json:"text"`
		FinishReason *string `json:"finish_reason"`
	} `json:"choices"`
	Usage *struct {
		PromptTokens     int64 `json:"prompt_tokens"`
		CompletionTokens int64 `json:"completion_tokens"`
	} `json:"usage"`
}

// caseVariantKeys reports whether p spells a key the scanner reads in
// another letter case: encoding/json matches keys case-insensitively,
// servers (and the scanner) do not.
func caseVariantKeys(p []byte) bool {
	low := bytes.ToLower(p)
	for _, k := range []string{"choices", "delta", "message", "content", "reasoning", "text", "finish_reason", "usage", "prompt_tokens", "completion_tokens", "error", "role", "tool_calls"} {
		q := []byte(`"` + k + `"`)
		if bytes.Count(low, q) != bytes.Count(p, q) {
			return true
		}
	}
	return false
}

// decoded is a string body as encoding/json returns it: escapes decoded
// and each byte of invalid UTF-8 replaced by U+FFFD. The scanner keeps
// such bytes as the server sent them (validating every token would cost
// CPU on the hot path for no measurement), so the comparison replaces them
// the way encoding/json does.
func decoded(s []byte) string {
	return string([]rune(string(appendUnescaped(nil, s))))
}

func checkAgainstJSON(t *testing.T, p []byte) {
	if caseVariantKeys(p) {
		var ch chunk
		_ = scanChunk(p, &ch) // must not panic
		return
	}
	if v := bytes.TrimLeft(p, " \t\r\n"); len(v) == 0 || v[0] != '{' {
		// encoding/json decodes a top-level null into a struct as "no
		// change"; a chunk must be an object, so the scanner rejects
		// anything else.
		var ch chunk
		if scanChunk(p, &ch) == nil {
			t.Fatalf("scanChunk(%q) accepted a chunk that is not an object", p)
		}
		return
	}
	var ref refChunk
	if json.Unmarshal(p, &ref) != nil {
		return // not valid for the reference either; only must not panic
	}
	var ch chunk
	if err := scanChunk(p, &ch); err != nil {
		t.Fatalf("scanChunk(%q): %v, encoding/json accepts it", p, err)
	}
	if ref.Choices != nil && ch.choices != len(ref.Choices) {
		t.Fatalf("choices %d, want %d", ch.choices, len(ref.Choices))
	}
	if len(ref.Choices) > 0 {
		c0 := ref.Choices[0]
		str := func(s *string) string {
			if s == nil {
				return ""
			}
			return *s
		}
		if d := c0.Delta; d != nil {
			if got := decoded(ch.content); got != str(d.Content) {
				t.Fatalf("content %q, want %q", got, str(d.Content))
			}
			want := str(d.ReasoningContent)
			if want == "" {
				want = str(d.Reasoning)
			}
			if got := decoded(ch.reasoning); got != want && str(d.ReasoningContent) != "" && str(d.Reasoning) != "" {
				// both set: either is acceptable
			} else if got != want {
				t.Fatalf("reasoning %q, want %q", got, want)
			}
		}
		if got := decoded(ch.text); got != str(c0.Text) {
			t.Fatalf("text %q, want %q", got, str(c0.Text))
		}
		if ch.finish != (c0.FinishReason != nil) {
			t.Fatalf("finish %v, want %v", ch.finish, c0.FinishReason != nil)
		}
	}
	if (ref.Usage != nil) != ch.usage {
		t.Fatalf("usage %v, want %v", ch.usage, ref.Usage != nil)
	}
	if ref.Usage != nil && (ch.promptTokens != ref.Usage.PromptTokens || ch.completionTokens != ref.Usage.CompletionTokens) {
		t.Fatalf("usage %d/%d, want %d/%d", ch.promptTokens, ch.completionTokens, ref.Usage.PromptTokens, ref.Usage.CompletionTokens)
	}
}

func TestScanChunkMatchesEncodingJSON(t *testing.T) {
	files, _ := filepath.Glob("testdata/sse/*.txt")
	n := 0
	for _, fn := range files {
		b, _ := os.ReadFile(fn)
		for _, l := range refLines(b) {
			checkAgainstJSON(t, []byte(l))
			n++
		}
	}
	for _, s := range []string{
		`{"choices":[{"delta":{"content":"a\"b\\c\u00e9\ud83d\ude00"}}]}`,
		`{"choices":[{"delta":{"content":"x"}},{"delta":{"content":"second"}}]}`,
		`{"usage":{"prompt_tokens":12,"completion_tokens":7,"prompt_tokens_details":{"cached_tokens":3}}}`,
		`{"choices":[{"text":"t","finish_reason":"stop"}], "nested":{"a":[1,2,{"b":"}"}]}}`,
		` { "choices" : [ { "delta" : { "content" : "sp" } } ] } `,
		`{"choices":null,"usage":null}`,
	} {
		checkAgainstJSON(t, []byte(s))
		n++
	}
	if n < 20 {
		t.Fatalf("only %d chunks checked", n)
	}
}

// FuzzScanChunk: the scanner agrees with encoding/json on any chunk,
// seeded from the recorded streams.
func FuzzScanChunk(f *testing.F) {
	files, _ := filepath.Glob("testdata/sse/*.txt")
	for _, fn := range files {
		b, _ := os.ReadFile(fn)
		for _, l := range refLines(b) {
			f.Add([]byte(l))
		}
	}
	f.Fuzz(func(t *testing.T, p []byte) {
		checkAgainstJSON(t, p)
	})
}
