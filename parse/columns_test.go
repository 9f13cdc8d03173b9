package parse

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"speedmatrix/schema"
)

func TestBuildHeaderVariants(t *testing.T) {
	doc := `Qwen on 2× H100 80GB
All measurements
| context | PHASE | concurrency | status | Total Tok/s | per-request tok/s | TTFT (ms) | TBT | Avg active requests | Completed | Output tokens | Measured for | p99 TTFT | Notes |
|---|---|---|---|---|---|---|---|---|---|---|---|---|---|
| 8K | Decode | 4 | OK | 1.2K | 300.5 | 41 | 3.1 ms | 4.0 | 8 | 9,756 | 500 ms | 1.2 s | warm |
| 16K | Prefill | 1 | valid | 57.5K | — | 282 | — | — | 1 | — | — | — | — |
| 16K | decode | 8 | Error | — | — | — | — | — | — | — | — | — | timeouts |
| 16K | decode | 16 | Skipped | — | — | — | — | — | — | — | — | — | — |
| 16K | Decode (sustained) | 32 | Over capacity (KV cache) | — | — | — | — | — | — | — | — | — | — |
`
	m, err := ParseBytes([]byte(doc), "variants.txt", schema.FormatText)
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Measurements) != 5 {
		t.Fatalf("%d rows, want 5", len(m.Measurements))
	}
	d := m.Measurements[0]
	check := func(what string, got *float64, want float64) {
		t.Helper()
		if got == nil || *got != want {
			t.Errorf("%s = %v, want %v", what, fmtPtr(got), want)
		}
	}
	if d.Phase != schema.PhaseDecode || d.ContextLabel != "8K" || *d.ContextTokens != 8192 || *d.Concurrency != 4 || d.Status != schema.StatusValid {
		t.Errorf("row 0 = %+v", d)
	}
	check("total", d.TotalTokS, 1200)
	check("per request", d.PerRequestTokS, 300.5)
	check("ttft", d.TTFTMs, 41)
	check("tbt", d.TBTMs, 3.1)
	check("avg active", d.AvgActiveRequests, 4)
	check("measured", d.MeasuredS, 0.5)
	if d.CompletedRequests == nil || *d.CompletedRequests != 8 || d.OutputTokens == nil || *d.OutputTokens != 9756 {
		t.Errorf("counts = %v %v", d.CompletedRequests, d.OutputTokens)
	}
	if len(d.Extra) != 1 || d.Extra[0] != (schema.Metric{Name: "p99_ttft_s", Value: 1.2}) {
		t.Errorf("extra = %+v, want p99_ttft_s 1.2", d.Extra)
	}
	if len(d.Printed) != 14 || d.Printed[13] != (schema.KV{Key: "Notes", Value: "warm"}) || d.Printed[0] != (schema.KV{Key: "context", Value: "8K"}) {
		t.Errorf("printed = %+v", d.Printed)
	}
	if d.SourceLine != 5 {
		t.Errorf("source line %d, want 5", d.SourceLine)
	}
	if m.Measurements[1].Phase != schema.PhasePrefill || *m.Measurements[1].TotalTokS != 57500 {
		t.Errorf("row 1 = %+v", m.Measurements[1])
	}
	if m.Measurements[2].Status != schema.StatusError || m.Measurements[3].Status != schema.StatusSkipped ||
		m.Measurements[4].Status != schema.StatusOverCapacity || m.Measurements[4].Phase != schema.PhaseDecode {
		t.Errorf("statuses %v %v %v", m.Measurements[2].Status, m.Measurements[3].Status, m.Measurements[4].Status)
	}
	if m.Run.Model != "Qwen" || m.Run.GPU != "H100" || m.Run.GPUCount == nil || *m.Run.GPUCount != 2 || *m.Run.VRAMGB != 80 {
		t.Errorf("run from title: model %q gpu %q count %v vram %v", m.Run.Model, m.Run.GPU, m.Run.GPUCount, m.Run.VRAMGB)
	}
}

func fmtPtr(p *float64) string {
	if p == nil {
		return "null"
	}
	return fmt.Sprint(*p)
}

// TestKeyStartsWithDigit checks keyStartsWithDigit against the key
// appendHeaderKey gives, on random texts of digits, letters, blanks,
// punctuation and non-ASCII letters (the Kelvin sign lower-cases to k).
func TestKeyStartsWithDigit(t *testing.T) {
	pieces := []string{"1", "32", ".", ",", " ", "-", "(", "Valid", "ms", "K", "\u212a", "é", "—", "\xff", "|"}
	r := rand.New(rand.NewPCG(19, 20))
	digits := 0
	for range 50000 {
		s := randomText(r, pieces, 6)
		k := appendHeaderKey(nil, s)
		want := len(k) > 0 && k[0] >= '0' && k[0] <= '9'
		got := keyStartsWithDigit(s)
		if got && !want {
			t.Fatalf("keyStartsWithDigit(%q) is true, the key is %q", s, k)
		}
		if got {
			digits++
		}
	}
	if digits < 5000 {
		t.Errorf("only %d texts start with a digit", digits)
	}
}
