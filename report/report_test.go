package report

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"speedmatrix/analysis"
	"speedmatrix/internal/testtool"
	"speedmatrix/parse"
	"speedmatrix/plots"
	"speedmatrix/schema"
)

var update = flag.Bool("update", false, "rewrite golden files in testdata/")

const (
	seedINT4 = "../testdata/seeds/000_acc4a01d882a0446.txt" // RTX PRO 6000, INT4
	seedBF16 = "../testdata/seeds/001_03cf9c936d246394.txt" // H200, BF16
	peers    = "../parse/testdata/peers/"
)

// pair is a comparison the golden tests cover: two real files (each
// holding one run) compared as cmd/compare would.
type pair struct {
	name        string
	base, other string
	opt         Options
}

var pairs = []pair{
	{"seeds", seedBF16, seedINT4, Options{MinUserTokS: 100, SLO: analysis.SLO{MaxTTFTMs: 1000, MaxTBTMs: 20}}},
	{"vllm", peers + "vllm/inferencex-multinode-gptoss120b-conc16-p999.json", peers + "vllm/inferencex-atom-qwen35-397b-mtp-conc64-with-input_lens.json", Options{}},
	{"sglang", peers + "sglang/datacrunch-h200-llama33-70b-online.jsonl", peers + "sglang/datacrunch-h200-deepseek-dp-mla.jsonl", Options{}},
	{"guidellm", peers + "guidellm/danielkorat-qwen3-4b-thinking-sanity-benchmarks.json", peers + "guidellm/neuralmagic-benchmarks-stripped-v0.3.json", Options{}},
}

func load(t testing.TB, path string) *schema.Matrix {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	ms, err := parse.ParseAllBytes(b, path, "")
	if err != nil {
		t.Fatal(err)
	}
	if len(ms) != 1 {
		t.Fatalf("%s holds %d runs, want 1", path, len(ms))
	}
	// Golden files must not change with the day they are written.
	ms[0].Run.IngestedAt = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	return ms[0]
}

func build(t testing.TB, p pair) *Report {
	t.Helper()
	ms := []*schema.Matrix{load(t, p.base), load(t, p.other)}
	c, err := analysis.Compare(ms[0], ms[1:], analysis.Options{Labels: Labels(ms), SameWithin: 0.03})
	if err != nil {
		t.Fatal(err)
	}
	return New(c, p.opt)
}

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	testtool.Golden(t, filepath.Join("testdata", name), got, *update)
}

// TestGolden writes each pair's report as text, Markdown and JSON: the
// summary of the seeds, and the whole report of two real serving runs of
// vLLM, SGLang and guidellm each.
func TestGolden(t *testing.T) {
	for _, p := range pairs {
		r := build(t, p)
		for _, f := range []struct {
			format Format
			ext    string
		}{{FormatText, "txt"}, {FormatMarkdown, "md"}, {FormatJSON, "json"}} {
			t.Run(p.name+"/"+string(f.format), func(t *testing.T) {
				var b bytes.Buffer
				write := func() error { return r.Write(&b, f.format, "") }
				if p.name == "seeds" {
					// The seeds' whole report is cmd/compare's golden file:
					// here their summary.
					write = func() error { return r.WriteSummary(&b, f.format) }
				}
				if err := write(); err != nil {
					t.Fatal(err)
				}
				golden(t, p.name+"."+f.ext, b.Bytes())
			})
		}
	}
}

// TestSummaryFirst checks that the answer leads: the outcome, then the
// summary, before any long table.
func TestSummaryFirst(t *testing.T) {
	for _, p := range pairs {
		var b bytes.Buffer
		if err := build(t, p).Write(&b, FormatText, ""); err != nil {
			t.Fatal(err)
		}
		out := b.String()
		// A pair without a cell in common has no ratio to summarize: the
		// outcome says so, the best per context follows.
		head := "Summary:"
		if p.name != "seeds" {
			head = "Best configuration per context"
		}
		o, s, d := strings.Index(out, "Outcome"), strings.Index(out, head), strings.Index(out, "Deltas:")
		if o != 0 || s < 0 || (p.name == "seeds" && d < s) {
			t.Errorf("%s: outcome at %d, %s at %d, deltas at %d", p.name, o, head, s, d)
		}
		// Their delta rows would all be one run's figure beside a dash.
		if p.name != "seeds" && (d >= 0 || strings.Contains(out, "Geometric mean")) {
			t.Errorf("%s: runs without a common cell print deltas (at %d) or geometric means", p.name, d)
		}
		for _, empty := range []string{"Context scaling: ", "frontier: "} {
			if p.name != "seeds" && strings.Contains(out, empty) {
				t.Errorf("%s: serving runs print a %q table", p.name, empty)
			}
		}
	}
}

// TestSeedsSummary checks the seeds' known answers as the summary states
// them (issue 10's example: 13,000 tok/s at 8K×128 against 3,521 at 8K×32).
func TestSeedsSummary(t *testing.T) {
	r := build(t, pairs[0])
	s := r.Summary
	if len(s.Outcome) != 2 || !strings.Contains(s.Outcome[0], "0.756× the decode throughput") || !strings.Contains(s.Outcome[0], "7 looped in RTX PRO 6000 INT4") {
		t.Errorf("outcome %q", s.Outcome)
	}
	// Where the ratio changes, from the ratio matrix (issue 24): near
	// parity at one stream, ~0.5–0.7× from 16 streams on.
	for _, want := range []string{"Where: by load, level at N = 1 (0.972×)", "behind at N = 16–128 (0.479–0.714×)", "0.826× at 8K"} {
		if !strings.Contains(s.Outcome[0], want) {
			t.Errorf("outcome %q lacks %q", s.Outcome[0], want)
		}
	}
	// The seeds differ in GPU and quantization (the labels) and also in
	// engine build, model name and bench tool version (issue 24).
	for _, want := range []string{"engine version (0.27.2rc1.dev113+g5cecfc013 vs 0.30.1rc1.dev452+g73a583112)", "model (Ling-3.0-tiny vs Ling-3.0-tiny-int4)", "bench tool version (0.4.29 vs 0.7.6)"} {
		if !strings.Contains(s.AlsoDiffer, want) || s.Outcome[len(s.Outcome)-1] != s.AlsoDiffer {
			t.Errorf("also differ %q lacks %q (outcome %q)", s.AlsoDiffer, want, s.Outcome)
		}
	}
	var ans *Answer
	for i := range s.Answers {
		if strings.HasPrefix(s.Answers[i].Question, "most total tok/s") && s.Answers[i].Context == "8K" {
			ans = &s.Answers[i]
		}
	}
	if ans == nil {
		t.Fatalf("no 8K answer in %+v", s.Answers)
	}
	b, o := ans.Runs[0], ans.Runs[1]
	if b.Cell != "8K×128" || b.TotalTokS != 13000 || b.LowerBound || o.Cell != "8K×32" || !o.LowerBound || pickText(o) != "≥ 3,520.8 tok/s (8K×32)" {
		t.Errorf("8K answers %+v / %+v", b, o)
	}
	if got := optRatio(ans.Ratios[0]); got != "0.271×" {
		t.Errorf("8K ratio %s, want 0.271× (three figures, though 13K has two: RatioFigs)", got)
	}
}

// TestPageInChromium opens each pair's HTML report in headless Chromium:
// the outcome leads, every chart is drawn, the long tables are folded.
func TestPageInChromium(t *testing.T) {
	testtool.Chromium(t) // skip (or fail) before any work when it is missing
	for _, p := range pairs {
		t.Run(p.name, func(t *testing.T) {
			r := build(t, p)
			charts, notes := r.Charts()
			if len(notes) > 0 {
				t.Errorf("charts not drawn: %q", notes)
			}
			if len(charts) < 3 {
				t.Errorf("%d charts", len(charts))
			}
			page := filepath.Join(t.TempDir(), "report.html")
			f, err := os.Create(page)
			if err != nil {
				t.Fatal(err)
			}
			if err := r.WriteHTML(f, charts); err != nil {
				t.Fatal(err)
			}
			f.Close()
			dom := testtool.DumpDOM(t, page)
			if n := strings.Count(dom, "<svg "); n != len(charts) {
				t.Errorf("DOM has %d charts, want %d", n, len(charts))
			}
			lead, sum, fold := strings.Index(dom, `class="lead"`), strings.Index(dom, `class="summary"`), strings.Index(dom, `<details class="fold"`)
			if lead < 0 || sum < lead || fold < sum {
				t.Errorf("order: lead at %d, summary at %d, folded tables at %d", lead, sum, fold)
			}
			if !strings.Contains(dom, r.Summary.Outcome[0][:40]) {
				t.Errorf("DOM lacks the outcome %q", r.Summary.Outcome[0])
			}
		})
	}
}

// TestJSONObject checks that -format json is one object with every
// section and each delta's status as a field.
func TestJSONObject(t *testing.T) {
	var b bytes.Buffer
	if err := build(t, pairs[0]).Write(&b, FormatJSON, ""); err != nil {
		t.Fatal(err)
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(b.Bytes(), &obj); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"tolerance", "runs", "summary", "deltas", "ratio_matrices", "scaling", "frontier", "serve", "trend"} {
		if _, ok := obj[k]; !ok {
			t.Errorf("JSON lacks %q", k)
		}
	}
	var deltas []DeltaRow
	if err := json.Unmarshal(obj["deltas"], &deltas); err != nil {
		t.Fatal(err)
	}
	looped := 0
	for _, d := range deltas {
		if d.Status == "looped" {
			looped++
		}
	}
	if looped == 0 {
		t.Error("no delta has status looped")
	}
}

// TestLoneRunChart: a line chart drawn from one run of several (here the
// serving charts by concurrency, which only the third run has) names
// that run in its title and caption; its legend names only contexts.
func TestLoneRunChart(t *testing.T) {
	ms := append(deployments(t), load(t, pairs[1].base))
	c, err := analysis.Compare(ms[0], ms[1:], analysis.Options{Labels: Labels(ms)})
	if err != nil {
		t.Fatal(err)
	}
	charts, _ := New(c, Options{}).Charts()
	lone := 0
	for _, ch := range charts {
		lc, ok := ch.Chart.(plots.LineChart)
		if !ok || len(lc.Series) == 0 {
			continue
		}
		runs := map[string]bool{}
		for _, s := range lc.Series {
			runs[s.Run] = true
		}
		if len(runs) != 1 {
			continue
		}
		lone++
		run := lc.Series[0].Run
		if !strings.Contains(lc.Title, run) || !strings.Contains(ch.Caption, run) {
			t.Errorf("%s: one run's lines, title %q, caption %q name no run %q", ch.Name, lc.Title, ch.Caption, run)
		}
	}
	if lone == 0 {
		t.Error("no chart of one run among three")
	}
}

// deployments returns the two serving runs of one vLLM file appended
// with two --metadata deployments: they share their loads.
func deployments(t *testing.T) []*schema.Matrix {
	t.Helper()
	b, err := os.ReadFile(peers + "vllm/append-deployments.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	ms, err := parse.ParseAllBytes(b, "append-deployments.jsonl", "")
	if err != nil || len(ms) != 2 {
		t.Fatalf("%d runs, %v", len(ms), err)
	}
	return ms
}
