package peers

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"slices"
	"sort"
	"strings"

	"speedmatrix/internal/source"
	"speedmatrix/schema"
)

// Formats of other benchmark tools' result files, stored in
// Run.SourceFormat. The README lists the versions read and how each field
// maps.
const (
	FormatLLMBenchJSON = "llm-inference-bench-json"
	FormatVLLMBench    = "vllm-bench-serve"
	FormatSGLangBench  = "sglang-bench-serving"
	FormatGuideLLM     = "guidellm"
	FormatAIPerf       = "aiperf"
	FormatGenAIPerf    = "genai-perf"
	FormatAIPerfCSV    = "aiperf-csv"
	FormatGenAIPerfCSV = "genai-perf-csv"
	FormatLLMPerf      = "llmperf"
)

// Formats lists the formats of other tools' result files, in the
// order detection tries them.
var Formats = []string{FormatLLMBenchJSON, FormatGuideLLM, FormatLLMPerf, FormatAIPerf, FormatGenAIPerf, FormatAIPerfCSV, FormatGenAIPerfCSV, FormatGenAIBench, FormatInferencePerf, FormatHFBenchmarker, FormatVLLMBench, FormatSGLangBench}

// peerParsers maps a peer format to the function that turns a whole
// result file into its runs (most files hold one; an appended vLLM or
// SGLang file may hold several configurations). Unlike the document
// formats they do not go through rawDoc: their figures are already
// machine-readable.
var peerParsers = map[string]func(b []byte, name string) ([]*schema.Matrix, error){
	FormatLLMBenchJSON:  one(parseLLMBenchJSON),
	FormatVLLMBench:     parseVLLMBench,
	FormatSGLangBench:   parseSGLangBench,
	FormatGuideLLM:      one(parseGuideLLM),
	FormatAIPerf:        one(parseAIPerfJSON),
	FormatGenAIPerf:     one(parseAIPerfJSON),
	FormatAIPerfCSV:     one(parseAIPerfCSV),
	FormatGenAIPerfCSV:  one(parseGenAIPerfCSV),
	FormatLLMPerf:       one(parseLLMPerf),
	FormatGenAIBench:    one(parseGenAIBench),
	FormatInferencePerf: one(parseInferencePerf),
	FormatHFBenchmarker: one(parseHFBenchmarker),
}

// one adapts the parser of a format whose files hold one run.
func one(p func(b []byte, name string) (*schema.Matrix, error)) func(b []byte, name string) ([]*schema.Matrix, error) {
	return func(b []byte, name string) ([]*schema.Matrix, error) {
		m, err := p(b, name)
		if err != nil {
			return nil, err
		}
		return []*schema.Matrix{m}, nil
	}
}

// containsAfter is bytes.Contains(b, pre+rest) that searches for rest
// and checks that pre precedes it: rest should begin with a byte that
// documents hold less often than pre's first.
//
// Note: bytes.Index stops wherever its needle's first byte occurs, and
// falls back to a slower scan when those stops fail too often: a needle
// beginning with "\n", "r" or "S" costs a seed document 1–3 µs, the same
// from "B" or "_" 0.3–0.7 µs (one run of each). Detect reads every
// text document for four such needles ("Best Configurations",
// "benchmarks:", "request_performance:", "Serving Benchmark Result"):
// `parse.test -test.run XXX -test.bench 'DetectPeer$' -test.benchtime
// 100000x`, 5 interleaved rounds on a loaded machine, 10.9 → 2.0 µs for
// seed 000, 8.7 → 1.7 for 001.
func containsAfter(b []byte, pre string, rest []byte) bool {
	for off := 0; off <= len(b); {
		i := bytes.Index(b[off:], rest)
		if i < 0 {
			return false
		}
		at := off + i
		if at >= len(pre) && string(b[at-len(pre):at]) == pre {
			return true
		}
		off = at + 1
	}
	return false
}

// Detect tells which other tool wrote b, from its content. It returns
// "" when b is not JSON, JSON Lines or an AIPerf CSV, and an error when it
// is JSON of no tool speedmatrix reads.
func Detect(b []byte) (string, error) {
	t := bytes.TrimLeft(b, "\ufeff \t\r\n")
	if bytes.HasPrefix(t, []byte("Metric,")) {
		// GenAI-Perf writes rates "(per sec)"; AIPerf, its successor,
		// "(tokens/sec)" and "(requests/sec)".
		if bytes.Contains(t, []byte("(per sec)")) {
			return FormatGenAIPerfCSV, nil
		}
		return FormatAIPerfCSV, nil
	}
	if bytes.HasPrefix(t, []byte("Run Info,")) {
		// guidellm's benchmarks.csv (three header rows: group, field,
		// unit or statistic).
		return "", fmt.Errorf("guidellm's CSV export (benchmarks.csv): its rows give each benchmark's strategy type, not the strategy's rate or streams beside the figures; ingest the JSON or YAML report of the same run (--outputs json or yaml)")
	}
	if containsAfter(t, "\n", []byte("Best Configurations")) && bytes.Contains(t, []byte("\nPareto Optimal Points")) {
		return "", fmt.Errorf("AIPerf's sweep aggregate CSV (profile_export_aiperf_sweep.csv): each metric's mean, std, min, max and cv rounded to two decimals, without units or percentiles; ingest profile_export_aiperf_sweep.json beside it")
	}
	if looksVLLMSweepCSV(t) {
		return FormatVLLMBench, nil // vllm bench sweep's summary.csv
	}
	if looksGuideLLMYAML(t) {
		return FormatGuideLLM, nil // guidellm's YAML report
	}
	if len(t) == 0 || (t[0] != '{' && t[0] != '[') {
		if r := benchmarkReport(t); r != "" {
			return "", errors.New(r)
		}
		if r := csvTable(t); r != "" {
			return "", errors.New(r)
		}
		if r := consoleSummary(t); r != "" {
			return "", errors.New(r)
		}
		return "", nil
	}
	keys, err := firstObjectKeys(t)
	if err != nil {
		return "", err
	}
	has := func(k string) bool { _, ok := keys[k]; return ok }
	hasSuffix := func(suffix string) bool {
		for k := range keys {
			if strings.HasSuffix(k, suffix) {
				return true
			}
		}
		return false
	}
	switch {
	case has("results") && (has("summary_table") || has("prefill") || has("metadata")):
		return FormatLLMBenchJSON, nil
	case has("benchmarks"):
		return FormatGuideLLM, nil
	case has("aggregated_metrics"):
		return FormatGenAIBench, nil
	case has("load_summary") && (has("successes") || has("failures")):
		return FormatInferencePerf, nil
	case has("results") && bytes.Contains(keys["results"], []byte(`"token_throughput_secs"`)):
		return FormatHFBenchmarker, nil
	case has("num_concurrent_requests") || hasSuffix("_ttft_s_mean") || has("results_ttft_s_mean") || llmperfKeyed(t) != nil:
		return FormatLLMPerf, nil
	case isAIPerfAggregate(keys):
		return FormatAIPerf, nil // a sweep or repeated runs, aggregated
	case isStatsBlock(keys["records"]) && bytes.Contains(keys["records"], []byte(`"header"`)):
		return FormatAIPerf, nil // AIPerf 0.1.x
	case isStatsBlock(keys["time_to_first_token"]) || isStatsBlock(keys["request_throughput"]) || isStatsBlock(keys["output_token_throughput"]):
		if cfg := keys["input_config"]; bytes.Contains(cfg, []byte(`"genai_perf`)) || bytes.Contains(cfg, []byte(`"service_kind"`)) {
			return FormatGenAIPerf, nil
		}
		return FormatAIPerf, nil
	case has("best_of") || has("burstiness") || has("tokenizer_id") || hasSuffix("_e2el_ms") || hasSuffix("_tpot_ms") && !has("total_output_tokens_retokenized"):
		return FormatVLLMBench, nil
	case has("total_output_tokens_retokenized") || hasSuffix("_e2e_latency_ms") || has("sharegpt_output_len"):
		return FormatSGLangBench, nil
	case hasSuffix("_ttft_ms") && has("model_id"):
		// Only TTFT keys: vLLM's when it names its model; a home-grown
		// script's summary (avg_ttft_ms, p50_ttft_ms and no model) is
		// told apart below, not called a vLLM result without model_id.
		return FormatVLLMBench, nil
	}
	names := make([]string, 0, len(keys))
	for k := range keys {
		names = append(names, k)
	}
	sort.Strings(names)
	if len(names) > 8 {
		names = append(names[:8], "…")
	}
	if r := firstNonEmpty(resemblance(keys), keyedResemblance(t)); r != "" {
		return "", fmt.Errorf("JSON of no benchmark tool speedmatrix reads (keys: %s); %s", strings.Join(names, ", "), r)
	}
	return "", fmt.Errorf("JSON of no benchmark tool speedmatrix reads (keys: %s)", strings.Join(names, ", "))
}

// Read parses a result file of another tool; format is one of
// Formats, or "" to detect it. It reports ok=false when b is not such
// a file (not JSON, JSON Lines or an AIPerf CSV), so the caller can try
// the document formats.
func Read(b []byte, name, format string) (ms []*schema.Matrix, ok bool, err error) {
	if format == "" {
		f, err := Detect(b)
		if err != nil {
			var se *json.SyntaxError
			var te *json.UnmarshalTypeError
			if errors.As(err, &se) || errors.As(err, &te) {
				// Offsets count from the first non-blank byte.
				lead := len(b) - len(bytes.TrimLeft(b, "\ufeff \t\r\n"))
				return nil, true, jsonError(name, b[lead:], lineAt(b, int64(lead)), err)
			}
			return nil, true, errorf(name, 1, "%v", err)
		}
		if f == "" {
			return nil, false, nil
		}
		format = f
	}
	p, known := peerParsers[format]
	if !known {
		return nil, false, nil
	}
	ms, err = p(b, name)
	if err != nil {
		return nil, true, err
	}
	for _, m := range ms {
		if m.Run.SourceFormat == "" {
			m.Run.SourceFormat = format
		}
		alignExtras(m.Measurements)
		source.Finish(m, b, name, m.Run.SourceFormat)
	}
	return ms, true, nil
}

// alignExtras orders every row's extra figures by the order in which the
// rows first name them, which is the order a rendered document's columns
// take: rows whose extras differ (an llm_decode_bench cell with a
// hardware summary beside one without) then read back from the document
// as they were.
func alignExtras(rows []schema.Measurement) {
	rank := map[string]int{}
	for _, r := range rows {
		for _, e := range r.Extra {
			if _, ok := rank[e.Name]; !ok {
				rank[e.Name] = len(rank)
			}
		}
	}
	for i := range rows {
		slices.SortStableFunc(rows[i].Extra, func(a, b schema.Metric) int { return rank[a.Name] - rank[b.Name] })
	}
}

// isStatsBlock reports whether raw is an AIPerf/GenAI-Perf metric block:
// an object with a unit and at least one statistic.
func isStatsBlock(raw json.RawMessage) bool {
	if len(raw) == 0 || raw[0] != '{' {
		return false
	}
	return bytes.Contains(raw, []byte(`"unit"`)) || bytes.Contains(raw, []byte(`"avg"`))
}

// firstObjectKeys decodes the first JSON object of t (the object itself,
// the first element of an array, or the first line of JSON Lines) into
// its top-level keys.
func firstObjectKeys(t []byte) (map[string]json.RawMessage, error) {
	t = sanitizeJSON(t)
	dec := json.NewDecoder(bytes.NewReader(t))
	if t[0] == '[' {
		var arr []json.RawMessage
		if err := json.Unmarshal(t, &arr); err != nil {
			return nil, err
		}
		if len(arr) == 0 {
			return nil, fmt.Errorf("an empty array")
		}
		t = arr[0]
		dec = json.NewDecoder(bytes.NewReader(t))
	}
	var keys map[string]json.RawMessage
	if err := dec.Decode(&keys); err != nil {
		return nil, err
	}
	return keys, nil
}

// peerMatrix starts the matrix of one peer result file.
func peerMatrix(tool, version string) *schema.Matrix {
	return &schema.Matrix{Run: schema.Run{BenchTool: tool, BenchVersion: version}}
}

// addField appends a metadata pair when the value is not empty.
func addField(r *schema.Run, section, key, value string) {
	if value == "" {
		return
	}
	r.Metadata = append(r.Metadata, schema.Field{Section: section, Key: key, Value: value})
}

// cellKey identifies a cell for duplicate detection: phase, context,
// concurrency and request rate.
func cellKey(m *schema.Measurement) string {
	c, rr := "-", "-"
	if m.Concurrency != nil {
		c = fmt.Sprint(*m.Concurrency)
	}
	if m.RequestRate != nil {
		rr = fmt.Sprint(*m.RequestRate)
	}
	return fmt.Sprintf("%s|%s|%s|%s", m.Phase, m.ContextLabel, c, rr)
}

// checkPeerCells returns an error naming both lines when two rows of a
// peer file describe the same cell.
func checkPeerCells(name string, ms []schema.Measurement) error {
	seen := map[string]int64{}
	for i := range ms {
		k := cellKey(&ms[i])
		if prev, ok := seen[k]; ok {
			return errorf(name, int(ms[i].SourceLine), "duplicate %s cell (context %s, concurrency %s): already at line %d",
				ms[i].Phase, ms[i].ContextLabel, describeConcurrency(&ms[i]), prev)
		}
		seen[k] = ms[i].SourceLine
	}
	return nil
}

// numberRepeats gives the cells of one run of appended results (vLLM's
// --append-result, a sweep's array, SGLang's JSON Lines) that share a
// load repeat indices 0, 1, … in file order: one benchmark run again
// (splitRuns has put results of other configurations in other runs). A
// row whose figures repeat another's exactly is a duplicated row, an
// error naming both lines.
func numberRepeats(name string, ms []schema.Measurement) error {
	groups := map[string][]int{}
	var order []string
	for i := range ms {
		k := cellKey(&ms[i])
		if _, ok := groups[k]; !ok {
			order = append(order, k)
		}
		groups[k] = append(groups[k], i)
	}
	for _, k := range order {
		g := groups[k]
		if len(g) < 2 {
			continue
		}
		for n, j := range g[1:] {
			for _, p := range g[:n+1] {
				if sameFigures(&ms[p], &ms[j]) {
					return errorf(name, int(ms[j].SourceLine), "duplicate %s cell (context %s, concurrency %s): repeats line %d figure for figure",
						ms[j].Phase, ms[j].ContextLabel, describeConcurrency(&ms[j]), ms[p].SourceLine)
				}
			}
		}
		for r, j := range g {
			ms[j].Repeat = schema.I32(int32(r))
		}
	}
	return nil
}

// sameFigures reports whether two cells hold the same figures, wherever
// they were read.
func sameFigures(a, b *schema.Measurement) bool {
	x, y := *a, *b
	x.SourceLine, y.SourceLine, x.Repeat, y.Repeat = 0, 0, nil, nil
	return reflect.DeepEqual(x, y)
}

// describeConcurrency prints a cell's concurrency and request rate.
func describeConcurrency(m *schema.Measurement) string {
	s := "unbounded"
	if m.Concurrency != nil {
		s = fmt.Sprint(*m.Concurrency)
	}
	if m.RequestRate != nil {
		if math.IsInf(*m.RequestRate, 1) {
			s += ", request rate inf"
		} else {
			s += fmt.Sprintf(", request rate %g/s", *m.RequestRate)
		}
	}
	return s
}

// metric appends a named figure to Extra when set.
func metric(m *schema.Measurement, name string, v num) {
	if p := v.ptr(); p != nil {
		m.Extra = append(m.Extra, schema.Metric{Name: name, Value: *p})
	}
}

// i32 converts an optional count to an optional int32 column.
func i32(n num) *int32 {
	p := n.int()
	if p == nil || *p < 0 || *p > math.MaxInt32 {
		return nil
	}
	v := int32(*p)
	return &v
}
