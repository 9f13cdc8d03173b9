package peers

import (
	"bytes"
	"encoding/json"
	"regexp"
	"strconv"
	"strings"
	"time"

	"speedmatrix/schema"
)

// FormatLLMPerf is llmperf's summary (*_summary.json).
const FormatLLMPerf = "llmperf"

// llmperfReader recognises a summary by its keys (num_concurrent_requests,
// results_ttft_s_mean), and an object of summaries keyed by name
// (llmperfKeyed).
var llmperfReader = reader{
	format: FormatLLMPerf,
	parse:  one(parseLLMPerf),
	shapes: []shape{
		{rank: 150, keys: signature{any: []string{"num_concurrent_requests", "results_ttft_s_mean"}, suffixes: []string{"_ttft_s_mean"}}},
		{rank: 151, keys: signature{match: func(_ map[string]json.RawMessage, t []byte) bool { return llmperfKeyed(t) != nil }}},
	},
}

// parseLLMPerf reads an llmperf summary JSON (token_benchmark_ray.py's
// *_summary.json; the leaderboard's "version": "2023-08-31"). Latencies
// are seconds and are converted to milliseconds. llmperf's
// "inter_token_latency" is e2e / output tokens with the first token
// included, which is not our tbt_ms; it lands in extra as
// e2e_per_token_ms_*. Its per-request output throughput (tokens / e2e,
// TTFT included) lands in extra as request_output_tok_s_*, not in
// per_request_tok_s (decode rate after the first token).
//
// Mapping: results_ttft_s_quantiles_pNN × 1000 → ttft_p50/p90/p99_ms
// (median → ttft_ms), results_ttft_s_mean → ttft_mean_ms,
// results_end_to_end_latency_s_* → e2e_*, results_mean_output_throughput_token_per_s
// → total_tok_s, num_concurrent_requests → concurrency, mean_input_tokens
// → the context label, results_number_input_tokens_mean (else
// mean_input_tokens) → prompt_tokens, results_num_completed_requests
// → completed_requests, results_number_errors → errored_requests,
// framework → engine, timestamp → started_at.
func parseLLMPerf(b []byte, name string) (*schema.Matrix, error) {
	objs, err := llmperfObjects(name, b)
	if err != nil {
		return nil, err
	}
	m := peerMatrix("llmperf", "")
	m.Run.SourceFormat = FormatLLMPerf
	for i, f := range objs {
		model := f.str("model")
		if i == 0 {
			m.Run.ModelID, m.Run.Model = model, modelBase(model)
			if base, version, ok := strings.Cut(m.Run.Model, ":"); ok && isHex(version) && len(version) >= 20 {
				// Replicate names a model owner/name:<version hash>
				// (the leaderboard's meta/llama-2-70b-chat:02e5…):
				// the hash is the revision, not part of the name.
				m.Run.Model, m.Run.Revision = base, version
			}
			m.Run.BenchVersion = f.str("version")
			m.Run.Engine = f.str("framework")
			m.Run.Title = "llmperf: " + firstNonEmpty(m.Run.Model, "model not recorded")
			addField(&m.Run, "Run", "Name", f.str("name"))
		}
		c, err := llmperfCell(name, f)
		if err != nil {
			return nil, err
		}
		if ts, err := f.num(name, "timestamp"); err == nil && ts.Set {
			if i == 0 {
				t := time.Unix(int64(ts.V), 0).UTC()
				m.Run.StartedAt = &t
			} else {
				// The run starts with the first summary; each later
				// one keeps its own time.
				metric(&c, "timestamp_unix_s", ts)
			}
		}
		if i == 0 {
			// Strings the summary adds beside the figures (the
			// leaderboard's model_size) describe the run.
			for _, kv := range f.stringFields() {
				if !strings.HasPrefix(kv.Key, "results_") {
					addField(&m.Run, "Run", kv.Key, kv.Value)
				}
			}
		}
		m.Measurements = append(m.Measurements, c)
	}
	if err := checkPeerCells(name, m.Measurements); err != nil {
		return nil, err
	}
	return m, nil
}

// llmperfErrorCode is one "code: count" pair of the Python dict llmperf
// writes as a string in results_error_code_frequency ("{-100.0: 49}",
// "{429: 3, 500: 1}").
var llmperfErrorCode = regexp.MustCompile(`['"]?(-?[0-9.]+|[A-Za-z_]+)['"]?\s*:\s*([0-9]+)`)

// llmperfErrorCodes keeps the error codes and their counts as
// error_code_<code>_count, as genai-bench's are ("-100.0" → "m100").
func llmperfErrorCodes(c *schema.Measurement, freq string) {
	for _, m := range llmperfErrorCode.FindAllStringSubmatch(freq, -1) {
		code := strings.TrimSuffix(m[1], ".0")
		if strings.HasPrefix(code, "-") {
			code = "m" + code[1:]
		}
		if n, err := strconv.ParseFloat(m[2], 64); err == nil {
			metric(c, "error_code_"+metricKey(code)+"_count", num{V: n, Set: true})
		}
	}
}

// llmperfCell maps one llmperf summary to a serve cell.
func llmperfCell(name string, f *flatResult) (schema.Measurement, error) {
	c := schema.Measurement{Phase: schema.PhaseServe, Status: schema.StatusValid, SourceLine: int64(f.line)}
	var firstErr error
	get := func(key string) num {
		v, err := f.num(name, key)
		if err != nil && firstErr == nil {
			firstErr = err
		}
		return v
	}
	ms := func(key string) *float64 { return get(key).scaled(1000) }
	c.Concurrency = i32(get("num_concurrent_requests"))
	// The context is the configured mean prompt length (stable across
	// the runs of a sweep); prompt_tokens the measured mean when the
	// summary has it.
	in := get("mean_input_tokens")
	inputContext(&c, in.V)
	c.PromptTokens = firstSet(get("results_number_input_tokens_mean"), in).int()
	c.TTFTMs = ms("results_ttft_s_quantiles_p50")
	c.TTFTP50Ms = c.TTFTMs
	c.TTFTP90Ms = ms("results_ttft_s_quantiles_p90")
	c.TTFTP99Ms = ms("results_ttft_s_quantiles_p99")
	c.TTFTMeanMs = ms("results_ttft_s_mean")
	c.E2EP50Ms = ms("results_end_to_end_latency_s_quantiles_p50")
	c.E2EP90Ms = ms("results_end_to_end_latency_s_quantiles_p90")
	c.E2EP99Ms = ms("results_end_to_end_latency_s_quantiles_p99")
	c.E2EMeanMs = ms("results_end_to_end_latency_s_mean")
	c.TotalTokS = get("results_mean_output_throughput_token_per_s").ptr()
	c.CompletedRequests = get("results_num_completed_requests").int()
	c.ErroredRequests = get("results_number_errors").int()
	if v := get("results_num_completed_requests_per_min"); v.Set {
		r := v.V / 60
		c.RequestThroughput = &r
	}
	for _, x := range []struct{ key, name string }{
		{"results_inter_token_latency_s_quantiles_p50", "e2e_per_token_ms_p50"},
		{"results_inter_token_latency_s_quantiles_p90", "e2e_per_token_ms_p90"},
		{"results_inter_token_latency_s_quantiles_p99", "e2e_per_token_ms_p99"},
		{"results_inter_token_latency_s_mean", "e2e_per_token_ms_mean"},
	} {
		if p := ms(x.key); p != nil {
			c.Extra = append(c.Extra, schema.Metric{Name: x.name, Value: *p})
		}
	}
	for _, x := range []struct{ key, name string }{
		{"results_request_output_throughput_token_per_s_quantiles_p50", "request_output_tok_s_p50"},
		{"results_request_output_throughput_token_per_s_mean", "request_output_tok_s_mean"},
		{"mean_output_tokens", "mean_output_tokens"},
		{"results_error_rate", "error_rate"},
	} {
		metric(&c, x.name, get(x.key))
	}
	// The remaining quantiles and statistics (p25, p75, p95, min, max,
	// stddev, token counts) are kept as they are, seconds and all.
	llmperfErrorCodes(&c, f.str("results_error_code_frequency"))
	for _, k := range []string{"version", "name", "model", "framework", "timestamp", "results_error_code_frequency"} {
		f.used[k] = true
	}
	f.extras(&c, true)
	if firstErr != nil {
		return c, firstErr
	}
	if c.TotalTokS == nil && c.TTFTMs == nil {
		return c, errorf(name, f.line, "llmperf summary without results_mean_output_throughput_token_per_s or TTFT quantiles")
	}
	return c, nil
}

// llmperfObjects reads the summaries of an llmperf file: one summary, a
// list or JSON Lines of them (parseFlatObjects), or an object holding
// them under keys, as llmperf-bench's *_results.json does (keyed by
// concurrency: {"1": {summary}, "2": {summary}, …}), in file order.
func llmperfObjects(name string, b []byte) ([]*flatResult, error) {
	raws := llmperfKeyed(b)
	if raws == nil {
		return parseFlatObjects(name, b)
	}
	b = sanitizeJSON(b)
	out := make([]*flatResult, 0, len(raws))
	for _, raw := range raws {
		line := 1
		if start := bytes.Index(b, raw); start >= 0 {
			line = lineAt(b, int64(start))
		}
		f, err := decodeFlat(name, raw, line)
		if err != nil {
			return nil, err
		}
		out = append(out, f)
	}
	return out, nil
}

// llmperfKeyed returns, in file order, the values of a JSON object whose
// every value is an llmperf summary (an object with
// num_concurrent_requests or results_ttft_s_mean), or nil when b is not
// such an object.
func llmperfKeyed(b []byte) []json.RawMessage {
	dec := json.NewDecoder(bytes.NewReader(sanitizeJSON(b)))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil
	}
	var out []json.RawMessage
	for dec.More() {
		if _, err := dec.Token(); err != nil {
			return nil
		}
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil
		}
		var keys map[string]json.RawMessage
		if json.Unmarshal(raw, &keys) != nil {
			return nil
		}
		_, conc := keys["num_concurrent_requests"]
		_, ttft := keys["results_ttft_s_mean"]
		if !conc && !ttft {
			return nil
		}
		out = append(out, raw)
	}
	return out
}
