package peers

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"speedmatrix/schema"
)

// cellsOf prints a run's cells compactly: phase|context|concurrency|
// repeat|total_tok_s.
func cellsOf(m *schema.Matrix) []string {
	var out []string
	for _, c := range m.Measurements {
		r := "-"
		if c.Repeat != nil {
			r = fmt.Sprint(*c.Repeat)
		}
		out = append(out, fmt.Sprintf("%s|%s|%d|%s|%g", c.Phase, c.ContextLabel, *c.Concurrency, r, *c.TotalTokS))
	}
	return out
}

// runMeta returns a run's metadata value, or "".
func runMeta(m *schema.Matrix, section, key string) string {
	for _, f := range m.Run.Metadata {
		if f.Section == section && f.Key == key {
			return f.Value
		}
	}
	return ""
}

// TestLlamaBenchShapes reads llama-bench's output in each of its forms
// and llama-benchy's table. Before these readers the Markdown and the
// console log were refused by parse as "no All measurements table …
// not a complete speed-test document", -o json and -o jsonl as "it is
// llama.cpp's llama-bench JSON (-o json …), a tool speedmatrix does not
// read yet", and -o csv and -o sql were not recognised at all (Read
// returned ok=false; parse then said "no All measurements table").
func TestLlamaBenchShapes(t *testing.T) {
	depths := []string{"prefill|512|1|-|11520.44", "prefill|512 @ d4K|1|-|9874.12", "prefill|512 @ d16K|1|-|7012.8",
		"decode|0|1|-|168.31", "decode|4K|1|-|151.9", "decode|16K|1|-|124.07"}
	machine := []string{"prefill|512|1|-|8364.15694", "prefill|512 @ d4K|1|-|6548.187551", "decode|0|1|-|126.413972", "decode|4K|1|-|115.960724"}
	samples := []string{"prefill|512|1|0|8359.143", "prefill|512|1|1|8396.182", "prefill|512|1|2|8337.146",
		"prefill|512 @ d4K|1|0|6553.734", "prefill|512 @ d4K|1|1|6564.936", "prefill|512 @ d4K|1|2|6525.893",
		"decode|0|1|0|126.439", "decode|0|1|1|126.748", "decode|0|1|2|126.055",
		"decode|4K|1|0|115.999", "decode|4K|1|1|116.233", "decode|4K|1|2|115.65"}
	tests := []struct {
		file, format                                string
		runs                                        int
		run                                         int // the run checked
		model, quant, gpu, backend, version, commit string
		gpuCount                                    int32
		cells                                       []string
		settings                                    map[string]string
	}{
		{"llama-bench/qwen2-7b-q4km-rtx4090-depths.md", FormatLlamaBench, 1, 0, "qwen2 7B Q4_K - Medium", "Q4_K_M", "", "cuda", "b4530", "3f1ae2e3", 0, depths,
			map[string]string{"n_gpu_layers": "99", "flash_attn": "1", "model_size": "4.36 GiB"}},
		// Two tables in a console log, each with its build line; -fa 0,1
		// makes two runs of the first model; the GPUs come from the log.
		{"llama-bench/console-two-models-cuda.log", FormatLlamaBench, 3, 1, "gpt-oss 20B MXFP4 MoE", "MXFP4", "NVIDIA GeForce RTX 3090", "cuda", "b6397", "b3d6f7a1", 2,
			[]string{"prefill|512|1|-|3880.05", "decode|0|1|-|147.66"}, map[string]string{"flash_attn": "1"}},
		{"llama-bench/console-two-models-cuda.log", FormatLlamaBench, 3, 2, "llama 1B IQ2_XXS - 2.0625 bpw", "IQ2_XXS", "NVIDIA GeForce RTX 3090", "cuda", "b6397", "b3d6f7a1", 2,
			[]string{"prefill|512|1|-|28544.9", "decode|0|1|-|402.18"}, map[string]string{"model_size": "390.58 MiB"}},
		// A fork's extra columns (ik_llama.cpp: mla, amb, fmoe) are settings.
		{"llama-bench/ik-llama-cpp-mla-columns.md", FormatLlamaBench, 1, 0, "deepseek2 16B Q4_K - Medium", "Q4_K_M", "", "cuda", "b3701", "4b1c2d3e", 0,
			[]string{"prefill|2K|1|-|4120.33", "decode|0|1|-|178.4"}, map[string]string{"mla": "3", "amb": "512", "fmoe": "1", "n_ubatch": "2048"}},
		{"llama-bench/qwen3-8b-q4km-rtx4080.json", FormatLlamaBench, 1, 0, "Qwen3-8B-Q4_K_M.gguf", "Q4_K_M", "NVIDIA GeForce RTX 4080", "cuda", "b5163", "8cf427ff", 1, samples,
			map[string]string{"flash_attn": "1", "n_batch": "2048", "cpu_strict": "false"}},
		{"llama-bench/qwen3-8b-q4km-rtx4080.jsonl", FormatLlamaBench, 1, 0, "Qwen3-8B-Q4_K_M.gguf", "Q4_K_M", "NVIDIA GeForce RTX 4080", "cuda", "b5163", "8cf427ff", 1, samples, nil},
		{"llama-bench/qwen3-8b-q4km-rtx4080.csv", FormatLlamaBench, 1, 0, "Qwen3-8B-Q4_K_M.gguf", "Q4_K_M", "NVIDIA GeForce RTX 4080", "cuda", "b5163", "8cf427ff", 1, machine,
			map[string]string{"cpu_strict": "0", "type_k": "f16"}},
		{"llama-bench/qwen3-8b-q4km-rtx4080-old-test-table.sql", FormatLlamaBench, 1, 0, "Qwen3-8B-Q4_K_M.gguf", "Q4_K_M", "NVIDIA GeForce RTX 4080", "cuda", "b5163", "8cf427ff", 1, machine, nil},
		{"llama-bench/b7001-vulkan-abridged.json", FormatLlamaBench, 1, 0, "example-1b-q4_k_m.gguf", "Q4_K_M", "Example GPU", "vulkan", "b7001", "0a1b2c3", 1,
			[]string{"prefill|512|1|0|10343.4", "prefill|512|1|1|10240", "prefill|512|1|2|10138.6", "decode|0|1|0|323.2", "decode|0|1|1|320", "decode|0|1|2|316.8"}, nil},
		{"llama-benchy/qwen3-32b-awq-depths.md", FormatLlamaBenchy, 1, 0, "Qwen3-32B-AWQ", "", "", "", "", "", 0,
			[]string{"prefill|2K|1|-|2104.55", "prefill|2K @ d8K|1|-|1987.2", "decode|0|1|-|41.37", "decode|8K|1|-|39.8"}, nil},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%s#%d", tt.file, tt.run), func(t *testing.T) {
			ms, err := readAll(mustRead(t, filepath.Join(fixtures, tt.file)), tt.file, "")
			if err != nil {
				t.Fatal(err)
			}
			if len(ms) != tt.runs {
				t.Fatalf("%d runs, want %d", len(ms), tt.runs)
			}
			m := ms[tt.run]
			r := m.Run
			if r.SourceFormat != tt.format || r.Model != tt.model || r.Quantization != tt.quant || r.GPU != tt.gpu || r.Backend != tt.backend || r.EngineVersion != tt.version || r.EngineCommit != tt.commit {
				t.Errorf("run: format %q model %q quant %q gpu %q backend %q version %q commit %q", r.SourceFormat, r.Model, r.Quantization, r.GPU, r.Backend, r.EngineVersion, r.EngineCommit)
			}
			if (tt.gpuCount == 0) != (r.GPUCount == nil) || r.GPUCount != nil && *r.GPUCount != tt.gpuCount {
				t.Errorf("gpu count %v, want %d", r.GPUCount, tt.gpuCount)
			}
			if got := strings.Join(cellsOf(m), "  "); got != strings.Join(tt.cells, "  ") {
				t.Errorf("cells\n got %s\nwant %s", got, strings.Join(tt.cells, "  "))
			}
			for k, v := range tt.settings {
				if got := firstNonEmpty(runMeta(m, "Settings", k), runMeta(m, "Model", k)); got != v {
					t.Errorf("setting %s = %q, want %q", k, got, v)
				}
			}
		})
	}
}

// TestLlamaBenchCells checks what a cell holds beside its rate: the
// prompt or generated tokens, the depth as context, the time per prompt
// or per token, and the repetitions' mean and standard deviation.
func TestLlamaBenchCells(t *testing.T) {
	m := mustReadOne(t, filepath.Join(fixtures, "llama-bench/qwen3-8b-q4km-rtx4080.json"))
	var pre, dec *schema.Measurement
	for i := range m.Measurements {
		c := &m.Measurements[i]
		if c.ContextLabel == "512 @ d4K" && *c.Repeat == 1 {
			pre = c
		}
		if c.Phase == schema.PhaseDecode && c.ContextLabel == "4K" && *c.Repeat == 2 {
			dec = c
		}
	}
	if pre == nil || dec == nil {
		t.Fatal("cells missing")
	}
	if *pre.ContextTokens != 4608 || *pre.PromptTokens != 512 || !near(pre.TTFTMs, 1000*512/6564.936) || !near(pre.MeasuredS, 0.0779901) ||
		!near(extra(pre, "test_ms"), 77.9901) || !near(extra(pre, "tok_s_mean"), 6548.187551) || extra(pre, "tok_s_stddev") == nil {
		t.Errorf("prefill cell %s", js(pre))
	}
	if *dec.ContextTokens != 4096 || *dec.OutputTokens != 128 || !near(dec.PerRequestTokS, 115.65) || !near(dec.TBTMs, 1000/115.65) || m.Run.StartedAt == nil {
		t.Errorf("decode cell %s", js(dec))
	}
	// The Markdown keeps the printed cells and the standard deviation.
	md := mustReadOne(t, filepath.Join(fixtures, "llama-bench/qwen2-7b-q4km-rtx4090-depths.md"))
	c := md.Measurements[1]
	if c.Printed[0].Value != "pp512 @ d4096" || c.Printed[1].Value != "9874.12 ± 30.55" || !near(extra(&c, "tok_s_stddev"), 30.55) || c.SourceLine != 5 {
		t.Errorf("markdown cell %s", js(c))
	}
	// A pp512+tg128 test has no phase: kept in the run's metadata.
	log := mustReadAll(t, filepath.Join(fixtures, "llama-bench/console-two-models-cuda.log"))
	if got := runMeta(log[0], "Prompt and generation tests", "pp512+tg128 t/s") + " ± " + runMeta(log[0], "Prompt and generation tests", "pp512+tg128 t/s stddev"); got != "598.14 ± 2.02" {
		t.Errorf("pg test %q", got)
	}
	// llama-benchy's latencies: TTFT from e2e_ttft, the rest in extra.
	by := mustReadOne(t, filepath.Join(fixtures, "llama-benchy/qwen3-32b-awq-depths.md"))
	p := by.Measurements[1]
	if !near(p.TTFTMs, 5191.60) || !near(extra(&p, "ttfr_ms_mean"), 5190.75) || !near(extra(&p, "est_ppt_ms_stddev"), 48.13) {
		t.Errorf("llama-benchy prefill %s", js(p))
	}
	d := by.Measurements[3]
	if !near(extra(&d, "peak_tok_s_mean"), 45.33) || by.Run.BenchTool != "llama-benchy" || by.Run.Engine != "" {
		t.Errorf("llama-benchy decode %s (%s)", js(d), by.Run.BenchTool)
	}
}

// TestLlamaBenchFormsAgree: one run printed as JSON and as JSON Lines is
// one run id; as CSV and as SQL too (the means, without repetitions).
func TestLlamaBenchFormsAgree(t *testing.T) {
	id := func(f string) string { return mustReadOne(t, filepath.Join(fixtures, "llama-bench", f)).Run.RunID }
	if a, b := id("qwen3-8b-q4km-rtx4080.json"), id("qwen3-8b-q4km-rtx4080.jsonl"); a != b {
		t.Errorf("json %s, jsonl %s", a, b)
	}
	if a, b := id("qwen3-8b-q4km-rtx4080.csv"), id("qwen3-8b-q4km-rtx4080-old-test-table.sql"); a != b {
		t.Errorf("csv %s, sql %s", a, b)
	}
}

// TestLlamaBenchBad: broken outputs are refused at their line.
func TestLlamaBenchBad(t *testing.T) {
	header := "| model | size | params | backend | ngl | test | t/s |\n| --- | ---: | ---: | --- | --: | ---: | ---: |\n"
	for _, tt := range []struct {
		name, text string
		line       int
		msg        string
	}{
		{"bad test", header + "| llama 7B Q4_0 | 3.56 GiB | 6.74 B | CUDA | 99 | xx512 | 1.0 ± 0.1 |\n", 3, "is not a pp<N>"},
		{"bad t/s", header + "| llama 7B Q4_0 | 3.56 GiB | 6.74 B | CUDA | 99 | pp512 | fast |\n", 3, "is not a mean ± standard deviation"},
		{"short row", header + "| llama 7B Q4_0 | 3.56 GiB | CUDA | 99 | pp512 | 1.0 ± 0.1 |\n", 3, "6 cells where the header names 7"},
		{"duplicate", header + "| llama 7B Q4_0 | 3.56 GiB | 6.74 B | CUDA | 99 | pp512 | 1.0 ± 0.1 |\n| llama 7B Q4_0 | 3.56 GiB | 6.74 B | CUDA | 99 | pp 512 | 2.0 ± 0.1 |\n", 4, "duplicate prefill cell"},
		{"benchy total", "| model | test | t/s (total) | ttfr (ms) |\n|:--|--:|--:|--:|\n| m | tg128 | 80.0 ± 1.0 | |\n", 3, "a concurrency above 1 that the table does not name"},
		{"only pg", header + "| llama 7B Q4_0 | 3.56 GiB | 6.74 B | CUDA | 99 | pp512+tg128 | 1.0 ± 0.1 |\n", 3, "no pp or tg test"},
		{"csv fields", "build_commit,build_number,n_prompt,n_gen,avg_ts\n\"a\",\"1\",\"512\"\n", 2, "3 fields where the header names 5"},
		{"json samples", `[{"build_commit": "a", "n_prompt": 512, "n_gen": 0, "avg_ts": 1, "samples_ns": [1, 2], "samples_ts": [1]}]`, 1, "samples_ns has 2 repetitions"},
		{"sql values", "CREATE TABLE IF NOT EXISTS llama_bench (\n  build_commit TEXT,\n  n_prompt INTEGER\n);\nINSERT INTO llama_bench (build_commit, n_prompt) VALUES ('a');\n", 5, "1 values where the INSERT names 2"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := readAll([]byte(tt.text), "x", "")
			var pe *Error
			if !errors.As(err, &pe) || pe.Line != tt.line || !strings.Contains(pe.Msg, tt.msg) {
				t.Errorf("got %v; want line %d and %q", err, tt.line, tt.msg)
			}
		})
	}
}

// TestLlamaBenchyConcurrency: a test that names its concurrency is a
// cell at that load.
func TestLlamaBenchyConcurrency(t *testing.T) {
	m, err := readOne([]byte("| model | test | t/s (total) | ttfr (ms) |\n|:--|--:|--:|--:|\n| m | tg128 (c4) | 280.0 ± 1.0 | |\n| m | pp512 @ d1024 (c4) | 900.5 ± 3.0 | 410.2 ± 2.0 |\n"), "x.md", "")
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(cellsOf(m), "  "); got != "prefill|512 @ d1K|4|-|900.5  decode|0|4|-|280" {
		t.Errorf("cells %s", got)
	}
}

// TestLlamaQuant reads the weights' quantization from a model's
// description or, failing that, its file name.
func TestLlamaQuant(t *testing.T) {
	for _, tt := range []struct{ desc, file, want string }{
		{"qwen2 7B Q4_K - Medium", "", "Q4_K_M"},
		{"llama 7B mostly Q4_0", "", "Q4_0"},
		{"llama 8B Q3_K - Large", "", "Q3_K_L"},
		{"gpt-oss 20B MXFP4 MoE", "", "MXFP4"},
		{"llama 1B IQ2_XXS - 2.0625 bpw", "", "IQ2_XXS"},
		{"qwen3moe 30B.A3B BF16", "", "BF16"},
		{"", "/m/Qwen3-30B-A3B-UD-Q4_K_XL.gguf", "UD-Q4_K_XL"},
		{"", "models/7B/ggml-model-q4_0.gguf", "Q4_0"},
		{"llama ?B all F32", "", "F32"},
		{"", "model.gguf", ""},
	} {
		if got := llamaQuant(tt.desc, tt.file); got != tt.want {
			t.Errorf("llamaQuant(%q, %q) = %q, want %q", tt.desc, tt.file, got, tt.want)
		}
	}
}

// sinceSwitch reports whether Detect's answer comes from a shape added
// after the switch TestDetectMatchesSwitch compares it with: llama-bench
// and llama-benchy, LMBench, and Markdown tables of no tool.
func sinceSwitch(got string, err error) bool {
	if got == FormatLlamaBench || got == FormatLlamaBenchy || got == FormatLMBench {
		return true
	}
	return err != nil && (strings.HasPrefix(err.Error(), "the console report of llm_decode_bench") || strings.HasPrefix(err.Error(), "a Markdown table of no tool") || strings.HasPrefix(err.Error(), "llama-benchy's progress"))
}

// llamaSourceNumbers are the figures of a llama-bench or llama-benchy
// output, for TestPeerNothingDropped: the Markdown's mean ± deviation
// cells; the machine forms' avg/stddev and samples.
func llamaSourceNumbers(t *testing.T, path string, b []byte) map[string]float64 {
	out := map[string]float64{}
	lines := strings.Split(string(b), "\n")
	tr := trimLead(b)
	if looksLlamaBenchyCSV(tr) { // every figure column of every row
		for i, l := range lines[1:] {
			for j, f := range strings.Split(strings.TrimSpace(l), ",") {
				if v, err := strconv.ParseFloat(f, 64); err == nil && j >= 2 {
					out[fmt.Sprintf("%d/%d", i+2, j)] = v
				}
			}
		}
		return out
	}
	if len(tr) > 0 && tr[0] == '{' && bytes.Contains(b, []byte(`"benchmarks"`)) { // llama-benchy's JSON: every statistic's mean and std, the runs' rates
		var top struct{ Benchmarks []map[string]json.RawMessage }
		if err := json.Unmarshal(b, &top); err != nil {
			t.Fatal(err)
		}
		for i, bm := range top.Benchmarks {
			for k, raw := range bm {
				var st benchyStat
				if json.Unmarshal(raw, &st) != nil || st.Mean == nil {
					continue
				}
				out[fmt.Sprintf("%d/%s/mean", i, k)], out[fmt.Sprintf("%d/%s/std", i, k)] = *st.Mean, *st.Std
				if k == "pp_throughput" || k == "tg_throughput" {
					for j, v := range st.Values {
						out[fmt.Sprintf("%d/%s/%d", i, k, j)] = v
					}
				}
			}
		}
		return out
	}
	if len(tr) > 0 && (tr[0] == '[' || tr[0] == '{') {
		tests, err := llamaBenchJSON(b, path)
		if err != nil {
			t.Fatal(err)
		}
		for i, x := range tests {
			for j, v := range append(x.samplesTS, x.samplesNS...) {
				out[fmt.Sprintf("%d/samples/%d", i, j)] = v
			}
			for _, k := range []string{"avg_ts", "stddev_ts", "avg_ns", "stddev_ns"} {
				if v, err := strconv.ParseFloat(x.get(k), 64); err == nil {
					out[fmt.Sprintf("%d/%s", i, k)] = v
				}
			}
		}
		return out
	}
	for i, l := range lines {
		if strings.HasPrefix(l, "INSERT") || strings.HasPrefix(l, "\"") { // SQL and CSV: the last four values
			l = strings.TrimSuffix(strings.TrimSuffix(l, ");"), "\r")
			f := strings.FieldsFunc(l, func(r rune) bool { return r == '\'' || r == '"' || r == ',' || r == ' ' })
			for j := len(f) - 4; j < len(f); j++ {
				if v, err := strconv.ParseFloat(f[j], 64); err == nil {
					out[fmt.Sprintf("%d/%d", i+1, j)] = v
				}
			}
			continue
		}
		for j, c := range mdCells(l) {
			if mean, sd, ok := meanStddev(c); ok && strings.Contains(c, "±") {
				out[fmt.Sprintf("%d/%d/mean", i+1, j)] = *mean
				out[fmt.Sprintf("%d/%d/sd", i+1, j)] = *sd
			}
		}
	}
	return out
}

// mustRead reads a file, failing the test on error.
func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestLlamaBenchJSONWithoutRates: a llama-bench JSON missing the figures
// the reader needs is named, with what to ingest instead.
func TestLlamaBenchJSONWithoutRates(t *testing.T) {
	b := []byte(`[{"build_commit": "a", "build_number": 1, "model_filename": "m.gguf", "model_type": "llama 7B Q4_0", "n_prompt": 512, "n_gen": 0, "avg_ns": 5}]`)
	_, err := readAll(b, "x.json", "")
	if err == nil || !strings.Contains(err.Error(), "it is llama.cpp's llama-bench JSON without its tokens per second") {
		t.Errorf("got %v", err)
	}
}
