package peers

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"speedmatrix/schema"
)

// llama-benchy's machine forms (--format json and --format csv, also
// what --save-result writes). The JSON holds, per benchmark (one prompt
// size, response size, context depth and concurrency), the statistics
// of each figure over the runs (mean, std and the values of each run);
// the CSV holds the rows of the Markdown table with their means and
// standard deviations in columns. Both are read into the same tests as
// the Markdown table, named as llama-benchy names them there ("pp2048 @
// d4096 (c2)", "ctx_pp @ d4096"), so a run's cells and figures do not
// depend on the form it was saved in.

// llamaBenchyCSVHeader is how the header of llama-benchy --format csv
// begins.
var llamaBenchyCSVHeader = []byte("model,test_name,t_s_mean,t_s_std,")

// looksLlamaBenchyCSV reports whether t is llama-benchy's CSV.
func looksLlamaBenchyCSV(t []byte) bool { return bytes.HasPrefix(t, llamaBenchyCSVHeader) }

// benchyStat is one figure of a llama-benchy benchmark over its runs.
type benchyStat struct {
	Mean   *float64  `json:"mean"`
	Std    *float64  `json:"std"`
	Values []float64 `json:"values"`
}

// benchyBenchmark is one element of the JSON's benchmarks list.
type benchyBenchmark struct {
	Concurrency           int64       `json:"concurrency"`
	ContextSize           int64       `json:"context_size"`
	PromptSize            int64       `json:"prompt_size"`
	ResponseSize          int64       `json:"response_size"`
	IsContextPrefillPhase bool        `json:"is_context_prefill_phase"`
	PP                    *benchyStat `json:"pp_throughput"`
	PPReq                 *benchyStat `json:"pp_req_throughput"`
	TG                    *benchyStat `json:"tg_throughput"`
	TGReq                 *benchyStat `json:"tg_req_throughput"`
	Peak                  *benchyStat `json:"peak_throughput"`
	PeakReq               *benchyStat `json:"peak_req_throughput"`
	TTFR                  *benchyStat `json:"ttfr"`
	EstPPT                *benchyStat `json:"est_ppt"`
	E2ETTFT               *benchyStat `json:"e2e_ttft"`
}

// benchyKnown are the benchmark keys read into cells; benchySeries the
// time series llama-benchy saves on request, which the archive does not
// hold (the run's metadata names them).
var (
	benchyKnown = []string{"concurrency", "context_size", "prompt_size", "response_size", "is_context_prefill_phase",
		"pp_throughput", "pp_req_throughput", "tg_throughput", "tg_req_throughput", "peak_throughput",
		"peak_req_throughput", "ttfr", "est_ppt", "e2e_ttft"}
	benchySeries = []string{"throughput_over_time", "requests_throughput_over_time"}
)

// llamaBenchyJSON reads llama-benchy's JSON result into one run.
func llamaBenchyJSON(b []byte, name string) ([]*schema.Matrix, error) {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(b, &top); err != nil {
		return nil, jsonError(name, b, 1, err)
	}
	str := func(k string) string {
		var s string
		if json.Unmarshal(top[k], &s) != nil {
			return strings.TrimSpace(string(top[k]))
		}
		return s
	}
	var maxConc int64
	if raw, ok := top["max_concurrency"]; ok {
		if err := json.Unmarshal(raw, &maxConc); err != nil {
			return nil, errorf(name, keyLine(b, "max_concurrency", 1), "max_concurrency %s is not a count", raw)
		}
	}
	var raws []json.RawMessage
	if err := json.Unmarshal(top["benchmarks"], &raws); err != nil {
		return nil, errorf(name, keyLine(b, "benchmarks", 1), "benchmarks is not a list of benchmarks")
	}
	// Each benchmark's line: the n-th `"concurrency"` key of the file
	// opens the n-th benchmark in llama-benchy's key order.
	lines := keyLines(b, "concurrency")
	series := map[string]bool{}
	var perRequest []string // statistics with one value per request, not per run
	var tests []llamaTest
	for i, raw := range raws {
		line := 1
		if i < len(lines) {
			line = lines[i]
		}
		var keys map[string]json.RawMessage
		var bm benchyBenchmark
		if err := json.Unmarshal(raw, &keys); err != nil {
			return nil, errorf(name, line, "benchmark %d is not an object", i+1)
		}
		if err := json.Unmarshal(raw, &bm); err != nil {
			return nil, jsonError(name, raw, line, err)
		}
		for k := range keys {
			switch {
			case slices.Contains(benchySeries, k):
				series[k] = true
			case !slices.Contains(benchyKnown, k):
				return nil, errorf(name, line, "benchmark %d: key %q is not one llama-benchy writes (known: %s)", i+1, k, strings.Join(benchyKnown, ", "))
			}
		}
		for _, st := range []struct {
			k string
			s *benchyStat
		}{{"pp_req_throughput", bm.PPReq}, {"tg_req_throughput", bm.TGReq}, {"peak_req_throughput", bm.PeakReq}, {"ttfr", bm.TTFR}, {"est_ppt", bm.EstPPT}, {"e2e_ttft", bm.E2ETTFT}} {
			if st.s != nil && bm.PP != nil && len(st.s.Values) != len(bm.PP.Values) && !slices.Contains(perRequest, st.k) {
				perRequest = append(perRequest, st.k)
			}
		}
		ts, err := benchyTests(&bm, str("model"), maxConc > 1, name, line)
		if err != nil {
			return nil, err
		}
		tests = append(tests, ts...)
	}
	if len(tests) == 0 {
		return nil, errorf(name, keyLine(b, "benchmarks", 1), "llama-benchy result with no benchmarks")
	}
	ms, err := llamaBenchRuns(tests, name, "")
	if err != nil {
		return nil, err
	}
	for _, m := range ms {
		r := &m.Run
		r.SourceFormat = FormatLlamaBenchy
		r.BenchVersion = str("version")
		if t, err := time.Parse("2006-01-02 15:04:05Z07:00", str("timestamp")); err == nil {
			t = t.UTC()
			r.StartedAt = &t
		}
		for _, k := range slices.Sorted(mapKeys(top)) {
			switch k {
			case "version", "model", "benchmarks":
				continue
			}
			addField(r, "Run", k, str(k))
		}
		if len(perRequest) > 0 {
			addField(r, "Not stored", "values per request", strings.Join(perRequest, ", ")+": one value per request of each run at a concurrency above 1; their mean and standard deviation are stored")
		}
		for _, k := range benchySeries {
			if series[k] {
				addField(r, "Not stored", k, "time series of the benchmark's throughput (not held by the archive)")
			}
		}
	}
	return ms, nil
}

// mapKeys returns the keys of a JSON object.
func mapKeys(m map[string]json.RawMessage) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// keyLines returns the line of every occurrence of "key" in b.
func keyLines(b []byte, key string) []int {
	var out []int
	pat := []byte(`"` + key + `"`)
	off := 0
	for {
		i := bytes.Index(b[off:], pat)
		if i < 0 {
			return out
		}
		out = append(out, lineAt(b, int64(off+i)))
		off += i + len(pat)
	}
}

// benchyTests turns one benchmark into the tests llama-benchy's table
// prints for it: the prompt and the generation of a standard benchmark,
// or of the context-loading phase of a prefix-caching one.
func benchyTests(bm *benchyBenchmark, model string, suffix bool, name string, line int) ([]llamaTest, error) {
	if bm.Concurrency < 1 || bm.PromptSize < 0 || bm.ResponseSize < 0 || bm.ContextSize < 0 {
		return nil, errorf(name, line, "benchmark at concurrency %d, prompt %d, response %d, context %d: not a benchmark llama-benchy runs", bm.Concurrency, bm.PromptSize, bm.ResponseSize, bm.ContextSize)
	}
	c := ""
	if suffix {
		c = fmt.Sprintf(" (c%d)", bm.Concurrency)
	}
	d := ""
	if bm.ContextSize > 0 {
		d = fmt.Sprintf(" @ d%d", bm.ContextSize)
	}
	ppName, tgName := fmt.Sprintf("pp%d%s%s", bm.PromptSize, d, c), fmt.Sprintf("tg%d%s%s", bm.ResponseSize, d, c)
	if bm.IsContextPrefillPhase {
		ppName, tgName = fmt.Sprintf("ctx_pp @ d%d%s", bm.ContextSize, c), fmt.Sprintf("ctx_tg @ d%d%s", bm.ContextSize, c)
	}
	var out []llamaTest
	add := func(test string, total, req *benchyStat, extras []benchyExtra) error {
		if total == nil {
			return nil
		}
		t := llamaTest{line: line, tool: "llama-benchy", conc: int32(bm.Concurrency)}
		t.fields = append(t.fields, schema.KV{Key: "model", Value: model})
		if err := t.setTest(test); err != nil {
			return errorf(name, line, "%v", err)
		}
		t.avgTS, t.stddevTS, t.samplesTS = total.Mean, total.Std, total.Values
		if req != nil && bm.Concurrency > 1 {
			// Note: at a concurrency above 1 the per-request values are
			// one per request of each run, not one per run: a run's
			// per-request rate is then the mean, the same for each.
			t.reqTS = req.Mean
			if len(req.Values) == len(t.samplesTS) {
				t.reqSamplesTS = req.Values
			}
		}
		if t.avgTS == nil && len(t.samplesTS) == 0 {
			return errorf(name, line, "%s: tokens per second without a mean or values", test)
		}
		for _, e := range append([]benchyExtra{{"tok_s_req", req}}, extras...) {
			if e.s == nil {
				continue
			}
			if e.s.Mean != nil {
				t.extra = append(t.extra, schema.Metric{Name: e.name + "_mean", Value: *e.s.Mean})
			}
			if e.s.Std != nil {
				t.extra = append(t.extra, schema.Metric{Name: e.name + "_stddev", Value: *e.s.Std})
			}
		}
		if len(t.samplesTS) > 0 && bm.E2ETTFT != nil && len(bm.E2ETTFT.Values) == len(t.samplesTS) && t.nGen == 0 {
			t.ttftSamples = bm.E2ETTFT.Values
		}
		out = append(out, t)
		return nil
	}
	if err := add(ppName, bm.PP, bm.PPReq, []benchyExtra{{"ttfr_ms", bm.TTFR}, {"est_ppt_ms", bm.EstPPT}, {"e2e_ttft_ms", bm.E2ETTFT}}); err != nil {
		return nil, err
	}
	if err := add(tgName, bm.TG, bm.TGReq, []benchyExtra{{"peak_tok_s", bm.Peak}, {"peak_tok_s_req", bm.PeakReq}}); err != nil {
		return nil, err
	}
	return out, nil
}

// benchyExtra is a figure of a test kept in extra under name.
type benchyExtra struct {
	name string
	s    *benchyStat
}

// setTest names the test and reads its tokens and concurrency from the
// name (a Markdown row's test cell, a CSV's test_name).
func (t *llamaTest) setTest(test string) error {
	kind, np, ng, nd, conc, ok := parseLlamaTest(test)
	if !ok {
		return fmt.Errorf("test %q is not a pp<N>, tg<N> or ctx_pp/ctx_tg test", test)
	}
	if conc > 0 {
		t.conc = int32(conc)
	}
	t.printedTest = test
	t.nPrompt, t.nGen, t.nDepth = np, ng, nd
	switch kind {
	case "ctx_pp": // llama-benchy loading the context: a cold prompt of the depth
		t.nPrompt, t.nDepth = nd, 0
	case "ctx_tg":
		t.nGen = 1
	}
	return nil
}

// benchyCSVFigures maps the CSV's figure columns to the names the
// Markdown table's columns get (figureName), mean and stddev.
var benchyCSVFigures = map[string]string{
	"t_s_req": "tok_s_req", "peak_ts": "peak_tok_s", "peak_ts_req": "peak_tok_s_req",
	"ttfr": "ttfr_ms", "est_ppt": "est_ppt_ms", "e2e_ttft": "e2e_ttft_ms",
}

// llamaBenchyCSV reads llama-benchy --format csv: one row per test of
// the Markdown table, each figure's mean and std in columns.
func llamaBenchyCSV(b []byte, name string) ([]*schema.Matrix, error) {
	var tests []llamaTest
	var col map[string]int
	err := csvRows(b, name, func(header []string, line int, rec []string) error {
		if col == nil {
			col = map[string]int{}
			for i, h := range header {
				col[strings.TrimSpace(h)] = i
			}
		}
		if len(rec) != len(header) {
			return errorf(name, line, "%d fields where the header names %d", len(rec), len(header))
		}
		get := func(k string) string {
			if i, ok := col[k]; ok {
				return strings.TrimSpace(rec[i])
			}
			return ""
		}
		num := func(k string) (*float64, error) {
			s := get(k)
			if s == "" {
				return nil, nil
			}
			v, err := strconv.ParseFloat(s, 64)
			if err != nil {
				return nil, errorf(name, line, "%s %q is not a number", k, s)
			}
			return &v, nil
		}
		t := llamaTest{line: line, tool: "llama-benchy"}
		if err := t.setTest(get("test_name")); err != nil {
			return errorf(name, line, "%v", err)
		}
		t.fields = append(t.fields, schema.KV{Key: "model", Value: get("model")})
		var err error
		if t.avgTS, err = num("t_s_mean"); err != nil {
			return err
		}
		if t.stddevTS, err = num("t_s_std"); err != nil {
			return err
		}
		if t.avgTS == nil {
			return errorf(name, line, "test %s without t_s_mean", get("test_name"))
		}
		if t.conc > 1 {
			if t.reqTS, err = num("t_s_req_mean"); err != nil {
				return err
			}
		}
		for _, h := range header[4:] {
			stat, ok := strings.CutSuffix(h, "_mean")
			which := "_mean"
			if !ok {
				stat, ok = strings.CutSuffix(h, "_std")
				which = "_stddev"
			}
			n, known := benchyCSVFigures[stat]
			if !ok || !known {
				if get(h) != "" {
					return errorf(name, line, "column %q is not one llama-benchy writes", h)
				}
				continue
			}
			v, err := num(h)
			if err != nil {
				return err
			}
			if v != nil {
				t.extra = append(t.extra, schema.Metric{Name: n + which, Value: *v})
			}
		}
		tests = append(tests, t)
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(tests) == 0 {
		return nil, errorf(name, 1, "a llama-benchy CSV without rows")
	}
	if slices.ContainsFunc(tests, func(t llamaTest) bool { return t.conc == 0 }) && slices.ContainsFunc(tests, func(t llamaTest) bool { return t.conc > 0 }) {
		return nil, errorf(name, 1, "a llama-benchy CSV whose tests name a concurrency only in part")
	}
	ms, err := llamaBenchRuns(tests, name, "")
	if err != nil {
		return nil, err
	}
	for _, m := range ms {
		m.Run.SourceFormat = FormatLlamaBenchy
	}
	return ms, nil
}
