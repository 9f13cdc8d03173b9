package comparecmd

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"slices"
	"strings"
	"testing"

	"speedmatrix/analysis"
	"speedmatrix/parse"
	"speedmatrix/report"
	"speedmatrix/schema"
)

const (
	llamaRTX4080 = "../../parse/testdata/peers/llama-bench/qwen3-8b-q4km-rtx4080.json"
	llamaH100    = "../../parse/testdata/peers/llama-bench/qwen3-8b-q4km-h100.json"
)

// llamaMedians reads a llama-bench -o json file on its own (not through
// the reader under test): the median of each test's samples_ts, keyed
// "n_prompt/n_gen/n_depth".
func llamaMedians(t *testing.T, path string) map[string]float64 {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var tests []struct {
		NPrompt, NGen, NDepth int
		SamplesTS             []float64 `json:"samples_ts"`
	}
	var raw []map[string]json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &tests); err != nil {
		t.Fatal(err)
	}
	out := map[string]float64{}
	for i, x := range tests {
		var np, ng, nd int
		json.Unmarshal(raw[i]["n_prompt"], &np)
		json.Unmarshal(raw[i]["n_gen"], &ng)
		json.Unmarshal(raw[i]["n_depth"], &nd)
		s := slices.Sorted(slices.Values(x.SamplesTS))
		out[fmt.Sprintf("%d/%d/%d", np, ng, nd)] = s[len(s)/2]
	}
	return out
}

// TestLlamaBenchCompare compares two llama-bench runs of one GGUF on two
// GPUs (-o json, three repetitions each): prefill and decode ratios by
// depth, each the ratio of the medians of the repetitions. Before
// llama-bench was read, compare stopped at the first file ("it is
// llama.cpp's llama-bench JSON …, a tool speedmatrix does not read yet").
func TestLlamaBenchCompare(t *testing.T) {
	// Note: through analysis.Compare rather than -format json, which
	// fails on these runs ("json: unsupported value: -Inf": the interval
	// of a median of three repeats is unbounded); the text form prints ∞.
	var ms []*schema.Matrix
	for _, p := range []string{llamaRTX4080, llamaH100} {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		m, err := parse.ParseBytes(b, p, "")
		if err != nil {
			t.Fatal(err)
		}
		ms = append(ms, m)
	}
	c, err := analysis.Compare(ms[0], ms[1:], analysis.Options{})
	if err != nil {
		t.Fatal(err)
	}
	rows := report.DeltaRows(c)
	code, out, errs := runCmd(t, "", "-format", "text", llamaRTX4080, llamaH100)
	if code != exitOK || !strings.Contains(out, "prefill  512 @ d4K  1  prefill tok/s") {
		t.Fatalf("compare's text: exit %d: %s\n%s", code, errs, out)
	}
	base, other := llamaMedians(t, llamaRTX4080), llamaMedians(t, llamaH100)
	for _, tt := range []struct {
		phase schema.Phase
		ctx   string
		test  string
	}{
		{schema.PhasePrefill, "512", "512/0/0"},
		{schema.PhasePrefill, "512 @ d4K", "512/0/4096"},
		{schema.PhaseDecode, "0", "0/128/0"},
		{schema.PhaseDecode, "4K", "0/128/4096"},
	} {
		r := row(rows, tt.phase, tt.ctx, 1, "total_tok_s")
		if r == nil || r.Ratio == nil || r.Baseline == nil || r.Value == nil {
			t.Errorf("%s %s: no ratio (%v)", tt.phase, tt.ctx, r)
			continue
		}
		want := other[tt.test] / base[tt.test]
		if math.Abs(*r.Ratio-want) > 1e-9*want || *r.Baseline != base[tt.test] || *r.Value != other[tt.test] {
			t.Errorf("%s %s: %g / %g = %g, want %g / %g = %g", tt.phase, tt.ctx, *r.Value, *r.Baseline, *r.Ratio, other[tt.test], base[tt.test], want)
		}
	}
}

// TestJSONUnboundedInterval: three repeats a cell give a median's
// interval unbounded at 95%, which JSON cannot hold as a number: the
// side is left out rather than the whole output failing (it failed with
// "json: unsupported value: -Inf").
func TestJSONUnboundedInterval(t *testing.T) {
	code, stdout, stderr := runCmd(t, "", "-format", "json", llamaRTX4080, llamaH100)
	if code != 0 {
		t.Fatalf("exit %d, stderr %s", code, stderr)
	}
	var out struct {
		Rows []map[string]any `json:"deltas"`
	}
	if err := json.Unmarshal([]byte(stdout), &out); err != nil {
		t.Fatalf("not JSON: %v", err)
	}
	if len(out.Rows) == 0 {
		t.Fatal("no rows")
	}
	for _, r := range out.Rows {
		for _, k := range []string{"baseline_lo", "baseline_hi", "value_lo", "value_hi"} {
			if v, ok := r[k]; ok && v == nil {
				t.Errorf("row %v: %s is null, want left out", r["metric"], k)
			}
		}
	}
}
