package runner

import (
	"bytes"
	"context"
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
