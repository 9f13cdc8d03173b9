package report

import (
	"strings"
	"testing"

	"speedmatrix/analysis"
	"speedmatrix/schema"
)

// TestServeTargets asks -min-user-tps and -max-ttft of two serving runs
// (SGLang's bench_serving: TTFT and throughput per request rate, no TBT,
// no per-request speed): each is answered per context from the serving
// points, and a run without the figure a target needs says so (issue
// 24: they printed nothing and said nothing).
func TestServeTargets(t *testing.T) {
	p := pairs[2] // sglang: serving runs only
	p.opt = Options{MinUserTokS: 20, SLO: analysis.SLO{MaxTTFTMs: 500}}
	r := build(t, p)
	got := map[string]string{} // question @context: run → answer
	for _, a := range r.Summary.Answers {
		if a.Phase != schema.PhaseServe {
			continue
		}
		for _, pk := range a.Runs {
			got[a.Question+" @"+a.Context+" "+pk.Run] = pickText(pk)
		}
	}
	for q, want := range map[string]string{
		// TTFT p50 at 513 tokens: 85.7, 87.6, 106.1, 191.4 ms at 1–8/s,
		// 614.2 ms at 16/s: 8/s is the most that meets 500 ms.
		"most serving total tok/s with TTFT ≤ 500 ms (medians) @513 21c3e959":         "3,515.0 tok/s (8/s)",
		"most serving total tok/s with TTFT ≤ 500 ms (medians) @1 8190a940":           "none (no load meets it)",
		"most serving total tok/s with ≥ 20 tok/s per request (median) @225 21c3e959": "none (no per-request tok/s reported)",
	} {
		if got[q] != want {
			t.Errorf("%s: %q, want %q (all: %q)", q, got[q], want, got)
		}
	}
	var b strings.Builder
	if err := r.Write(&b, FormatText, ""); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "most serving total tok/s with TTFT ≤ 500 ms") {
		t.Errorf("the text report does not print the serving answers:\n%s", b.String())
	}
}
