package parse

import (
	"math"
	"strings"

	"speedmatrix/schema"
)

// parseVLLMBench reads the result file of vLLM's serving benchmark
// (`vllm bench serve --save-result`, benchmarks/benchmark_serving.py):
// one object, one object per line (--append-result) or an array (vllm
// bench sweep). Every object becomes one serve cell of one run.
//
// Field mapping (formulas in docs/schema.md):
//   - median/mean/p90/p99_ttft_ms → ttft_ms, ttft_mean_ms, ttft_p90_ms, ttft_p99_ms
//   - *_tpot_ms (per request (e2e − ttft)/(tokens − 1)) → tbt_* (the same formula)
//   - *_itl_ms (gaps between streamed chunks) → chunk_gap_*
//   - *_e2el_ms → e2e_*
//   - output_throughput → total_tok_s; 1000 / median_tpot_ms → per_request_tok_s
//     (the median of per-request decode rates, since 1000/x is monotone)
//   - completed, failed, total_output_tokens, total_input_tokens, duration,
//     request_rate ("inf" → +Inf), request_throughput, request_goodput
//     (older files: "request_goodput:")
//   - every other number (std_*, p99.9_*, total_token_throughput, …) → extra
//   - string keys not understood (vllm --metadata k=v) → run metadata
func parseVLLMBench(b []byte, name string) (*schema.Matrix, error) {
	objs, err := parseFlatObjects(name, b)
	if err != nil {
		return nil, err
	}
	m := peerMatrix("vllm bench serve", "")
	m.Run.SourceFormat = FormatVLLMBench
	for i, f := range objs {
		model := f.str("model_id")
		if model == "" {
			return nil, errorf(name, f.line, "vLLM result without model_id")
		}
		if i == 0 {
			m.Run.ModelID = model
			m.Run.Model = modelBase(model)
			m.Run.Title = "vLLM bench serve: " + m.Run.Model
			if d := f.str("date"); d != "" {
				m.Run.StartedAt = vllmDate(d)
				addField(&m.Run, "Run", "Date", d)
			}
			addField(&m.Run, "Run", "Backend", f.str("backend"))
			addField(&m.Run, "Run", "Tokenizer", f.str("tokenizer_id"))
			addField(&m.Run, "Run", "Label", f.str("label"))
			m.Run.Dataset = f.str("dataset_name")
		} else if model != m.Run.ModelID {
			return nil, errorf(name, f.line, "results of two models in one file (%s and %s): split the file", m.Run.ModelID, model)
		}
		c, err := vllmCell(name, f)
		if err != nil {
			return nil, err
		}
		if i == 0 {
			for _, kv := range f.stringFields() {
				addField(&m.Run, "Metadata", kv.Key, kv.Value)
			}
		}
		m.Measurements = append(m.Measurements, c)
	}
	if err := checkPeerCells(name, m.Measurements); err != nil {
		return nil, err
	}
	return m, nil
}

// vllmCell maps one vLLM result object to a serve cell.
func vllmCell(name string, f *flatResult) (schema.Measurement, error) {
	c := schema.Measurement{Phase: schema.PhaseServe, Status: schema.StatusValid, SourceLine: int64(f.line)}
	var firstErr error
	get := func(keys ...string) num {
		v, err := f.first(name, keys...)
		if err != nil && firstErr == nil {
			firstErr = err
		}
		return v
	}
	conc := get("max_concurrency")
	c.Concurrency = i32(conc)
	c.RequestRate = get("request_rate").ptr()
	completed := get("completed")
	failed := get("failed")
	c.CompletedRequests = completed.int()
	c.ErroredRequests = failed.int()
	inTok, outTok := get("total_input_tokens"), get("total_output_tokens")
	c.InputTokensTotal = inTok.int()
	c.OutputTokens = outTok.int()
	dur := get("duration")
	c.MeasuredS = dur.ptr()
	c.TotalTokS = get("output_throughput").ptr()
	c.RequestThroughput = get("request_throughput").ptr()
	c.GoodputReqS = get("request_goodput", "request_goodput:").ptr()
	if inTok.Set && dur.Set && dur.V > 0 {
		v := inTok.V / dur.V
		c.InputTokS = &v
	}
	meanIn := math.NaN()
	if n, mean, _, ok := f.lengthStats("input_lens"); ok {
		meanIn = mean
		c.Extra = append(c.Extra, schema.Metric{Name: "input_lens_count", Value: float64(n)})
	} else if inTok.Set && completed.Set && completed.V > 0 {
		meanIn = inTok.V / completed.V
	}
	if _, mean, median, ok := f.lengthStats("output_lens"); ok {
		c.Extra = append(c.Extra, schema.Metric{Name: "output_len_mean", Value: mean}, schema.Metric{Name: "output_len_median", Value: median})
	}
	inputContext(&c, meanIn)
	if !math.IsNaN(meanIn) {
		c.PromptTokens = num{V: meanIn, Set: true}.int()
	}
	lat := func(metric string, med, mean, p90, p99 **float64) {
		if err := f.latencies(name, &c, metric, med, mean, p90, p99); err != nil && firstErr == nil {
			firstErr = err
		}
	}
	lat("ttft", &c.TTFTMs, &c.TTFTMeanMs, &c.TTFTP90Ms, &c.TTFTP99Ms)
	lat("tpot", &c.TBTMs, &c.TBTMeanMs, &c.TBTP90Ms, &c.TBTP99Ms)
	lat("itl", &c.ChunkGapP50Ms, &c.ChunkGapMeanMs, &c.ChunkGapP90Ms, &c.ChunkGapP99Ms)
	lat("e2el", &c.E2EP50Ms, &c.E2EMeanMs, &c.E2EP90Ms, &c.E2EP99Ms)
	c.TTFTP50Ms, c.TBTP50Ms = c.TTFTMs, c.TBTMs
	if c.TBTMs != nil && *c.TBTMs > 0 {
		v := 1000 / *c.TBTMs
		c.PerRequestTokS = &v
	}
	for _, k := range []string{"date", "backend", "model_id", "tokenizer_id", "label", "dataset_name", "num_prompts"} {
		f.used[k] = true
	}
	f.extras(&c)
	if n, err := f.num(name, "num_prompts"); err == nil && n.Set {
		metric(&c, "num_prompts", n)
	}
	if firstErr != nil {
		return c, firstErr
	}
	if c.TotalTokS == nil && c.TTFTMs == nil {
		return c, errorf(name, f.line, "vLLM result without output_throughput or median_ttft_ms: not a serving benchmark result")
	}
	return c, nil
}

// modelBase returns the readable name of a model id or path: the last
// path element that is not a snapshot hash ("/models/models--openai--gpt-oss-120b/snapshots/b5c9…/"
// gives "gpt-oss-120b", "Qwen/Qwen3.5-397B-A17B-FP8" gives "Qwen3.5-397B-A17B-FP8").
func modelBase(id string) string {
	parts := strings.FieldsFunc(id, func(r rune) bool { return r == '/' })
	for i := len(parts) - 1; i >= 0; i-- {
		p := parts[i]
		if p == "snapshots" || isHex(p) && len(p) >= 20 {
			continue
		}
		if strings.HasPrefix(p, "models--") {
			segs := strings.Split(strings.TrimPrefix(p, "models--"), "--")
			return segs[len(segs)-1]
		}
		return p
	}
	return id
}

// isHex reports whether s is all hexadecimal digits.
func isHex(s string) bool {
	for _, r := range s {
		if !strings.ContainsRune("0123456789abcdefABCDEF", r) {
			return false
		}
	}
	return s != ""
}
