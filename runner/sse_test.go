package runner

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/iotest"
	"time"
)

var update = flag.Bool("update", false, "rewrite golden files under testdata/")

// summarizeStream describes what the client made of a recorded stream:
// each data event as the scanner saw it, then the request record.
func summarizeStream(t *testing.T, body []byte) string {
	t.Helper()
	var b strings.Builder
	rd := newSSEReader(bytes.NewReader(body), nil)
	var ch chunk
	for {
		p, _, err := rd.next()
		if err != nil {
			fmt.Fprintf(&b, "end: %v\n", err)
			break
		}
		if string(p) == "[DONE]" {
			b.WriteString("[DONE]\n")
			continue
		}
		if err := scanChunk(p, &ch); err != nil {
			fmt.Fprintf(&b, "bad: %v\n", err)
			continue
		}
		fmt.Fprintf(&b, "choices=%d role=%v content=%q reasoning=%q text=%q finish=%v usage=%v prompt=%d completion=%d err=%v msg=%q\n",
			ch.choices, ch.role, appendUnescaped(nil, ch.content), appendUnescaped(nil, ch.reasoning), appendUnescaped(nil, ch.text),
			ch.finish, ch.usage, ch.promptTokens, ch.completionTokens, ch.err, ch.errMsg)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.Write(body)
	}))
	defer srv.Close()
	c, err := NewClient(ClientConfig{URL: srv.URL, Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	s := newStream()
	var rec record
	c.do(context.Background(), c.completionBody("x", 10), time.Now(), s, &rec)
	var cums []int32
	for _, tk := range s.log[rec.t0:rec.t1] {
		cums = append(cums, tk.cum)
	}
	fmt.Fprintf(&b, "record: tokens=%d prompt=%d done=%v err=%q cum=%v\n", rec.tokens, rec.prompt, rec.done, rec.err, cums)
	return b.String()
}

func TestSSEGolden(t *testing.T) {
	files, _ := filepath.Glob("testdata/sse/*.txt")
	if len(files) == 0 {
		t.Fatal("no testdata/sse/*.txt")
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			body, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			got := summarizeStream(t, body)
			golden := strings.TrimSuffix(f, ".txt") + ".golden"
			if *update {
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test ./runner -update)", err)
			}
			if got != string(want) {
				t.Errorf("%s differs:\ngot:\n%s\nwant:\n%s", golden, got, want)
			}
		})
	}
}

// refLines is the reference split: the payloads of "data:" lines.
func refLines(body []byte) []string {
	var out []string
	lines := strings.Split(string(body), "\n")
	for _, l := range lines {
		l = strings.TrimSuffix(l, "\r")
		if p, ok := strings.CutPrefix(l, "data:"); ok {
			out = append(out, strings.TrimPrefix(p, " "))
		}
	}
	return out
}

func readAll(r io.Reader) ([]string, error) {
	rd := newSSEReader(r, make([]byte, 4096))
	var out []string
	for {
		p, _, err := rd.next()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		out = append(out, string(p))
	}
}

func TestSSEReaderSplits(t *testing.T) {
	long := strings.Repeat("x", 300000)
	tests := []struct {
		name string
		body string
	}{
		{"plain", "data: a\n\ndata: b\n\n"},
		{"no space", "data:a\n\ndata:b\n\n"},
		{"crlf", "data: a\r\n\r\ndata: b\r\n\r\n"},
		{"no final newline", "data: a\n\ndata: b"},
		{"comments and fields", ": hi\nevent: x\nid: 3\nretry: 10\ndata: a\n\n"},
		{"long line", "data: " + long + "\n\ndata: b\n\n"},
		{"empty", ""},
		{"empty data", "data:\n\n"},
	}
	for _, tt := range tests {
		for _, mode := range []string{"whole", "one byte", "half"} {
			t.Run(tt.name+"/"+mode, func(t *testing.T) {
				var r io.Reader = strings.NewReader(tt.body)
				switch mode {
				case "one byte":
					r = iotest.OneByteReader(r)
				case "half":
					r = iotest.HalfReader(r)
				}
				got, err := readAll(r)
				if err != nil {
					t.Fatal(err)
				}
				want := refLines([]byte(tt.body))
				if fmt.Sprint(got) != fmt.Sprint(want) {
					t.Fatalf("got %d lines, want %d", len(got), len(want))
				}
			})
		}
	}
}

func FuzzSSEReader(f *testing.F) {
	files, _ := filepath.Glob("testdata/sse/*.txt")
	for _, fn := range files {
		b, _ := os.ReadFile(fn)
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		got, err := readAll(iotest.HalfReader(bytes.NewReader(body)))
		if err != nil {
			t.Fatal(err)
		}
		want := refLines(body)
		if len(got) != len(want) {
			t.Fatalf("got %d lines, want %d", len(got), len(want))
		}
		for i := range got {
			if got[i] != want[i] {
				t.Fatalf("line %d: %q, want %q", i, got[i], want[i])
			}
		}
	})
}

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

// benchBody is a vLLM-style stream of n one-token content chunks with
// continuous usage stats.
func benchBody(n int) []byte {
	var b bytes.Buffer
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, `data: {"id":"chatcmpl-0123456789abcdef","object":"chat.completion.chunk","created":1764000000,"model":"ling","choices":[{"index":0,"delta":{"content":" word"},"logprobs":null,"finish_reason":null}],"usage":{"prompt_tokens":8203,"total_tokens":%d,"completion_tokens":%d}}`+"\n\n", 8203+i+1, i+1)
	}
	b.WriteString("data: [DONE]\n\n")
	return b.Bytes()
}

// BenchmarkSSEParse measures the parse path alone, from memory: split
// data lines, stamp them, scan each chunk's JSON and append a tick, as a
// stream does. It reports events per second (per core: run with -cpu 1).
func BenchmarkSSEParse(b *testing.B) {
	const events = 4096
	body := benchBody(events)
	r := bytes.NewReader(body)
	rd := newSSEReader(r, nil)
	var ch chunk
	log := make([]tick, 0, events)
	epoch := time.Now()
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	b.ResetTimer()
	cpu0 := processCPU()
	for i := 0; i < b.N; i++ {
		r.Reset(body)
		rd.reset(r)
		log = log[:0]
		for {
			p, at, err := rd.next()
			if err != nil {
				break
			}
			if len(p) == 6 && string(p) == "[DONE]" {
				continue
			}
			if scanChunk(p, &ch) != nil {
				b.Fatal("bad chunk")
			}
			if ch.tokens() {
				log = append(log, tick{t: int64(at.Sub(epoch)), cum: int32(ch.completionTokens)})
			}
		}
		if len(log) != events {
			b.Fatalf("%d events, want %d", len(log), events)
		}
	}
	cpu := processCPU() - cpu0
	b.ReportMetric(float64(events)*float64(b.N)/b.Elapsed().Seconds(), "events/s")
	// On a shared machine wall time includes waiting for a core; events
	// per CPU-second is the per-core rate.
	b.ReportMetric(float64(events)*float64(b.N)/cpu.Seconds(), "events/cpu-s")
}
