package sim

import (
	"bytes"
	"flag"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"testing"
	"time"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/golden")

// golden compares got with testdata/golden/name, or rewrites it with
// -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", "golden", name)
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./runner/sim -update)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file:\n got: %s\nwant: %s", name, got, want)
	}
}

// createdRE matches the only time-dependent field of the wire format.
var createdRE = regexp.MustCompile(`"created":\d+`)

// TestWireGolden pins the exact SSE bytes the writer produces for a fixed
// sequence of writes (role chunk, two token chunks, end), so a change of
// the wire format shows up as a diff.
func TestWireGolden(t *testing.T) {
	cases := []struct {
		name    string
		chat    bool
		profile func(*Profile)
		opts    *streamOptions
		fault   *Fault
	}{
		{"chat_usage.sse", true, nil, &streamOptions{IncludeUsage: true}, nil},
		{"chat_reasoning_continuous.sse", true, func(p *Profile) { p.Reasoning, p.ReasoningTokens = true, 3 }, &streamOptions{ContinuousUsageStats: true}, nil},
		{"chat_reasoning_field_finish_chunk.sse", true, func(p *Profile) {
			p.Reasoning, p.ReasoningTokens, p.ReasoningField, p.FinishChunk = true, 3, "reasoning", true
		}, nil, nil},
		{"completions.sse", false, nil, &streamOptions{IncludeUsage: true}, nil},
		{"completions_no_done.sse", false, nil, nil, &Fault{Kind: FaultNoDone}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := DefaultProfile()
			if tc.profile != nil {
				tc.profile(&p)
			}
			s := New(p)
			defer s.Close()
			w := httptest.NewRecorder()
			rec := &record{}
			rec.r.ID, rec.r.Start = "sim-golden", time.Unix(1_700_000_000, 0)
			st := &stream{
				s: s, w: w, rec: rec, chat: tc.chat, finish: "length", prompt: 7, fault: tc.fault,
				sq:  &seq{target: 5},
				ans: answer{seed: 42, loopAfter: -1},
				req: &genRequest{StreamOptions: tc.opts}, release: func() {},
			}
			if tc.chat && s.p.Reasoning {
				st.reasoning = int64(s.p.ReasoningTokens)
			}
			st.rc = http.NewResponseController(w)
			st.prefix = []byte(`data: {"id":"sim-golden","object":"x","created":0,"model":"sim","choices":[`)
			if tc.chat && !st.writeRole() {
				t.Fatal("role")
			}
			for _, span := range [][2]int64{{0, 3}, {3, 5}} {
				if !st.writeChunk(span[0], span[1], span[1] == 5 && !s.p.FinishChunk) {
					t.Fatal("chunk")
				}
				st.sent = span[1]
			}
			st.end()
			golden(t, tc.name, createdRE.ReplaceAll(w.Body.Bytes(), []byte(`"created":0`)))
			r := rec.snapshot(s.epoch)
			if r.OutputTokens != 5 || len(r.Chunks) != 2 || r.FinishReason != "length" {
				t.Errorf("record %+v", r)
			}
		})
	}
}

// TestHandlerGolden pins whole responses served through ServeHTTP: a
// non-streamed chat and completion, /tokenize, /v1/models and then
// /metrics, whose counters those requests determine.
func TestHandlerGolden(t *testing.T) {
	p := DefaultProfile()
	p.Reasoning, p.ReasoningTokens = true, 2
	s := New(p)
	defer s.Close()
	cases := []struct {
		name, method, path, body string
	}{
		{"chat.json", "POST", "/v1/chat/completions", `{"messages":[{"role":"user","content":"golden"}],"max_tokens":6,"ignore_eos":true}`},
		{"completion.json", "POST", "/v1/completions", `{"prompt":"golden","max_tokens":500,"min_tokens":3}`},
		{"tokenize.json", "POST", "/tokenize", `{"prompt":"golden prompt"}`},
		{"models.json", "GET", "/v1/models", ``},
		{"too_long.json", "POST", "/v1/completions", `{"prompt":"golden","max_tokens":32767}`},
		{"metrics.txt", "GET", "/metrics", ``},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			w := httptest.NewRecorder()
			s.ServeHTTP(w, httptest.NewRequest(tc.method, tc.path, bytes.NewBufferString(tc.body)))
			got := createdRE.ReplaceAll(w.Body.Bytes(), []byte(`"created":0`))
			golden(t, tc.name, append([]byte(w.Result().Status+"\n"), got...))
		})
	}
}
