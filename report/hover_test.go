package report

import (
	"bytes"
	"html"
	"regexp"
	"strings"
	"testing"

	"speedmatrix/analysis"
	"speedmatrix/plots"
	"speedmatrix/schema"
)

// hoverTitles draws each chart as the page embeds it and returns the
// hover titles of its points and cells (<g class="sm-pt"> and
// <g class="sm-cell">), unescaped, by chart name.
func hoverTitles(t *testing.T, charts []Chart) map[string][]string {
	t.Helper()
	re := regexp.MustCompile(`(?s)<g class="sm-(?:pt|cell)"><title>(.*?)</title>`)
	out := map[string][]string{}
	for _, ch := range charts {
		f, err := ch.Chart.Figure()
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		if err := plots.SaveSVGNoFont(f, &buf, plots.DefaultWidthPx, plots.DefaultHeightPx); err != nil {
			t.Fatal(err)
		}
		for _, m := range re.FindAllStringSubmatch(buf.String(), -1) {
			out[ch.Name] = append(out[ch.Name], html.UnescapeString(m[1]))
		}
	}
	return out
}

// TestChartHover checks that every chart of the seeds' report (cost
// charts included) gives each point or heatmap cell a hover title with
// its exact value, its run and its cell (issue 24): the ratio heatmap
// says the ratio and both runs' figures, the frontier and the charts per
// dollar and per joule name the cell, which their axes do not.
func TestChartHover(t *testing.T) {
	r := costReport(t, true, []int32{0, 1})
	charts, notes := r.Charts()
	if len(notes) > 0 {
		t.Fatal(notes)
	}
	titles := hoverTitles(t, charts)
	tests := []struct {
		name, chart string
		n           int // titles, 0 = at least one
		want        string
	}{
		// 5 contexts × 8 concurrencies, each cell titled, valid or not.
		{"heatmap ratio", "ratio_total", 40, "Context length 8K, Simultaneous requests 128: 0.469×\nRTX PRO 6000 INT4: 6,091.1 tok/s\nH200 NVL BF16 (baseline): 13,000 tok/s"},
		{"heatmap no ratio", "ratio_total", 40, "Context length 8K, Simultaneous requests 16: no ratio\nRTX PRO 6000 INT4: looped\nH200 NVL BF16 (baseline): 3,016.8 tok/s"},
		{"frontier", "frontier_8k", 0, "RTX PRO 6000 INT4, 8K×128: Output per request (tok/s) 47.4, Total output (tok/s) 6091.1"},
		{"per dollar", "per_dollar", 0, "H200 NVL BF16 8K: Output per request (tok/s) 294.6, Output tokens per dollar (millions) 0.88 (8K×2)"},
		{"per joule", "per_joule", 0, "(8K×128)"},
		{"line", "decode_total", 0, "H200 NVL BF16 8K: Simultaneous requests 128, Total output (tok/s) 13000"},
	}
	// Serving runs (vLLM's benchmark results): a load is a concurrency
	// or a request rate, which the hover says.
	for _, p := range pairs {
		if p.name != "vllm" && p.name != "sglang" {
			continue
		}
		charts, _ := build(t, p).Charts()
		for name, ts := range hoverTitles(t, charts) {
			titles[p.name+"/"+name] = ts
		}
	}
	tests = append(tests, []struct {
		name, chart string
		n           int
		want        string
	}{
		{"serving frontier", "vllm/serve_frontier", 0, "gpt-oss-120b 1K in, N=16: Output per request (tok/s) 110.63, Total output (tok/s) 1725.58"},
		{"serving latency", "vllm/serve_latency_throughput", 0, "gpt-oss-120b 1K in: Total output (tok/s) 1725.58, TTFT p50 (ms) 104.43 (N=16)"},
		{"serving by rate", "sglang/serve_latency_throughput_rate", 0, "(4/s)"},
	}...)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := titles[tt.chart]
			if tt.n > 0 && len(got) != tt.n || len(got) == 0 {
				t.Fatalf("%s: %d hover titles, want %d (0: at least one)", tt.chart, len(got), tt.n)
			}
			for _, g := range got {
				if strings.Contains(g, tt.want) {
					return
				}
			}
			t.Errorf("no hover title holds %q; the first is %q", tt.want, got[0])
		})
	}
}

// TestChartHoverEscapes labels a run `<script>…` and checks that the
// report page keeps it text: escaped in every hover title, never an
// element (the page has no script at all).
func TestChartHoverEscapes(t *testing.T) {
	const evil = `<script>alert(1)</script>`
	base, other := load(t, seedBF16), load(t, seedINT4)
	c, err := analysis.Compare(base, []*schema.Matrix{other}, analysis.Options{Labels: []string{"BF16", evil}})
	if err != nil {
		t.Fatal(err)
	}
	r := New(c, Options{})
	charts, _ := r.Charts()
	titles := hoverTitles(t, charts)
	for _, name := range []string{"ratio_total", "frontier_8k", "decode_total"} {
		found := false
		for _, g := range titles[name] {
			found = found || strings.Contains(g, evil)
		}
		if !found {
			t.Errorf("%s: no hover title names the run %q", name, evil)
		}
	}
	var page bytes.Buffer
	if err := r.WriteHTML(&page, charts); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(strings.ToLower(page.String()), "<script") {
		t.Errorf("the report page holds a <script> element")
	}
	if !strings.Contains(page.String(), "<title>Context length 8K, Simultaneous requests 1: 0.972×\n&lt;script&gt;alert(1)&lt;/script&gt;: 325.2 tok/s\nBF16 (baseline): 334.7 tok/s</title>") {
		t.Errorf("the heatmap's hover titles do not hold the run's label escaped")
	}
}
