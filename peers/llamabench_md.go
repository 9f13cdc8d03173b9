package peers

import (
	"bytes"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"speedmatrix/schema"
)

// llamaMDNames maps the Markdown headers of llama-bench to the field
// names of its machine forms, so a run's metadata keys are alike
// whatever form it was read from.
var llamaMDNames = map[string]string{
	"model": "model_type", "size": "model_size", "params": "model_n_params", "backend": "backends",
	"ngl": "n_gpu_layers", "threads": "n_threads", "sm": "split_mode", "nkvo": "no_kv_offload",
	"fa": "flash_attn", "embd": "embeddings", "ts": "tensor_split", "ot": "tensor_buft_overrides",
	"dev": "devices", "lm": "load_mode", "nopo": "no_op_offload", "noh": "no_host", "fitt": "fit_target",
	"fitc": "fit_min_ctx", "mmap": "use_mmap",
}

// mdCells splits a Markdown table row into its trimmed cells, or nil
// when line is no row.
func mdCells(line string) []string {
	line = strings.TrimSpace(line)
	if !strings.HasPrefix(line, "|") || len(line) < 2 {
		return nil
	}
	line = strings.TrimSuffix(line[1:], "|")
	cells := strings.Split(line, "|")
	for i := range cells {
		cells[i] = strings.TrimSpace(cells[i])
	}
	return cells
}

// mdSeparator reports whether cells are a Markdown table's separator row.
func mdSeparator(cells []string) bool {
	if len(cells) == 0 {
		return false
	}
	for _, c := range cells {
		if strings.Trim(c, "-:") != "" || !strings.Contains(c, "-") {
			return false
		}
	}
	return true
}

// llamaHeaderTool tells which tool printed a Markdown header: llama-bench
// (model, size, params, backend … test, t/s), llama-benchy (model, test,
// t/s and its latency columns), or "".
func llamaHeaderTool(cells []string) string {
	has := func(s string) bool {
		for _, c := range cells {
			if c == s {
				return true
			}
		}
		return false
	}
	if !has("model") || !has("test") || !has("t/s") && !has("t/s (total)") {
		return ""
	}
	if has("ttfr (ms)") || has("e2e_ttft (ms)") || has("est_ppt (ms)") || has("t/s (req)") || has("peak t/s") {
		return "llama-benchy"
	}
	if has("size") && has("params") {
		return "llama-bench"
	}
	return ""
}

// looksLlamaBenchMarkdown reports whether t holds a Markdown table of
// llama-bench (a console log around it included).
func looksLlamaBenchMarkdown(t []byte) bool { return mdTableTool(t) == "llama-bench" }

// looksLlamaBenchyMarkdown reports whether t holds llama-benchy's table.
func looksLlamaBenchyMarkdown(t []byte) bool { return mdTableTool(t) == "llama-benchy" }

// mdTableTool names the tool whose Markdown table t holds first
// (llama-bench or llama-benchy), or "".
func mdTableTool(t []byte) string {
	// Note: every text document comes here; the header's last literal is
	// searched for before any line is split.
	if !bytes.Contains(t, []byte("/s |")) && !bytes.Contains(t, []byte("/s (total) |")) {
		return ""
	}
	for rest := t; len(rest) > 0; {
		var line []byte
		line, rest, _ = bytes.Cut(rest, []byte("\n"))
		if bytes.Contains(line, []byte("/s ")) {
			if tool := llamaHeaderTool(mdCells(string(line))); tool != "" {
				return tool
			}
		}
	}
	return ""
}

// llamaBuildLine is the line llama-bench prints under its table.
var llamaBuildLine = regexp.MustCompile(`^build:\s*([0-9a-fA-F]+|unknown)\s*\((\d+)\)`)

// llamaDeviceLines are the lines of a console log that name the GPUs the
// backends found: CUDA and ROCm ("Device 0: NVIDIA GeForce RTX 4090,
// compute capability 8.9, VMM: yes"), Vulkan ("ggml_vulkan: 0 = AMD
// Radeon RX 7900 XTX (RADV NAVI31) (radv) | uma: 0 …"), Metal
// ("ggml_metal_init: found device: Apple M2 Max", "GPU name:   Apple M4").
var llamaDeviceLines = []*regexp.Regexp{
	regexp.MustCompile(`^\s*Device (\d+): ([^,]+),`),
	regexp.MustCompile(`^ggml_vulkan: (\d+) = (.+?) \(`),
	regexp.MustCompile(`^ggml_metal\w*: (?:found device:|GPU name:)\s+()(.+?)\s*$`),
}

// llamaBenchMarkdown reads llama-bench's (or llama-benchy's) Markdown
// tables, alone or in a console log: each table with the build line
// under it and the GPUs the log listed above it.
func llamaBenchMarkdown(b []byte, name string) ([]*schema.Matrix, error) {
	lines := strings.Split(string(b), "\n")
	var tests []llamaTest
	var gpus []string
	gpusDone := false
	pending := 0 // tests of the last table still without a build line
	for i := 0; i < len(lines); i++ {
		line := strings.TrimRight(lines[i], "\r")
		if m := llamaBuildLine.FindStringSubmatch(strings.TrimSpace(line)); m != nil {
			for j := len(tests) - pending; j < len(tests); j++ {
				tests[j].buildCommit, tests[j].buildNumber = m[1], m[2]
			}
			pending = 0
			continue
		}
		for _, re := range llamaDeviceLines {
			if m := re.FindStringSubmatch(line); m != nil {
				if gpusDone {
					gpus, gpusDone = nil, false
				}
				gpus = append(gpus, strings.TrimSpace(m[2]))
				break
			}
		}
		header := mdCells(line)
		tool := llamaHeaderTool(header)
		if tool == "" || i+1 >= len(lines) || !mdSeparator(mdCells(lines[i+1])) {
			continue
		}
		gpusDone = true
		pending = 0
		for i += 2; i < len(lines); i++ {
			cells := mdCells(lines[i])
			if cells == nil {
				i--
				break
			}
			t, err := llamaMDTest(header, cells, tool, name, i+1)
			if err != nil {
				return nil, err
			}
			t.gpus = gpus
			tests = append(tests, t)
			pending++
		}
	}
	if len(tests) == 0 {
		return nil, errorf(name, 1, "a llama-bench table without rows")
	}
	return llamaBenchRuns(tests, name, "")
}

// llamaMDTest reads one row of a llama-bench or llama-benchy table.
func llamaMDTest(header, cells []string, tool, name string, line int) (llamaTest, error) {
	t := llamaTest{line: line, tool: tool}
	if len(cells) != len(header) {
		return t, errorf(name, line, "%d cells where the header names %d", len(cells), len(header))
	}
	for j, h := range header {
		c := cells[j]
		switch {
		case h == "test":
			if t.setTest(c) != nil {
				return t, errorf(name, line, "test %q is not a pp<N>, tg<N> or pp<N>+tg<M> test (at an optional depth @ d<N>)", c)
			}
		case h == "t/s" || h == "t/s (total)":
			mean, sd, ok := meanStddev(c)
			if !ok {
				return t, errorf(name, line, "t/s %q is not a mean ± standard deviation", c)
			}
			t.printedTS = c
			t.avgTS, t.stddevTS = mean, sd
			if h == "t/s (total)" {
				t.fields = append(t.fields, schema.KV{Key: "t/s column", Value: h})
			}
		case strings.Contains(c, "±") || tool == "llama-benchy" && h != "model":
			if c == "" {
				continue
			}
			mean, sd, ok := meanStddev(c)
			if !ok {
				return t, errorf(name, line, "%s %q is not a mean ± standard deviation", h, c)
			}
			if h == "t/s (req)" {
				t.reqTS = mean
			}
			n := figureName(h)
			if mean != nil {
				t.extra = append(t.extra, schema.Metric{Name: n + "_mean", Value: *mean})
			}
			if sd != nil {
				t.extra = append(t.extra, schema.Metric{Name: n + "_stddev", Value: *sd})
			}
		default:
			k := h
			if f, ok := llamaMDNames[h]; ok {
				k = f
			}
			t.fields = append(t.fields, schema.KV{Key: k, Value: c})
		}
	}
	if t.printedTS == "" {
		return t, errorf(name, line, "a row without t/s")
	}
	if slices.Contains(header, "t/s (total)") && t.conc == 0 {
		// Note: llama-benchy prints "t/s (total)" for a run at a
		// concurrency above 1 without saying which; read at 1 its rows
		// would claim one stream's speed.
		return t, errorf(name, line, "llama-benchy's t/s (total) of a run at a concurrency above 1 that the table does not name: ingest the table of a run at concurrency 1, or one whose tests name theirs (\"tg128 (c4)\")")
	}
	return t, nil
}

// figureName names a figure column with its unit: "ttfr (ms)" →
// "ttfr_ms", "peak t/s" → "peak_tok_s".
func figureName(h string) string {
	h = strings.ReplaceAll(h, "t/s", "tok_s")
	h = strings.NewReplacer("(", "", ")", "", "/", "_", ".", "_").Replace(h)
	return strings.Join(strings.Fields(h), "_")
}

// meanStddev reads "7340.20 ± 23.45" (or a lone mean).
func meanStddev(s string) (mean, sd *float64, ok bool) {
	a, b, two := strings.Cut(s, "±")
	mean = llamaFloat(a)
	if mean == nil {
		return nil, nil, false
	}
	if two {
		if sd = llamaFloat(b); sd == nil {
			return nil, nil, false
		}
	}
	return mean, sd, true
}

// markdownTable tells what a text holding a Markdown table of no tool
// speedmatrix reads is (its columns), or "" when it holds none or holds a
// speed-test document's tables (whose headers name Context or Phase).
// Such a file was once told it lacked an All measurements table.
func markdownTable(t []byte) string {
	if bytes.IndexByte(t, '|') < 0 || bytes.Contains(t, []byte("| Context |")) || bytes.Contains(t, []byte("| Phase |")) {
		return "" // none, or a speed-test document's (whose header may follow its caption on one line)
	}
	var first []string
	prev := ""
	for rest := t; len(rest) > 0; {
		var line []byte
		line, rest, _ = bytes.Cut(rest, []byte("\n"))
		if bytes.IndexByte(line, '|') < 0 {
			prev = ""
			continue
		}
		s := string(line)
		if cells := mdCells(s); mdSeparator(cells) && prev != "" && !mdSeparator(mdCells(prev)) {
			header := mdCells(prev)
			for _, h := range header {
				if h == "Context" || h == "Phase" {
					return "" // our own documents' tables
				}
			}
			if first == nil && len(header) > 0 {
				first = header
			}
		}
		prev = s
	}
	if first == nil {
		return ""
	}
	cols := first
	if len(cols) > 8 {
		cols = append(cols[:8:8], "…")
	}
	return fmt.Sprintf("a Markdown table of no tool speedmatrix reads (columns: %s), not a speed-test document: speedmatrix reads llama-bench's and llama-benchy's tables, speed-test documents (which hold an All measurements table) and other tools' result files", strings.Join(cols, ", "))
}
