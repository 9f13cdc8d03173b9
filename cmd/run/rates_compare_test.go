package runcmd

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"speedmatrix/analysis"
	"speedmatrix/parse"
	"speedmatrix/plots"
	"speedmatrix/report"
	"speedmatrix/schema"
)

// TestRatesCompareWithVLLM measures the simulator at 10 requests/s with
// 1,024-token prompts, as a vLLM bench serve result in the fixtures
// (synthetic, in the shape of `--append-result` lines) was measured (its deployment=base run: 10/s and all at once,
// 1K input), and compares the two: the 10/s cells align by context and
// rate with every default figure on both sides, and the report draws the
// serving charts by rate with a line for each run.
func TestRatesCompareWithVLLM(t *testing.T) {
	ours := simulatedRates(t, "-rates", "10,40")
	vllm := peerRuns(t, "vllm/append-deployments.jsonl")
	c, err := analysis.Compare(vllm[0], []*schema.Matrix{ours}, analysis.Options{Metrics: []string{"ttft_p99_ms"}})
	if err != nil {
		t.Fatal(err)
	}
	both := 0
	for _, d := range c.Deltas[0] {
		k := c.Cells[d.Cell].Key
		if _, ok := d.Ratio(); ok {
			if k.Phase != schema.PhaseServe || k.ContextLabel != "1K" || k.RequestRate != 10 {
				t.Errorf("a ratio at %+v", k)
			}
			both++
		}
	}
	if both != len(c.Metrics) {
		t.Errorf("%d figures compared at 1K and 10/s, want all %d metrics", both, len(c.Metrics))
	}
	r := report.New(c, report.Options{})
	charts, _ := r.Charts()
	byRate := map[string]int{}
	for _, ch := range charts {
		if lc, ok := ch.Chart.(plots.LineChart); ok && strings.HasPrefix(ch.Name, "serve_") && strings.HasSuffix(ch.Name, "_rate") {
			byRate[ch.Name] = len(lc.Series)
		}
	}
	if byRate["serve_total_rate"] != 2 || byRate["serve_ttft_rate"] != 4 || byRate["serve_tbt_rate"] != 4 {
		t.Errorf("serving charts by rate (series each): %v; want total with a line per run, TTFT and TBT with two (p50, p99)", byRate)
	}
	var page bytes.Buffer
	if err := r.WriteHTML(&page, charts); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(page.String(), "<svg") || !strings.Contains(page.String(), "10/s") {
		t.Error("the HTML report has no chart or no 10/s cell")
	}
	if p := os.Getenv("SPEEDMATRIX_KEEP_REPORT"); p != "" {
		os.WriteFile(p, page.Bytes(), 0o644) // to look at it in a browser
	}
}

// TestRatesSweepCompareWithRealVLLM sets a `run -rates sweep` result
// beside a real vLLM benchmark_serving file (InferenceX, gpt-oss-120b on
// 16 GPUs: 160 prompts of 1,024 tokens, --request-rate inf
// --max-concurrency 16, copied from ../shared/peer-results): the sweep's
// closed-loop probe of 16 streams at 1,024 tokens is the same load, so
// the two line up at serve 1K ×16 with every default figure, and the
// HTML report draws the serving charts.
func TestRatesSweepCompareWithRealVLLM(t *testing.T) {
	ours := simulatedRates(t, "-rates", "sweep", "-concurrency", "16")
	vllm := peerRuns(t, "vllm/inferencex-multinode-gptoss120b-conc16-p999.json")
	c, err := analysis.Compare(vllm[0], []*schema.Matrix{ours}, analysis.Options{})
	if err != nil {
		t.Fatal(err)
	}
	both := 0
	for _, d := range c.Deltas[0] {
		k := c.Cells[d.Cell].Key
		if _, ok := d.Ratio(); ok {
			if k != (analysis.Key{Phase: schema.PhaseServe, ContextLabel: "1K", Concurrency: 16}) {
				t.Errorf("a ratio at %+v", k)
			}
			both++
		}
	}
	if both != len(c.Metrics) {
		t.Errorf("%d figures compared at serve 1K ×16, want all %d metrics", both, len(c.Metrics))
	}
	r := report.New(c, report.Options{})
	charts, _ := r.Charts()
	var page bytes.Buffer
	if err := r.WriteHTML(&page, charts); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(page.String(), "<svg") || len(charts) == 0 {
		t.Errorf("the HTML report has %d charts", len(charts))
	}
}

// simulatedRates runs `run -simulate default` with the rate flags given
// (40 requests per rate, 1,024 input and 64 output tokens, seed 1) and
// returns the matrix its document reads back to.
func simulatedRates(t *testing.T, rates ...string) *schema.Matrix {
	t.Helper()
	out := filepath.Join(t.TempDir(), "rates.md")
	args := append([]string{"-simulate", "default"}, rates...)
	args = append(args, "-requests", "40", "-seed", "1", "-input-tokens", "1024", "-output-tokens", "64", "-out", out)
	code, stdout, stderr := runCmd(t, context.Background(), args...)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	return readDocument(t, out)
}

// peerRuns reads the runs of a fixture under parse/testdata/peers.
func peerRuns(t *testing.T, name string) []*schema.Matrix {
	t.Helper()
	path := filepath.Join("../../parse/testdata/peers", name)
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	ms, err := parse.ParseAllBytes(b, path, "")
	if err != nil || len(ms) == 0 {
		t.Fatalf("%s: %d runs, %v", path, len(ms), err)
	}
	return ms
}
