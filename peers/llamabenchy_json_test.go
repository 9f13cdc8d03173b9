package peers

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"speedmatrix/schema"
)

// TestLlamaBenchyForms reads llama-benchy's real JSON result and the
// Markdown table and CSV llama-benchy prints for the same benchmarks
// (derived from the JSON by its own formatting rules, SYNTHETIC.md): each
// is named llama-benchy, and all three give the same cells with the same
// mean figures, the total and the per-request rate apart at concurrency
// 2 (before, a Markdown row at (c2) gave the total as one request's rate).
func TestLlamaBenchyForms(t *testing.T) {
	// The per-cell means of llama-benchy-0.2.2-sample.json, read by hand:
	// pp_throughput / tg_throughput, *_req_throughput, e2e_ttft.
	type want struct {
		cell       string
		total, req float64
		ttft       float64 // prefill only
	}
	wants := []want{
		{"prefill|2K|1", 987.0987514675164, 0, 2076.0429790243506},
		{"prefill|2K|2", 1968.4985947536325, 0, 2076.97},
		{"decode|0|1", 49.97785098352942, 49.97785098352942, 0},
		{"decode|0|2", 98.70484912562281, 49.92, 0},
	}
	for _, tt := range []struct {
		file string
		tol  float64 // the form's rounding
	}{
		{"llama-benchy/llama-benchy-0.2.2-sample.json", 1e-9},
		{"llama-benchy/llama-benchy-0.2.2-sample.csv", 1e-9},
		{"llama-benchy/llama-benchy-0.2.2-sample.md", 0.005},
	} {
		t.Run(tt.file, func(t *testing.T) {
			m, err := readPeer(t, tt.file)
			if err != nil {
				t.Fatal(err)
			}
			if m.Run.SourceFormat != FormatLlamaBenchy || m.Run.Model != "test" {
				t.Errorf("format %q model %q", m.Run.SourceFormat, m.Run.Model)
			}
			// Mean over repeats per cell.
			type agg struct{ total, req, ttft, n float64 }
			got := map[string]*agg{}
			for _, c := range m.Measurements {
				k := fmt.Sprintf("%s|%s|%d", c.Phase, c.ContextLabel, *c.Concurrency)
				a := got[k]
				if a == nil {
					a = &agg{}
					got[k] = a
				}
				a.n++
				a.total += *c.TotalTokS
				if c.PerRequestTokS != nil {
					a.req += *c.PerRequestTokS
				}
				if c.TTFTMs != nil {
					a.ttft += *c.TTFTMs
				}
			}
			if len(got) != len(wants) {
				t.Fatalf("%d cells, want %d: %v", len(got), len(wants), got)
			}
			for _, w := range wants {
				a := got[w.cell]
				if a == nil {
					t.Errorf("no cell %s", w.cell)
					continue
				}
				tol := max(tt.tol, 0.0051) // repeats' mean against the JSON's mean
				check := func(what string, g, want float64) {
					if math.Abs(g-want) > tol*max(1, want/100) {
						t.Errorf("%s %s = %v, want %v", w.cell, what, g, want)
					}
				}
				check("total_tok_s", a.total/a.n, w.total)
				if w.req > 0 {
					check("per_request_tok_s", a.req/a.n, w.req)
				} else if a.req != 0 && strings.HasPrefix(w.cell, "decode") {
					t.Errorf("%s: a per-request rate where none was given", w.cell)
				}
				if w.ttft > 0 {
					check("ttft_ms", a.ttft/a.n, w.ttft)
				}
			}
		})
	}
}

// TestLlamaBenchyJSONRefusals: a JSON result that is not what llama-benchy
// writes is refused at its line, with the key or value named.
func TestLlamaBenchyJSONRefusals(t *testing.T) {
	for _, tt := range []struct {
		name, text string
		line       int
		msg        string
	}{
		{"unknown key", "{\"version\": \"0.3\", \"latency_mode\": \"api\", \"max_concurrency\": 1,\n\"benchmarks\": [\n{\"concurrency\": 1, \"context_size\": 0, \"prompt_size\": 512, \"response_size\": 32, \"tokens_per_watt\": 3,\n \"pp_throughput\": {\"mean\": 100, \"std\": 1, \"values\": [100]}}]}", 3, `key "tokens_per_watt"`},
		{"no benchmarks", "{\"version\": \"0.3\", \"latency_mode\": \"api\",\n\"benchmarks\": []}", 2, "no benchmarks"},
		{"zero concurrency", "{\"version\": \"0.3\", \"latency_mode\": \"api\",\n\"benchmarks\": [{\"concurrency\": 0, \"prompt_size\": 512, \"response_size\": 32, \"context_size\": 0}]}", 2, "concurrency 0"},
		{"no rate", "{\"version\": \"0.3\", \"latency_mode\": \"api\",\n\"benchmarks\": [{\"concurrency\": 1, \"prompt_size\": 512, \"response_size\": 32, \"context_size\": 0, \"pp_throughput\": {\"std\": 1}}]}", 2, "without a mean"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := readOne([]byte(tt.text), "r.json", "")
			pe, ok := err.(*Error)
			if !ok || pe.Line != tt.line || !strings.Contains(pe.Msg, tt.msg) {
				t.Errorf("got %v; want line %d and %q", err, tt.line, tt.msg)
			}
		})
	}
}

// TestLlamaBenchyConcurrencyPerRequest: at a concurrency above 1 a
// decode row's per-request rate and TBT come from t/s (req), or are null
// when the table has no such column; t/s is the total.
func TestLlamaBenchyConcurrencyPerRequest(t *testing.T) {
	for _, tt := range []struct {
		table string
		req   *float64
	}{
		{"| model | test | t/s (total) | t/s (req) |\n|:--|--:|--:|--:|\n| m | tg128 (c4) | 280.0 ± 1.0 | 71.5 ± 0.5 |\n", schema.F64(71.5)},
		{"| model | test | t/s (total) | ttfr (ms) |\n|:--|--:|--:|--:|\n| m | tg128 (c4) | 280.0 ± 1.0 | |\n", nil},
		{"| model | test | t/s | ttfr (ms) |\n|:--|--:|--:|--:|\n| m | tg128 | 70.0 ± 1.0 | |\n", schema.F64(70)},
	} {
		m, err := readOne([]byte(tt.table), "x.md", "")
		if err != nil {
			t.Fatal(err)
		}
		c := m.Measurements[0]
		switch {
		case tt.req == nil && c.PerRequestTokS != nil:
			t.Errorf("%q: per_request_tok_s %v, want null", tt.table, *c.PerRequestTokS)
		case tt.req != nil && (c.PerRequestTokS == nil || *c.PerRequestTokS != *tt.req || c.TBTMs == nil || math.Abs(*c.TBTMs - 1000 / *tt.req) > 1e-9):
			t.Errorf("%q: per_request_tok_s %v tbt %v, want %v", tt.table, c.PerRequestTokS, c.TBTMs, *tt.req)
		}
	}
}
