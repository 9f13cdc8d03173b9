package sim

import (
	"context"
	"testing"
	"time"
)

// TestStrictChunks stalls the writer for 150 ms after 5 tokens while the
// engine keeps generating: a merging server sends the tokens that piled up
// as one event, a strict one sends each step as its own event, so the
// client sees exactly ChunkTokens tokens per event and the server's record
// has one chunk per event.
func TestStrictChunks(t *testing.T) {
	for _, tc := range []struct {
		name   string
		strict bool
		chunk  int
	}{
		{"merging", false, 1},
		{"strict", true, 1},
		{"strict-3", true, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := DefaultProfile()
			p.StrictChunks, p.ChunkTokens = tc.strict, tc.chunk
			p.Faults = []Fault{{Kind: FaultStall, Every: 1, AfterTokens: 6, Duration: 150 * time.Millisecond}}
			s, c := startSim(t, p)
			r, err := c.post(context.Background(), "/v1/chat/completions", chatBody("hello", 60, nil))
			if err != nil {
				t.Fatal(err)
			}
			counts, _, _ := r.tokenEvents()
			var rec RequestRecord
			for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(time.Millisecond) {
				rec = s.Requests()[0]
				if !rec.Finished.IsZero() || time.Now().After(deadline) {
					break
				}
			}
			if sum(counts) != 60 || rec.OutputTokens != 60 || len(rec.Chunks) != len(counts) {
				t.Fatalf("client %d tokens in %d events; truth %d tokens in %d chunks", sum(counts), len(counts), rec.OutputTokens, len(rec.Chunks))
			}
			biggest := 0
			for _, n := range counts {
				biggest = max(biggest, n)
			}
			if tc.strict && biggest != tc.chunk {
				t.Errorf("strict server sent an event of %d tokens (chunk %d): %v", biggest, tc.chunk, counts)
			}
			if !tc.strict && biggest < 30 {
				t.Errorf("merging server sent at most %d tokens per event after a 150 ms stall: %v", biggest, counts)
			}
		})
	}
}
