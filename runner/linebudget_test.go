package runner

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"runtime/metrics"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

func TestLineBudgetTakeGive(t *testing.T) {
	b := newLineBudget(100)
	steps := []struct {
		take, give int64
		ok         bool
		used       int64
	}{
		{take: 60, ok: true, used: 60},
		{take: 41, ok: false, used: 60},
		{take: 40, ok: true, used: 100},
		{give: 60, used: 40},
		{take: 1, ok: true, used: 41},
	}
	for i, s := range steps {
		if s.give > 0 {
			b.give(s.give)
		} else if ok := b.take(s.take); ok != s.ok {
			t.Fatalf("step %d: take(%d) = %v", i, s.take, ok)
		}
		if u := b.used.Load(); u != s.used {
			t.Fatalf("step %d: used %d, want %d", i, u, s.used)
		}
	}
	if p := b.peak.Load(); p != 100 {
		t.Fatalf("peak %d, want 100", p)
	}
	if newLineBudget(0).limit != DefaultLineBufferBytes {
		t.Fatal("zero limit is not the default")
	}
}

// TestSSEReaderBudget reads long lines through a budgeted reader: a line
// that fits is returned whole and its buffer goes back to the budget once
// consumed; one that does not fails with errLineBudget.
func TestSSEReaderBudget(t *testing.T) {
	long := strings.Repeat("x", 300_000) // grows 32 KiB to 512 KiB
	pad := strings.Repeat(": keep-alive\n", 2000)
	tests := []struct {
		name    string
		limit   int64
		body    string
		want    []string
		wantErr bool
	}{
		{"fits", 1 << 20, "data: a\n\ndata: " + long + "\n\n" + pad + "data: b\n\n", []string{"a", long, "b"}, false},
		{"over", 256 << 10, "data: a\n\ndata: " + long + "\n\ndata: b\n\n", []string{"a"}, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := newLineBudget(tc.limit)
			rd := newSSEReader(smallReads{strings.NewReader(tc.body)}, nil)
			rd.budget = b
			var got []string
			var err error
			for {
				var p []byte
				p, _, err = rd.next()
				if err != nil {
					break
				}
				got = append(got, string(p))
				if len(p) == 1 && len(rd.buf) != len(rd.small) && p[0] == 'b' {
					t.Errorf("the reader still holds %d bytes after the long line", len(rd.buf))
				}
			}
			if len(got) != len(tc.want) {
				t.Fatalf("%d payloads, want %d", len(got), len(tc.want))
			}
			for i := range got {
				if got[i] != tc.want[i] {
					t.Fatalf("payload %d differs", i)
				}
			}
			if tc.wantErr != errors.Is(err, errLineBudget) || !tc.wantErr && err != io.EOF {
				t.Fatalf("error %v", err)
			}
			if b.peak.Load() > tc.limit {
				t.Fatalf("peak %d over the limit %d", b.peak.Load(), tc.limit)
			}
			rd.reset(nil)
			if u := b.used.Load(); u != 0 {
				t.Fatalf("%d bytes still reserved after reset", u)
			}
		})
	}
}

// smallReads returns at most 4 KiB per Read, as a socket does.
type smallReads struct{ r io.Reader }

func (s smallReads) Read(p []byte) (int, error) { return s.r.Read(p[:min(len(p), 4096)]) }

// TestLineBudgetBoundsMemory runs a cell of 16 streams against a server
// that answers every request with one endless SSE line. Each stream alone
// may grow a line to 64 MiB (1 GiB and more for 16 streams before the
// shared budget); with a 32 MiB budget the heap must stay within a few
// times that, and the cell must end with the budget named as its reason.
func TestLineBudgetBoundsMemory(t *testing.T) {
	const limit = 32 << 20
	chunk := []byte(strings.Repeat("a", 64<<10))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		if _, err := w.Write([]byte("data: ")); err != nil {
			return
		}
		for r.Context().Err() == nil {
			if _, err := w.Write(chunk); err != nil {
				return
			}
		}
	}))
	defer srv.Close()
	c, err := NewClient(ClientConfig{URL: srv.URL, Model: "m", MaxConns: 16, LineBufferBytes: limit})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()

	runtime.GC()
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(sample)
	base := sample[0].Value.Uint64()
	var peak atomic.Uint64
	done := make(chan struct{})
	go func() {
		s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
		tk := time.NewTicker(2 * time.Millisecond)
		defer tk.Stop()
		for {
			select {
			case <-done:
				return
			case <-tk.C:
				metrics.Read(s)
				if v := s[0].Value.Uint64(); v > peak.Load() {
					peak.Store(v)
				}
			}
		}
	}()
	pool := make([]*stream, 16)
	for i := range pool {
		pool[i] = newStream()
	}
	cfg := cellConfig{prompt: Prompt{Text: "x"}, concurrency: 16, duration: time.Second, maxTokens: 10,
		idle: 30 * time.Second, startTimeout: 60 * time.Second, maxConsecutiveErrors: 32}
	run := c.runCell(context.Background(), cfg, pool)
	close(done)
	grew := int64(peak.Load()) - int64(base)
	t.Logf("heap grew by %d MiB at most (budget %d MiB, reserved at most %d MiB); reason: %s",
		grew>>20, limit>>20, c.lines.peak.Load()>>20, run.errReason)
	// A doubling copy briefly holds the old buffer beside the new one,
	// and garbage waits for the collector: allow 4× the budget.
	if grew > 4*limit+16<<20 {
		t.Fatalf("heap grew by %d MiB with a %d MiB line budget", grew>>20, limit>>20)
	}
	if !strings.Contains(run.errReason, "line buffers") || !strings.Contains(run.errReason, "32 MiB in all") {
		t.Fatalf("cell reason %q does not name the line budget", run.errReason)
	}
	if c.lines.peak.Load() > limit {
		t.Fatalf("reserved %d bytes, over the %d budget", c.lines.peak.Load(), limit)
	}
	if u := c.lines.used.Load(); u != 0 {
		t.Fatalf("%d bytes still reserved after the cell", u)
	}
}
