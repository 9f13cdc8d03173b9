package peers

import (
	"bytes"
	"encoding/json"
	"math"
	"strings"

	"speedmatrix/schema"
)

// FormatVLLMBench is vLLM's bench serve result (benchmark_serving.py
// before it), appended results, and a sweep's summary.
const FormatVLLMBench = "vllm-bench-serve"

// vllmReader recognises a result by keys SGLang's lacks (best_of,
// burstiness, tokenizer_id, *_e2el_ms; *_tpot_ms without SGLang's
// retokenized count), a result of only TTFT keys when it names its
// model_id (a home-grown script's summary names none), and a sweep's
// summary.csv.
var vllmReader = reader{
	format: FormatVLLMBench,
	parse:  parseVLLMBench,
	shapes: []shape{
		{rank: 40, text: looksVLLMSweepCSV},
		{rank: 190, keys: signature{any: []string{"best_of", "burstiness", "tokenizer_id"}, suffixes: []string{"_e2el_ms"}}},
		{rank: 191, keys: signature{suffixes: []string{"_tpot_ms"}, none: []string{"total_output_tokens_retokenized"}}},
		{rank: 210, keys: signature{all: []string{"model_id"}, suffixes: []string{"_ttft_ms"}}},
		{rank: 185, keys: signature{all: []string{"conc", "metrics"}, holds: map[string][]string{"metrics": {`"total_token_throughput"`, `"output_token_throughput"`}}}, refuse: togetherRunnerRefusal},
	},
}

// togetherRunnerRefusal names InferenceX's together_runner results
// (together_runner/record_baselines.sh reads d['conc'] and
// d['metrics']['total_token_throughput'], …['median_tpot_ms']): a
// benchmark's figures under "metrics" in bench_serving's names, the
// concurrency under "conc". No such file is published (the runner's
// .gitignore keeps results/ local), so its other keys are not known.
const togetherRunnerRefusal = "an InferenceX together_runner result (the concurrency under \"conc\", bench_serving's figures under \"metrics\"): its shape is known only from the runner's scripts, not from a published file, so speedmatrix does not read it yet; ingest the bench_serving result JSON of the same run (vllm bench serve --save-result or sglang.bench_serving --output-file), or send us a sample"

// parseVLLMBench reads the result file of vLLM's serving benchmark
// (`vllm bench serve --save-result`, benchmarks/benchmark_serving.py):
// one object, one object per line (--append-result) or an array (vllm
// bench sweep). Every object becomes one serve cell; the cells of one
// model and configuration form one run (splitRuns).
//
// Field mapping (formulas in docs/schema.md):
//   - median/mean/p90/p99_ttft_ms → ttft_ms, ttft_mean_ms, ttft_p90_ms, ttft_p99_ms
//   - *_tpot_ms (per request (e2e − ttft)/(tokens − 1)) → tbt_* (the same formula)
//   - *_itl_ms (gaps between streamed chunks) → chunk_gap_*
//   - *_e2el_ms → e2e_*; files of 2024 derivatives (LambdaLabs'
//     vllm-benchmark) name the request latency *_latency_ms beside the
//     same TTFT, TPOT and ITL keys → e2e_* too
//   - output_throughput → total_tok_s; 1000 / median_tpot_ms → per_request_tok_s
//     (the median of per-request decode rates, since 1000/x is monotone)
//   - completed, failed, total_output_tokens, total_input_tokens, duration,
//     request_rate ("inf" → +Inf; none with --ramp-up-strategy, whose
//     ramp_up_start_rps/ramp_up_end_rps go to extra), request_throughput, request_goodput
//     (older files: "request_goodput:")
//   - spec_decode_acceptance_rate (percent) → server_spec_accept_rate (a
//     fraction) and spec_decode_acceptance_rate_pct; the per-position
//     rates → spec_decode_acceptance_rate_pos1, _pos2, …
//   - --save-detailed's per-request arrays → <key>_count, "errors" →
//     errors_reported and the distinct messages (run metadata "Errors")
//   - every other number (std_*, p99.9_*, total_token_throughput, …) → extra
//   - string keys not understood (vllm --metadata k=v) → run metadata
//   - a load that appears again (a repeat, a sweep's run_number) → repeat 0, 1, …
//   - results of another model or --metadata configuration → a run of their own
func parseVLLMBench(b []byte, name string) ([]*schema.Matrix, error) {
	if looksVLLMSweepCSV(bytes.TrimLeft(b, "\ufeff \t\r\n")) {
		j, err := vllmSweepCSVToJSON(name, b)
		if err != nil {
			return nil, err
		}
		b = j
	}
	objs, err := parseFlatObjects(name, b)
	if err != nil {
		return nil, err
	}
	if objs, err = dropSweepWarmups(name, objs); err != nil {
		return nil, err
	}
	cells := make([]schema.Measurement, len(objs))
	models := make([]string, len(objs))
	configs := make([][]schema.KV, len(objs))
	for i, f := range objs {
		if models[i] = f.str("model_id"); models[i] == "" {
			return nil, errorf(name, f.line, "vLLM result without model_id")
		}
		if cells[i], err = vllmCell(name, f); err != nil {
			return nil, err
		}
		configs[i] = f.config()
	}
	groups, labels := splitRuns(models, configs)
	out := make([]*schema.Matrix, 0, len(groups))
	for g, is := range groups {
		f := objs[is[0]]
		m := splitRun("vllm bench serve", FormatVLLMBench, "vLLM bench serve", models[is[0]], labels[g])
		if d := f.str("date"); d != "" {
			m.Run.StartedAt = vllmDate(d)
			addField(&m.Run, "Run", "Date", d)
		}
		addField(&m.Run, "Run", "Backend", f.str("backend"))
		addField(&m.Run, "Run", "Tokenizer", f.str("tokenizer_id"))
		addField(&m.Run, "Run", "Label", f.str("label"))
		m.Run.Dataset = f.str("dataset_name")
		sweepServeParams(m, f)
		for _, kv := range f.stringFields() {
			addField(&m.Run, "Metadata", kv.Key, kv.Value)
		}
		poolMeasuredContexts(objs, is, cells, func(f *flatResult) bool {
			for _, k := range []string{"random_input_len", "input_len"} {
				if req, _ := f.num("", k); req.Set && req.V > 0 {
					return true // vllmCell's context
				}
			}
			return false
		})
		for _, i := range is {
			m.Measurements = append(m.Measurements, cells[i])
			objs[i].addErrors(&m.Run)
		}
		if err := numberRepeats(name, m.Measurements); err != nil {
			return nil, err
		}
		out = append(out, m)
	}
	return out, nil
}

// dropSweepWarmups leaves out the warm-up runs `vllm bench sweep`
// writes (--warmup-num-prompts: warmup.json, run_number −1): they are
// not measurements. A file of warm-ups only is refused with what to
// ingest instead.
func dropSweepWarmups(name string, objs []*flatResult) ([]*flatResult, error) {
	kept := objs[:0:0]
	for _, f := range objs {
		var n num
		if raw, ok := f.raw["run_number"]; ok && json.Unmarshal(raw, &n) == nil && n.Set && n.V < 0 {
			continue
		}
		kept = append(kept, f)
	}
	if len(kept) == 0 {
		return nil, errorf(name, objs[0].line, "a `vllm bench sweep` warm-up run (run_number %s): not a measurement; ingest the combination's run=N.json or summary.json", string(objs[0].raw["run_number"]))
	}
	return kept, nil
}

// vllmCell maps one vLLM result object to a serve cell.
func vllmCell(name string, f *flatResult) (schema.Measurement, error) {
	s := startServing(name, f, vllmE2EKey(f))
	c := &s.c
	if f.str("ramp_up_strategy") != "" {
		// --ramp-up-strategy: the rate rose from ramp_up_start_rps to
		// ramp_up_end_rps (kept in extra); request_rate is then only the
		// unused default, not the load.
		c.RequestRate = nil
		f.used["ramp_up_strategy"] = false
	}
	c.ErroredRequests = s.get("failed").int()
	c.GoodputReqS = s.get("request_goodput", "request_goodput:").ptr()
	if in := s.get("input_throughput"); in.Set { // older files print it
		c.InputTokS = in.ptr()
	} else if s.inTok.Set && s.dur.Set && s.dur.V > 0 {
		v := s.inTok.V / s.dur.V
		c.InputTokS = &v
	}
	// Speculative decoding (newer bench serve, from the server's
	// counters): the acceptance rate in percent; the column holds the
	// fraction.
	if r := s.get("spec_decode_acceptance_rate"); r.Set {
		metric(c, "spec_decode_acceptance_rate_pct", r)
		if r.V >= 0 && r.V <= 100 {
			v := r.V / 100
			c.ServerSpecAcceptRate = &v
		}
	}
	meanIn := math.NaN()
	if n, mean, _, ok := f.lengthStats("input_lens"); ok {
		meanIn = mean
		c.Extra = append(c.Extra, schema.Metric{Name: "input_lens_count", Value: float64(n)})
	} else if s.inTok.Set && s.completed.Set && s.completed.V > 0 {
		meanIn = s.inTok.V / s.completed.V
	}
	if _, mean, median, ok := f.lengthStats("output_lens"); ok {
		c.Extra = append(c.Extra, schema.Metric{Name: "output_len_mean", Value: mean}, schema.Metric{Name: "output_len_median", Value: median})
	}
	// Newer files and sweeps may record the requested length: the
	// context is what was asked for, the measured mean stays in
	// prompt_tokens.
	if req := s.get("random_input_len", "input_len"); req.Set && req.V > 0 {
		metric(c, "requested_input_len", req)
		inputContext(c, req.V)
	} else {
		inputContext(c, meanIn)
	}
	if !math.IsNaN(meanIn) {
		c.PromptTokens = num{V: meanIn, Set: true}.int()
	}
	return s.finish("vLLM", append([]string{"date", "backend", "model_id", "tokenizer_id", "label", "dataset_name"}, serveParamKeys...)...)
}

// sweepServeParams keeps the `vllm serve` parameters of a sweep
// combination as run metadata, and those with a column of their own
// (tensor parallel size, max model length, GPU memory utilization) there
// too.
func sweepServeParams(m *schema.Matrix, f *flatResult) {
	sizes := map[string]int{}
	for _, k := range serveParamKeys {
		raw, ok := f.raw[k]
		if !ok || string(raw) == "null" {
			continue
		}
		v := strings.Trim(string(raw), `"`)
		addField(&m.Run, "Serve", k, v)
		var n num
		if json.Unmarshal(raw, &n) != nil || !n.Set {
			continue
		}
		switch k {
		case "tensor_parallel_size", "pipeline_parallel_size", "data_parallel_size":
			sizes[k] = int(n.V)
			if k == "tensor_parallel_size" {
				m.Run.TensorParallel = i32(n)
			}
		case "max_model_len":
			m.Run.MaxModelLen = n.int()
		case "gpu_memory_utilization":
			m.Run.GPUMemoryUtilization = n.ptr()
		}
	}
	// Note: a sweep's parameters override the base `vllm serve` command,
	// which the result does not hold: a size the combination leaves out
	// may be the base command's, not vLLM's default of 1, so the GPU count
	// needs all three.
	if len(sizes) == 3 {
		setGPUCount(&m.Run, parallelGPUs(sizes["tensor_parallel_size"], sizes["pipeline_parallel_size"], sizes["data_parallel_size"], false),
			"vllm bench sweep --serve-params (tensor × pipeline × data parallel size)")
	}
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

// vllmE2EKey names the request latency statistics of a vLLM result:
// "e2el" (mean_e2el_ms, …), or "latency" (mean_latency_ms, …) in files
// that have no e2el statistics, as a 2024 derivative of
// benchmark_serving.py wrote them (once kept in extra only, with the e2e
// columns empty).
func vllmE2EKey(f *flatResult) string {
	_, e2el := f.raw["median_e2el_ms"]
	_, e2elMean := f.raw["mean_e2el_ms"]
	_, lat := f.raw["median_latency_ms"]
	_, latMean := f.raw["mean_latency_ms"]
	if !e2el && !e2elMean && (lat || latMean) {
		return "latency"
	}
	return "e2el"
}
