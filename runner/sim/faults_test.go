package sim

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

func TestFaults(t *testing.T) {
	cases := []struct {
		name  string
		fault Fault
		check func(t *testing.T, r *result, rec RequestRecord)
	}{}
	for _, status := range []int{400, 429, 500, 503} {
		cases = append(cases, struct {
			name  string
			fault Fault
			check func(t *testing.T, r *result, rec RequestRecord)
		}{
			name:  "http_" + strconv.Itoa(status),
			fault: Fault{Kind: FaultHTTPStatus, Every: 1, Status: status},
			check: func(t *testing.T, r *result, rec RequestRecord) {
				if r.Status != status || !strings.Contains(string(r.Body), `"error"`) {
					t.Errorf("status %d body %s", r.Status, r.Body)
				}
				if rec.Status != status || rec.OutputTokens != 0 || rec.Err == "" || rec.Fault == "" {
					t.Errorf("record %+v", rec)
				}
			},
		})
	}
	more := []struct {
		name  string
		fault Fault
		check func(t *testing.T, r *result, rec RequestRecord)
	}{
		{"stream_error", Fault{Kind: FaultStreamError, Every: 1, AfterTokens: 5}, func(t *testing.T, r *result, rec RequestRecord) {
			counts, _, _ := r.tokenEvents()
			if sum(counts) != 5 || rec.OutputTokens != 5 {
				t.Errorf("client %d tokens, truth %d; want 5", sum(counts), rec.OutputTokens)
			}
			var sawErr bool
			for _, ev := range r.Events {
				sawErr = sawErr || ev.Error != nil
			}
			if r.Status != 200 || !sawErr || !r.sawDone() || !strings.Contains(rec.Err, "stream error") {
				t.Errorf("status %d, error event %v, done %v, record err %q", r.Status, sawErr, r.sawDone(), rec.Err)
			}
		}},
		{"reset", Fault{Kind: FaultReset, Every: 1, AfterTokens: 5}, func(t *testing.T, r *result, rec RequestRecord) {
			counts, _, _ := r.tokenEvents()
			if sum(counts) != 5 || rec.OutputTokens != 5 {
				t.Errorf("client %d tokens, truth %d; want 5", sum(counts), rec.OutputTokens)
			}
			if !errors.Is(r.ReadErr, syscall.ECONNRESET) || !strings.Contains(rec.Err, "reset") {
				t.Errorf("read error %v, record err %q", r.ReadErr, rec.Err)
			}
		}},
		{"stall", Fault{Kind: FaultStall, Every: 1, AfterTokens: 5, Duration: 150 * time.Millisecond}, func(t *testing.T, r *result, rec RequestRecord) {
			if rec.OutputTokens != 40 || rec.Err != "" || !r.sawDone() {
				t.Fatalf("record %+v", rec)
			}
			var cum int
			var gap time.Duration
			for i := 1; i < len(rec.Chunks); i++ {
				cum += rec.Chunks[i-1].Tokens
				if cum == 5 {
					gap = rec.Chunks[i].At.Sub(rec.Chunks[i-1].At)
				}
			}
			if gap < 150*time.Millisecond {
				t.Errorf("gap after token 5 is %v, want ≥ 150ms", gap)
			}
			// The engine kept generating: the next chunk carries the rest.
			if last := rec.Chunks[len(rec.Chunks)-1]; last.Tokens < 30 {
				t.Errorf("chunk after the stall carried %d tokens", last.Tokens)
			}
		}},
		{"no_done", Fault{Kind: FaultNoDone, Every: 1}, func(t *testing.T, r *result, rec RequestRecord) {
			if r.sawDone() || r.ReadErr != nil || r.finalUsage() == nil || r.finalUsage().CompletionTokens != 40 {
				t.Errorf("done %v, read error %v, usage %+v", r.sawDone(), r.ReadErr, r.finalUsage())
			}
			if rec.Err != "" || rec.OutputTokens != 40 || rec.Finished.IsZero() {
				t.Errorf("record %+v", rec)
			}
		}},
		{"long_line", Fault{Kind: FaultLongLine, Every: 1, AfterTokens: 3}, func(t *testing.T, r *result, rec RequestRecord) {
			var longest int
			for _, ev := range r.Events {
				longest = max(longest, len(ev.Raw))
			}
			counts, _, _ := r.tokenEvents()
			if longest < 1<<20 || sum(counts) != 40 || rec.OutputTokens != 40 {
				t.Errorf("longest event %d bytes, client %d tokens, truth %d", longest, sum(counts), rec.OutputTokens)
			}
		}},
	}
	cases = append(cases, more...)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := DefaultProfile()
			p.Faults = []Fault{tc.fault}
			s, c := startSim(t, p)
			r, err := c.post(context.Background(), "/v1/chat/completions", chatBody("hello", 40, nil))
			if err != nil {
				t.Fatal(err)
			}
			// A reset or error is recorded when the handler returns,
			// which can be just after the client saw it.
			var rec RequestRecord
			for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(time.Millisecond) {
				rec = s.Requests()[0]
				if !rec.Finished.IsZero() || time.Now().After(deadline) {
					break
				}
			}
			tc.check(t, r, rec)
		})
	}
}

// TestFaultSchedule checks Every and Rate: which requests a fault hits.
func TestFaultSchedule(t *testing.T) {
	cases := []struct {
		name    string
		fault   Fault
		n       int
		minHits int
		maxHits int
	}{
		{"every_3", Fault{Kind: FaultHTTPStatus, Status: 503, Every: 3}, 12, 4, 4},
		{"rate_half", Fault{Kind: FaultHTTPStatus, Status: 429, Rate: 0.5}, 40, 10, 30},
		{"rate_zero", Fault{Kind: FaultHTTPStatus, Status: 429}, 10, 0, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := DefaultProfile()
			p.Faults = []Fault{tc.fault}
			var runs [2][]int
			for run := range runs {
				s, c := startSim(t, p)
				for range tc.n {
					r, err := c.post(context.Background(), "/v1/completions", map[string]any{"prompt": "x", "max_tokens": 1})
					if err != nil {
						t.Fatal(err)
					}
					runs[run] = append(runs[run], r.Status)
				}
				hits := 0
				for i, rec := range s.Requests() {
					if rec.Status != runs[run][i] {
						t.Errorf("request %d: client status %d, truth %d", i+1, runs[run][i], rec.Status)
					}
					if rec.Status != 200 {
						hits++
						if tc.fault.Every > 0 && (i+1)%tc.fault.Every != 0 {
							t.Errorf("request %d hit by an every-%d fault", i+1, tc.fault.Every)
						}
					}
				}
				if hits < tc.minHits || hits > tc.maxHits {
					t.Errorf("%d of %d requests hit, want %d–%d", hits, tc.n, tc.minHits, tc.maxHits)
				}
			}
			// The same seed hits the same requests.
			for i := range runs[0] {
				if runs[0][i] != runs[1][i] {
					t.Fatalf("runs differ at request %d: %v vs %v", i+1, runs[0], runs[1])
				}
			}
		})
	}
}

func TestLooping(t *testing.T) {
	cases := []struct {
		name      string
		loopAfter int
		cells     []LoopCell
		prompt    int
		wantLoop  bool
	}{
		{"never", 0, nil, 10, false},
		{"all", 20, nil, 10, true},
		{"cell_match", 20, []LoopCell{{ContextLabel: "1K", Concurrency: 1}}, 1100, true},
		{"cell_other_context", 20, []LoopCell{{ContextLabel: "2K", Concurrency: 1}}, 1100, false},
		{"cell_other_concurrency", 20, []LoopCell{{ContextLabel: "1K", Concurrency: 2}}, 1100, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := DefaultProfile()
			p.LoopAfter, p.LoopCells = tc.loopAfter, tc.cells
			_, c := startSim(t, p)
			r, err := c.post(context.Background(), "/v1/completions", map[string]any{
				"prompt": proseOfTokens("q", tc.prompt), "max_tokens": 300, "ignore_eos": true, "stream": true,
			})
			if err != nil || r.Status != 200 {
				t.Fatalf("%v %+v", err, r)
			}
			_, content, _ := r.tokenEvents()
			words := strings.Fields(content)
			period := len(loopText)
			looped := true
			for i := 20 + period; i < len(words); i++ {
				if words[i] != words[i-period] {
					looped = false
					break
				}
			}
			if looped != tc.wantLoop {
				t.Errorf("looped = %v, want %v; text %q…", looped, tc.wantLoop, truncate([]byte(content), 300))
			}
		})
	}
}

func sum(xs []int) int {
	n := 0
	for _, x := range xs {
		n += x
	}
	return n
}

// TestFaultsNonStreaming checks the faults that apply to a whole
// (non-streamed) response.
func TestFaultsNonStreaming(t *testing.T) {
	cases := []struct {
		name   string
		fault  Fault
		status int
		errSub string
		tokens int64
	}{
		{"http_429", Fault{Kind: FaultHTTPStatus, Every: 1, Status: 429}, 429, "429", 0},
		{"stream_error", Fault{Kind: FaultStreamError, Every: 1}, 500, "500", 0},
		{"reset", Fault{Kind: FaultReset, Every: 1}, 0, "reset", 0},
		{"stall", Fault{Kind: FaultStall, Every: 1, Duration: 100 * time.Millisecond}, 200, "", 20},
		{"long_line", Fault{Kind: FaultLongLine, Every: 1, LineBytes: 2 << 20}, 200, "", 20},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := DefaultProfile()
			p.Faults = []Fault{tc.fault}
			s, c := startSim(t, p)
			t0 := time.Now()
			r, err := c.post(context.Background(), "/v1/completions", map[string]any{"prompt": "x", "max_tokens": 20, "ignore_eos": true})
			elapsed := time.Since(t0)
			var rec RequestRecord
			for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(time.Millisecond) {
				rec = s.Requests()[0]
				if !rec.Finished.IsZero() || time.Now().After(deadline) {
					break
				}
			}
			if tc.status == 0 {
				if err == nil || !errors.Is(err, syscall.ECONNRESET) && !strings.Contains(err.Error(), "EOF") {
					t.Errorf("error %v, want a reset; got %+v", err, r)
				}
			} else if err != nil || r.Status != tc.status {
				t.Fatalf("%v %+v", err, r)
			}
			if rec.OutputTokens != tc.tokens || (tc.errSub == "") != (rec.Err == "") || !strings.Contains(rec.Err, tc.errSub) {
				t.Errorf("record: %d tokens, err %q; want %d tokens, err with %q", rec.OutputTokens, rec.Err, tc.tokens, tc.errSub)
			}
			switch tc.fault.Kind {
			case FaultStall:
				if elapsed < 100*time.Millisecond {
					t.Errorf("answered after %v despite a 100 ms stall", elapsed)
				}
			case FaultLongLine:
				if len(r.Body) < 2<<20 {
					t.Errorf("body of %d bytes, want ≥ 2 MiB", len(r.Body))
				}
			}
		})
	}
}

// TestLoopCellsClosedLoop checks that in a closed loop of C streams (a
// finished request is resent at once) every request sees C in flight, so a
// looped cell loops on every request and its neighbours on none.
func TestLoopCellsClosedLoop(t *testing.T) {
	cases := []struct {
		name  string
		c     int
		loops bool
	}{
		{"looped_cell", 2, true},
		{"neighbour_below", 1, false},
		{"neighbour_above", 3, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := DefaultProfile()
			// The decision falls 500 tokens (≈100 ms) into each answer, so a
			// request resent late by a starved client is back in the
			// server by then.
			p.LoopAfter, p.LoopCells = 500, []LoopCell{{ContextLabel: "0K", Concurrency: 2}}
			_, c := startSim(t, p)
			var mu sync.Mutex
			looped := map[string]bool{} // by response id
			var wg sync.WaitGroup
			for range tc.c {
				wg.Go(func() {
					for range 5 {
						r, err := c.post(context.Background(), "/v1/completions", map[string]any{"prompt": "loop", "max_tokens": 1000, "ignore_eos": true, "stream": true})
						if err != nil || r.Status != 200 || len(r.Events) == 0 {
							t.Errorf("%v %+v", err, r)
							return
						}
						_, content, _ := r.tokenEvents()
						mu.Lock()
						looped[r.Events[0].ID] = isLoop(strings.Fields(content), 500)
						mu.Unlock()
					}
				})
			}
			wg.Wait()
			for n := 1; n <= 5*tc.c; n++ {
				id := "cmpl-sim" + strconv.Itoa(n)
				if got, ok := looped[id]; !ok || got != tc.loops {
					t.Errorf("%s: looped %v (seen %v), want %v", id, got, ok, tc.loops)
				}
			}
		})
	}
}

// isLoop reports whether words repeat loopText from word from on.
func isLoop(words []string, from int) bool {
	period := len(loopText)
	if len(words) < from+2*period {
		return false
	}
	for i := from; i < len(words); i++ {
		if words[i] != strings.TrimSpace(loopText[(i-from)%period]) {
			return false
		}
	}
	return true
}
