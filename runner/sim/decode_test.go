package sim

import (
	"os"
	"path/filepath"
	"testing"
)

// FuzzDecodeGen feeds request bodies (seeded from testdata/requests) to
// the request decoder for both endpoints: it must never panic, and what it
// accepts must be a request the engine can run.
func FuzzDecodeGen(f *testing.F) {
	files, err := filepath.Glob(filepath.Join("testdata", "requests", "*.json"))
	if err != nil || len(files) == 0 {
		f.Fatalf("no seeds: %v", err)
	}
	for _, name := range files {
		b, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b, true)
		f.Add(b, false)
	}
	s := New(DefaultProfile())
	f.Cleanup(s.Close)
	f.Fuzz(func(t *testing.T, body []byte, chat bool) {
		d, err := s.decodeGen(body, chat)
		if err != nil {
			return
		}
		p := &s.p
		if d.promptTokens < 1 || d.maxTokens < 1 || d.promptTokens+d.maxTokens > p.MaxModelLen ||
			d.req.MinTokens < 0 || d.req.MinTokens > d.maxTokens || d.promptTokens >= p.KVTokens {
			t.Fatalf("accepted an unrunnable request: prompt %d, max %d, min %d", d.promptTokens, d.maxTokens, d.req.MinTokens)
		}
		if got := s.tok.Count(d.text); !chat && got != d.promptTokens {
			t.Fatalf("prompt text counts %d tokens, decoder said %d", got, d.promptTokens)
		}
	})
}

func TestDecodeGenSeeds(t *testing.T) {
	s := New(DefaultProfile())
	defer s.Close()
	cases := []struct {
		file    string
		chat    bool
		ok      bool
		prompt  int64
		max     int64
		stream  bool
		minToks int64
	}{
		{"chat.json", true, true, 2 + 3, 64, true, 0},
		{"chat_parts.json", true, true, 3, 8, false, 2},
		{"completion.json", false, true, 4, 16, true, 0},
		{"completion_array.json", false, true, 4, 16, false, 0},
		{"too_long.json", false, false, 1, 0, false, 0},
		{"null_content.json", true, true, 2, 32768 - 2, false, 0},
		{"completion.json", true, false, 0, 0, false, 0}, // no messages
	}
	for _, tc := range cases {
		t.Run(tc.file, func(t *testing.T) {
			b, err := os.ReadFile(filepath.Join("testdata", "requests", tc.file))
			if err != nil {
				t.Fatal(err)
			}
			d, err := s.decodeGen(b, tc.chat)
			if (err == nil) != tc.ok {
				t.Fatalf("error %v, want ok %v", err, tc.ok)
			}
			if !tc.ok {
				return
			}
			if d.promptTokens != tc.prompt || d.maxTokens != tc.max || d.req.Stream != tc.stream || d.req.MinTokens != tc.minToks {
				t.Errorf("prompt %d max %d stream %v min %d", d.promptTokens, d.maxTokens, d.req.Stream, d.req.MinTokens)
			}
		})
	}
}
