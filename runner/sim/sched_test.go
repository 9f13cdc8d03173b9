package sim

import (
	"bytes"
	"context"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"speedmatrix/internal/testtool"
)

// scrape returns the simulator's /metrics values by name (first series).
func scrape(t *testing.T, c *testClient) map[string]float64 {
	t.Helper()
	_, b := c.get(t, "/metrics")
	tp := expfmt.NewTextParser(model.LegacyValidation)
	fams, err := tp.TextToMetricFamilies(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]float64{}
	for name, f := range fams {
		for _, m := range f.GetMetric() {
			switch {
			case m.Gauge != nil:
				out[name] += m.GetGauge().GetValue()
			case m.Counter != nil:
				out[name] += m.GetCounter().GetValue()
			}
		}
	}
	return out
}

func TestPrefixCache(t *testing.T) {
	p := DefaultProfile()
	// A slow prefill (100 ms for the cold prompt) keeps the TTFT
	// comparison clear of scheduling noise on a busy machine.
	p.PrefillTokS = []RatePoint{{Context: 1, TokS: 20_000}}
	s, c := startSim(t, p)
	base := proseOfTokens("tagA", 2000)
	cases := []struct {
		name   string
		prompt string
		cached int64
	}{
		{"cold", base, 0},
		{"same", base, 1999}, // all 125 blocks hit; the last token is always computed
		{"other_tag", "tagB" + base[4:], 0},
		{"shared_half", base[:4000] + proseOfTokens("tagC", 1000), 992}, // 62 whole blocks of 16
	}
	var hits int64
	lag := testtool.StartSchedLag()
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r, err := c.post(context.Background(), "/v1/completions", map[string]any{"prompt": tc.prompt, "max_tokens": 1, "stream": true})
			if err != nil || r.Status != 200 {
				t.Fatalf("%v %+v", err, r)
			}
			rec := s.Requests()[i]
			if rec.CachedTokens != tc.cached || rec.PromptTokens != 2000 {
				t.Errorf("cached %d of %d prompt tokens, want %d of 2000", rec.CachedTokens, rec.PromptTokens, tc.cached)
			}
			hits += tc.cached
		})
	}
	_, _, lagMax := lag.End()
	recs := s.Requests()
	cold, warm := recs[0].FirstToken.Sub(recs[0].Start), recs[1].FirstToken.Sub(recs[1].Start)
	want := time.Duration(2000 / s.p.PrefillRate(2000) * float64(time.Second))
	t.Logf("TTFT cold %v (prefill alone %v), warm %v, scheduling lag max %v", cold, want, warm, lagMax)
	// The stamps are the handlers' writes: a late one moves a TTFT by up
	// to the process's scheduling lag, never below the prefill's sleep.
	if cold < want || warm-lagMax >= cold {
		t.Errorf("TTFT cold %v (want ≥ %v), warm %v", cold, want, warm)
	}
	m := scrape(t, c)
	if m["vllm:prefix_cache_hits_total"] != float64(hits) || m["vllm:prefix_cache_queries_total"] != 4*2000 || m["vllm:prompt_tokens_total"] != 4*2000 {
		t.Errorf("metrics hits %v queries %v prompt %v; want %d, 8000, 8000", m["vllm:prefix_cache_hits_total"], m["vllm:prefix_cache_queries_total"], m["vllm:prompt_tokens_total"], hits)
	}
}

func TestPrefixCacheEviction(t *testing.T) {
	c := newPrefixCache(4)
	a := []uint64{1, 2, 3}
	b := []uint64{10, 11, 12}
	c.insert(a)
	c.insert(b) // 6 blocks > 4: a's tail is evicted first, then its head
	if n := c.lookup(b); n != 3 {
		t.Errorf("b: %d blocks cached, want 3", n)
	}
	if n := c.lookup(a); n != 1 {
		t.Errorf("a: %d blocks cached, want 1 (its first block)", n)
	}
	if newPrefixCache(0).lookup(a) != 0 {
		t.Error("disabled cache hit")
	}
}

// runConcurrent sends n identical-shaped streaming requests at once and
// waits for them, polling /metrics meanwhile.
func runConcurrent(t *testing.T, c *testClient, n int, prompt func(i int) string, maxTokens int) (maxRunning, maxWaiting float64) {
	t.Helper()
	var wg sync.WaitGroup
	results := make([]*result, n)
	for i := range n {
		wg.Go(func() {
			r, err := c.post(context.Background(), "/v1/completions", map[string]any{
				"prompt": prompt(i), "max_tokens": maxTokens, "ignore_eos": true, "stream": true,
			})
			if err != nil {
				t.Error(err)
				return
			}
			results[i] = r
		})
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	for {
		m := scrape(t, c)
		maxRunning = max(maxRunning, m["vllm:num_requests_running"])
		maxWaiting = max(maxWaiting, m["vllm:num_requests_waiting"])
		select {
		case <-done:
			for i, r := range results {
				if r == nil || r.Status != 200 || !r.sawDone() {
					t.Fatalf("request %d: %+v", i, r)
				}
			}
			return
		case <-time.After(5 * time.Millisecond):
		}
	}
}

func TestQueueing(t *testing.T) {
	cases := []struct {
		name        string
		profile     func(*Profile)
		n           int
		prompt      int
		maxTokens   int
		wantRunning float64 // most running at once
		preempts    bool
	}{
		{"max_running", func(p *Profile) { p.MaxRunning = 2 }, 4, 100, 150, 2, false},
		{"kv_budget", func(p *Profile) { p.KVTokens = 3000 }, 3, 1100, 150, 2, false}, // 3×1100 > 3000; 2×1250 fits
		{"preemption", func(p *Profile) { p.KVTokens = 3000 }, 2, 1000, 800, 2, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := DefaultProfile()
			p.StepBase = time.Millisecond
			tc.profile(&p)
			s, c := startSim(t, p)
			lag := testtool.StartSchedLag()
			maxRunning, maxWaiting := runConcurrent(t, c, tc.n, func(i int) string { return proseOfTokens(string(rune('a'+i)), tc.prompt) }, tc.maxTokens)
			if maxRunning != tc.wantRunning || (!tc.preempts && maxWaiting < float64(tc.n)-tc.wantRunning) {
				t.Errorf("at most %v running and %v waiting; want %v running, %v waiting", maxRunning, maxWaiting, tc.wantRunning, float64(tc.n)-tc.wantRunning)
			}
			_, _, lagMax := lag.End()
			recs := s.Requests()
			var preempted int
			for _, r := range recs {
				if r.OutputTokens != int64(tc.maxTokens) || r.Err != "" {
					t.Errorf("request %d: %d tokens, err %q", r.N, r.OutputTokens, r.Err)
				}
				preempted += r.Preemptions
			}
			m := scrape(t, c)
			if tc.preempts != (preempted > 0) || m["vllm:num_preemptions_total"] != float64(preempted) {
				t.Errorf("%d preemptions recorded, %v in /metrics; want some: %v", preempted, m["vllm:num_preemptions_total"], tc.preempts)
			}
			if !tc.preempts {
				// Queued requests start only after a running one ends. The
				// stamps are the handlers' (after their writes), so one may
				// be late by the process's scheduling lag; a queued request
				// that started early would be early by a whole request
				// (150 steps).
				first := recs[0].Finished
				for _, r := range recs[:int(tc.wantRunning)] {
					if r.Finished.Before(first) {
						first = r.Finished
					}
				}
				late := 0
				for _, r := range recs {
					if r.FirstToken.After(first.Add(-2*time.Millisecond - lagMax)) {
						late++
					}
				}
				if late < tc.n-int(tc.wantRunning) {
					t.Errorf("%d requests got a first token after the first finish, want %d", late, tc.n-int(tc.wantRunning))
				}
			}
			if m["vllm:num_requests_running"] != 0 || m["vllm:kv_cache_usage_perc"] != 0 {
				t.Errorf("after the run: running %v, KV usage %v", m["vllm:num_requests_running"], m["vllm:kv_cache_usage_perc"])
			}
		})
	}
}

func TestSpecDecodeMetrics(t *testing.T) {
	cases := []struct {
		name                     string
		k                        int
		tokens                   int
		drafts, draftTok, accept float64
		present                  bool
	}{
		// The step that ends the prefill yields 3 tokens; then steps of
		// 3, 3 and the last 1: three drafts of 2 tokens, 2+2+0 accepted.
		{"mtp3", 3, 10, 3, 6, 4, true},
		{"none", 1, 10, 0, 0, 0, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := DefaultProfile()
			p.ChunkTokens = tc.k
			_, c := startSim(t, p)
			r, err := c.post(context.Background(), "/v1/completions", map[string]any{"prompt": "x", "max_tokens": tc.tokens, "ignore_eos": true, "stream": true})
			if err != nil || r.Status != 200 {
				t.Fatalf("%v %+v", err, r)
			}
			m := scrape(t, c)
			_, present := m["vllm:spec_decode_num_drafts_total"]
			if present != tc.present || m["vllm:spec_decode_num_drafts_total"] != tc.drafts ||
				m["vllm:spec_decode_num_draft_tokens_total"] != tc.draftTok || m["vllm:spec_decode_num_accepted_tokens_total"] != tc.accept {
				t.Errorf("present %v, drafts %v, draft tokens %v, accepted %v", present,
					m["vllm:spec_decode_num_drafts_total"], m["vllm:spec_decode_num_draft_tokens_total"], m["vllm:spec_decode_num_accepted_tokens_total"])
			}
		})
	}
}

// TestCachedTokenCost checks that with CachedTokS a warm prompt's TTFT
// includes its cached tokens at that rate.
func TestCachedTokenCost(t *testing.T) {
	cases := []struct {
		name    string
		rate    float64
		minTTFT time.Duration
		maxTTFT time.Duration
	}{
		{"free", 0, 0, 50 * time.Millisecond},
		{"20k", 20_000, 2000 * time.Second / 20_000, 2 * time.Second},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := DefaultProfile()
			p.CachedTokS = tc.rate
			s, c := startSim(t, p)
			prompt := proseOfTokens("warm", 2000)
			lag := testtool.StartSchedLag()
			for range 2 {
				if r, err := c.post(context.Background(), "/v1/completions", map[string]any{"prompt": prompt, "max_tokens": 1, "stream": true}); err != nil || r.Status != 200 {
					t.Fatalf("%v %+v", err, r)
				}
			}
			_, _, lagMax := lag.End()
			warm := s.Requests()[1]
			ttft := warm.FirstToken.Sub(warm.Start)
			t.Logf("warm TTFT %v with %d cached tokens, scheduling lag max %v", ttft, warm.CachedTokens, lagMax)
			// The upper bound is the model's plus what the machine's load
			// can add to a handler's stamps (the process's scheduling lag,
			// twice: the request's way in and the token's way out).
			if warm.CachedTokens != 1999 || ttft < tc.minTTFT || ttft > tc.maxTTFT+2*lagMax {
				t.Errorf("cached %d, TTFT %v; want 1999 cached, TTFT in [%v, %v]", warm.CachedTokens, ttft, tc.minTTFT, tc.maxTTFT)
			}
		})
	}
}
