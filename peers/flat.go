package peers

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"speedmatrix/schema"
)

// flatResult is one result object of vLLM's or SGLang's serving
// benchmark: flat keys such as "median_ttft_ms" or "p99.9_itl_ms". The
// keys vary by version, so the object is kept as raw fields and read by
// name.
type flatResult struct {
	raw  map[string]json.RawMessage
	used map[string]bool
	b    []byte // the object's text, for key line numbers
	line int    // line the object starts on
	// errors are the distinct messages of --save-detailed's per-request
	// "errors" array, in order of first appearance, with their counts.
	errors []errorCount
}

// errorCount is one distinct error message and how many requests gave it.
type errorCount struct {
	msg string
	n   int
}

// decodeFlat decodes one JSON object of flat keys.
func decodeFlat(name string, b []byte, line int) (*flatResult, error) {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil {
		return nil, jsonError(name, b, line, err)
	}
	return &flatResult{raw: raw, used: map[string]bool{}, b: b, line: line}, nil
}

// num reads a numeric key; absent or null gives an unset num.
func (f *flatResult) num(name, key string) (num, error) {
	var n num
	raw, ok := f.raw[key]
	f.used[key] = true
	if !ok {
		return n, nil
	}
	if err := json.Unmarshal(raw, &n); err != nil {
		return n, errorf(name, f.line+keyLine(f.b, key, 1)-1, "%s: %v", key, err)
	}
	return n, nil
}

// first reads the first present key of keys (versions renamed some).
func (f *flatResult) first(name string, keys ...string) (num, error) {
	for _, k := range keys {
		if _, ok := f.raw[k]; ok {
			return f.num(name, k)
		}
	}
	return num{}, nil
}

// str reads a string key ("" when absent, null or not a string).
func (f *flatResult) str(key string) string {
	f.used[key] = true
	var s string
	if raw, ok := f.raw[key]; ok {
		if json.Unmarshal(raw, &s) != nil {
			return strings.TrimSpace(string(raw))
		}
	}
	return s
}

// latencies fills a measurement's latency distributions from keys named
// {mean,median,std,pNN}_{metric}_ms, mapping each tool metric to the
// column family of the same formula.
func (f *flatResult) latencies(name, metric string, median, mean, p90, p99 **float64) error {
	get := func(stat string) (num, error) {
		if v, err := f.num(name, stat+"_"+metric+"_ms"); err != nil || v.Set {
			return v, err
		}
		// A derivative of benchmark_serving writes seconds under the
		// same names without "_ms" (median_ttft, p99_tpot).
		v, err := f.num(name, stat+"_"+metric)
		if p := v.scaled(1000); p != nil {
			v.V = *p
		}
		return v, err
	}
	for _, x := range []struct {
		stat string
		dst  **float64
	}{{"median", median}, {"mean", mean}, {"p90", p90}, {"p99", p99}} {
		v, err := get(x.stat)
		if err != nil {
			return err
		}
		if x.dst != nil {
			*x.dst = v.ptr()
		}
	}
	return nil
}

// extras moves every numeric key not read into a named column into
// Measurement.Extra, named by the tool's key with "." replaced ("p99.9_ttft_ms"
// becomes "p99_9_ttft_ms"), so nothing the tool measured is lost. Numbers
// written as strings count when numericStrings is set (llmperf writes
// some min/max as "3753"); vLLM's are --metadata labels, kept by
// stringFields.
func (f *flatResult) extras(m *schema.Measurement, numericStrings bool) {
	for _, k := range slices.Sorted(maps.Keys(f.raw)) {
		raw := f.raw[k]
		if !f.used[k] && len(raw) > 0 && raw[0] == '[' {
			f.arrayExtras(m, k, raw)
			continue
		}
		if f.used[k] || len(raw) == 0 || raw[0] == '{' || raw[0] == '"' && !numericStrings {
			continue
		}
		var n num
		if json.Unmarshal(raw, &n) != nil || !n.Set || math.IsNaN(n.V) {
			continue
		}
		name := strings.ReplaceAll(k, ".", "_")
		if secondsLatencyKey.MatchString(k) {
			// Seconds under a latency name without a unit: stored in
			// milliseconds, named with the unit.
			name, n.V = name+"_ms", n.V*1000
		}
		m.Extra = append(m.Extra, schema.Metric{Name: name, Value: n.V})
	}
}

// secondsLatencyKey matches the latency statistics a benchmark_serving
// derivative writes in seconds without a unit suffix ("std_ttft",
// "p99.9_e2el").
var secondsLatencyKey = regexp.MustCompile(`^(mean|median|std|min|max|p[0-9]+(\.[0-9]+)?)_(ttft|tpot|itl|e2el|e2e_latency)$`)

// stringFields returns the string-valued and boolean keys not read, for
// Run.Metadata (vLLM's --metadata k=v pairs land there, numbers as
// strings included).
func (f *flatResult) stringFields() []schema.KV {
	var out []schema.KV
	for _, k := range slices.Sorted(maps.Keys(f.raw)) {
		if f.used[k] {
			continue
		}
		raw := f.raw[k]
		if len(raw) > 0 && raw[0] == '"' {
			var s string
			if json.Unmarshal(raw, &s) == nil {
				out = append(out, schema.KV{Key: k, Value: s})
				f.used[k] = true
			}
		}
		if t := string(raw); t == "true" || t == "false" {
			// Settings some versions add (ignore_eos).
			out = append(out, schema.KV{Key: k, Value: t})
			f.used[k] = true
		}
	}
	return out
}

// lengthStats reads an array of per-request lengths ("input_lens") and
// returns its count, mean and median; ok is false when absent.
func (f *flatResult) lengthStats(key string) (n int, mean, median float64, ok bool) {
	f.used[key] = true
	raw, present := f.raw[key]
	if !present || len(raw) == 0 || raw[0] != '[' {
		return 0, 0, 0, false
	}
	var xs []float64
	if json.Unmarshal(raw, &xs) != nil || len(xs) == 0 {
		return 0, 0, 0, false
	}
	sum := 0.0
	for _, x := range xs {
		sum += x
	}
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	med := s[len(s)/2]
	if len(s)%2 == 0 {
		med = (s[len(s)/2-1] + s[len(s)/2]) / 2
	}
	return len(xs), sum / float64(len(xs)), med, true
}

// parseFlatObjects splits a vLLM/SGLang result file into its objects: one
// object, a JSON array of objects (vllm bench sweep), or JSON Lines
// (--append-result, SGLang's default).
func parseFlatObjects(name string, b []byte) ([]*flatResult, error) {
	b = sanitizeJSON(b)
	t := bytes.TrimSpace(b)
	if len(t) == 0 {
		return nil, errorf(name, 0, "empty file")
	}
	if t[0] == '[' {
		var arr []json.RawMessage
		if err := json.Unmarshal(t, &arr); err != nil {
			return nil, jsonError(name, b, 1, err)
		}
		out := make([]*flatResult, 0, len(arr))
		for _, raw := range arr {
			start := bytes.Index(b, raw)
			line := 1
			if start >= 0 {
				line = lineAt(b, int64(start))
			}
			f, err := decodeFlat(name, raw, line)
			if err != nil {
				return nil, err
			}
			out = append(out, f)
		}
		if len(out) == 0 {
			return nil, errorf(name, 1, "empty array: no results")
		}
		return out, nil
	}
	// One pretty-printed object, or JSON Lines: try the whole file first.
	var probe map[string]json.RawMessage
	if json.Unmarshal(t, &probe) == nil {
		f, err := decodeFlat(name, t, 1)
		if err != nil {
			return nil, err
		}
		return []*flatResult{f}, nil
	}
	lines, numbers := jsonLines(b)
	out := make([]*flatResult, 0, len(lines))
	for i, l := range lines {
		f, err := decodeFlat(name, l, numbers[i])
		if err != nil {
			return nil, err
		}
		out = append(out, f)
	}
	return out, nil
}

// vllmDate parses vLLM's "date" field ("20260806-132830", local time of
// the benchmark host, read as UTC since the zone is not recorded), and
// the other tools' times in the same way (AIPerf's start_time
// "2026-07-03T05:24:02.800131").
func vllmDate(s string) *time.Time {
	for _, layout := range []string{"20060102-150405", time.RFC3339, "2006-01-02T15:04:05.999999999", "2006-01-02 15:04:05"} {
		if t, err := time.Parse(layout, s); err == nil {
			t = t.UTC()
			return &t
		}
	}
	return nil
}

// UnknownContext is the context label of a serve cell whose tool
// recorded no prompt length (its context_tokens is null).
const UnknownContext = "unknown"

// inputContext sets a serve cell's context from its prompt length: the
// requested length when the file records it (callers pass it), else the
// measured mean.
func inputContext(m *schema.Measurement, meanInput float64) {
	if meanInput <= 0 || math.IsNaN(meanInput) || math.IsInf(meanInput, 0) {
		m.ContextLabel = UnknownContext
		return
	}
	t := int64(math.Round(meanInput))
	m.ContextTokens = &t
	m.ContextLabel = serveLabel(t)
}

// poolMeasuredContexts gives the lines is of one run that take their
// context from the measured mean prompt length (a dataset of real
// prompts such as sharegpt; fromSettings reports the lines whose context
// is the tool's length settings instead) one context per dataset: the
// mean over those lines (total input tokens over completed requests), so
// a rate sweep of one dataset forms one curve; each line's own mean
// stays in prompt_tokens. Lines pool only with lines of the same dataset
// whose means are within 5% of the smallest among them.
//
// Note: the lines of an SGLang sharegpt sweep measured 224.2 and 225.3
// tokens (prompts of one dataset, fewer or more of them completed) and
// landed in contexts 224 and 225, so compare drew no curve through them.
// vLLM's results do not record the dataset, so lines it appended from
// two datasets to one file share a name (""): the 5% bound keeps them
// apart (sharegpt's ~225 tokens against sonnet's ~550).
func poolMeasuredContexts(objs []*flatResult, is []int, cells []schema.Measurement, fromSettings func(*flatResult) bool) {
	type line struct {
		i         int
		in, done  float64
		dataset   string
		meanInput float64
	}
	var ls []line
	for _, i := range is {
		f := objs[i]
		in, _ := f.num("", "total_input_tokens")
		done, _ := f.num("", "completed")
		if fromSettings(f) || !in.Set || !done.Set || done.V <= 0 || in.V <= 0 || cells[i].ContextTokens == nil {
			continue // the context is the settings' or unknown
		}
		ls = append(ls, line{i, in.V, done.V, f.str("dataset_name"), in.V / done.V})
	}
	slices.SortStableFunc(ls, func(a, b line) int {
		return cmp.Or(cmp.Compare(a.dataset, b.dataset), cmp.Compare(a.meanInput, b.meanInput))
	})
	for lo := 0; lo < len(ls); {
		hi, in, done := lo, 0.0, 0.0
		for ; hi < len(ls) && ls[hi].dataset == ls[lo].dataset && ls[hi].meanInput <= 1.05*ls[lo].meanInput; hi++ {
			in += ls[hi].in
			done += ls[hi].done
		}
		if hi-lo >= 2 {
			for _, l := range ls[lo:hi] {
				inputContext(&cells[l.i], in/done)
			}
		}
		lo = hi
	}
}

// nothingCompleted turns the cell of a benchmark in which no request
// completed into an error cell: the tools print zeros for its figures,
// and figures are null, never zero. The load, the counts, the duration
// and the settings the tool printed beside its zeros (num_prompts,
// burstiness…) are kept.
func nothingCompleted(m schema.Measurement, failed *int64) schema.Measurement {
	c := schema.Measurement{Phase: m.Phase, ContextLabel: m.ContextLabel, ContextTokens: m.ContextTokens,
		Concurrency: m.Concurrency, RequestRate: m.RequestRate, Status: schema.StatusError,
		CompletedRequests: m.CompletedRequests, ErroredRequests: failed, MeasuredS: m.MeasuredS,
		SourceLine: m.SourceLine}
	for _, e := range m.Extra {
		if e.Value != 0 {
			c.Extra = append(c.Extra, e)
		}
	}
	c.StatusReason = "no request completed"
	if failed != nil {
		c.StatusReason += fmt.Sprintf(" (%d failed)", *failed)
	}
	if c.ContextLabel == "" {
		c.ContextLabel = UnknownContext
	}
	return c
}

// serveLabel labels a serve cell's context as people name the length they
// asked for: the nearest multiple of 1,024 with a K ("8K" for 8,192 and
// for 8,000 or a measured 7,999; "3K" for 2,969; "1K" for 1,000), the
// count below 896.
// compare aligns serve rows by this label, so runs asked for 8,000 and
// 8,192 tokens meet; context_tokens keeps the exact length.
//
// Note: the seeds' decode and prefill labels floor instead (tokenLabel),
// as their documents print them; serve rows come from other tools whose
// lengths are requested round numbers or measured means near them.
func serveLabel(tokens int64) string {
	if tokens < 896 {
		return strconv.FormatInt(tokens, 10)
	}
	return strconv.FormatInt(max(1, (tokens+512)/1024), 10) + "K"
}

// servingCell reads one result object of vLLM's or SGLang's serving
// benchmark, whose keys mostly agree, into a serve cell. It keeps the
// first error; the caller adds its tool's own keys with get, then calls
// finish.
type servingCell struct {
	name string
	f    *flatResult
	c    schema.Measurement
	err  error
	// completed, inTok and dur are read by start for the callers' derived
	// figures.
	completed, inTok, dur num
}

// startServing reads the shared keys: load (max_concurrency,
// request_rate), counts, duration, throughputs and the ttft, tpot (→ tbt),
// itl (→ chunk_gap) and e2eKey latency families.
func startServing(name string, f *flatResult, e2eKey string) *servingCell {
	s := &servingCell{name: name, f: f}
	c := &s.c
	*c = schema.Measurement{Phase: schema.PhaseServe, Status: schema.StatusValid, SourceLine: int64(f.line)}
	c.Concurrency = i32(s.get("max_concurrency"))
	if raw := f.raw["request_rate"]; len(raw) > 0 && raw[0] == '"' && json.Unmarshal(raw, new(num)) != nil {
		// SGLang replaying a trace's timestamps writes "trace": no fixed
		// rate. The word stays in the run's configuration (its label and
		// metadata), the load columns null.
	} else {
		c.RequestRate = s.get("request_rate").ptr()
	}
	s.completed = s.get("completed")
	c.CompletedRequests = s.completed.int()
	s.inTok = s.get("total_input_tokens")
	c.InputTokensTotal = s.inTok.int()
	c.OutputTokens = s.get("total_output_tokens").int()
	s.dur = s.get("duration")
	c.MeasuredS = s.dur.ptr()
	c.TotalTokS = s.get("output_throughput").ptr()
	// vLLM 0.4's benchmark_serving.py spelled it "request_inthroughput".
	c.RequestThroughput = s.get("request_throughput", "request_inthroughput").ptr()
	for _, l := range []struct {
		metric              string
		med, mean, p90, p99 **float64
	}{
		{"ttft", &c.TTFTMs, &c.TTFTMeanMs, &c.TTFTP90Ms, &c.TTFTP99Ms},
		{"tpot", &c.TBTMs, &c.TBTMeanMs, &c.TBTP90Ms, &c.TBTP99Ms},
		{"itl", &c.ChunkGapP50Ms, &c.ChunkGapMeanMs, &c.ChunkGapP90Ms, &c.ChunkGapP99Ms},
		{e2eKey, &c.E2EP50Ms, &c.E2EMeanMs, &c.E2EP90Ms, &c.E2EP99Ms},
	} {
		if err := f.latencies(name, l.metric, l.med, l.mean, l.p90, l.p99); err != nil && s.err == nil {
			s.err = err
		}
		// Note: both tools print 0 for a latency they collected no sample
		// of (np.median(itls or 0): no chunk gaps with max_tokens 1 or
		// without streaming; no TPOT for one-token outputs). A measured
		// latency is never exactly 0, so 0 is null.
		for _, p := range []**float64{l.med, l.mean, l.p90, l.p99} {
			if *p != nil && **p == 0 {
				*p = nil
			}
		}
	}
	c.TTFTP50Ms, c.TBTP50Ms = c.TTFTMs, c.TBTMs
	if c.TBTMs != nil && *c.TBTMs > 0 {
		v := 1000 / *c.TBTMs // the median of per-request decode rates: 1000/x is monotone
		c.PerRequestTokS = &v
	}
	return s
}

// get reads the first present of keys, keeping the first error.
func (s *servingCell) get(keys ...string) num {
	v, err := s.f.first(s.name, keys...)
	if err != nil && s.err == nil {
		s.err = err
	}
	return v
}

// finish marks the keys read elsewhere (run-level strings), moves every
// other number into Extra and checks the cell has a figure.
func (s *servingCell) finish(tool string, runKeys ...string) (schema.Measurement, error) {
	for _, k := range runKeys {
		s.f.used[k] = true
	}
	s.f.extras(&s.c, false)
	if s.c.ErroredRequests == nil {
		// SGLang writes no failure count: --output-details' error
		// messages count the requests that failed.
		for _, e := range s.c.Extra {
			if e.Name == "errors_reported" {
				n := int64(e.Value)
				s.c.ErroredRequests = &n
			}
		}
	}
	if s.err != nil {
		return s.c, s.err
	}
	if s.completed.Set && s.completed.V == 0 {
		return nothingCompleted(s.c, s.get("failed").int()), nil
	}
	if s.c.TotalTokS == nil && s.c.TTFTMs == nil {
		if s.c.E2EP50Ms != nil || s.c.E2EMeanMs != nil {
			// Note: a pooling (embeddings) benchmark has no output tokens
			// and no token timing; serve rows are of generation.
			return s.c, errorf(s.name, s.f.line, "%s result of a pooling (embeddings) benchmark: request latencies but no output tokens or token timing; speedmatrix reads generation benchmarks", tool)
		}
		return s.c, errorf(s.name, s.f.line, "%s result without output_throughput or median_ttft_ms: not a serving benchmark result", tool)
	}
	return s.c, nil
}
