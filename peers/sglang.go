package peers

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"

	"speedmatrix/schema"
)

// FormatSGLangBench is SGLang's bench_serving result (JSON Lines).
const FormatSGLangBench = "sglang-bench-serving"

// sglangReader recognises a result by its retokenized output count,
// *_e2e_latency_ms or sharegpt_output_len.
var sglangReader = reader{
	format: FormatSGLangBench,
	parse:  parseSGLangBench,
	shapes: []shape{{rank: 200, keys: signature{any: []string{"total_output_tokens_retokenized", "sharegpt_output_len"}, suffixes: []string{"_e2e_latency_ms"}}}},
}

// parseSGLangBench reads SGLang's `python -m sglang.bench_serving` output:
// JSON Lines, one object per benchmark (the file is appended to), which
// may hold the bare literal Infinity for an unbounded request rate.
// Every line becomes one serve cell; the lines of one model and
// configuration (tag, output length) form one run (splitRuns), and a load
// that appears again in a run is a repeat.
//
// Field mapping: median/mean/p90/p99 _ttft_ms → ttft_*; _tpot_ms → tbt_*
// (per request (e2e − ttft)/(tokens − 1)); _itl_ms (gaps between chunks)
// → chunk_gap_*; _e2e_latency_ms → e2e_*; output_throughput →
// total_tok_s; input_throughput → input_tok_s; max_concurrency →
// concurrency; concurrency (the measured mean in flight) →
// avg_active_requests; request_rate (Infinity → +Inf); completed,
// total_input_tokens, total_output_tokens, duration; random_input_len /
// random_output_len / random_range_ratio and every other number → extra
// (the context is the mean length the random dataset's settings give,
// else the measured mean prompt length); backend, dataset_name, tag →
// run metadata; server_info (newer versions) → model, engine version
// (behind a prefill/decode router the prefill server's, with each role's
// versions in run metadata "Engine versions" when they differ),
// tensor parallel, quantization, KV budget (max_total_num_tokens). Older lines carry no model name and no
// server_info; the run's model is then empty.
func parseSGLangBench(b []byte, name string) ([]*schema.Matrix, error) {
	objs, err := parseFlatObjects(name, b)
	if err != nil {
		return nil, err
	}
	cells := make([]schema.Measurement, len(objs))
	models := make([]string, len(objs))
	configs := make([][]schema.KV, len(objs))
	infos := make([]sglangServerInfo, len(objs))
	for i, f := range objs {
		infos[i] = f.serverInfo()
		models[i] = firstNonEmpty(f.str("model_id"), f.str("model"), infos[i].ModelPath, infos[i].ServedModelName)
		if cells[i], err = sglangCell(name, f); err != nil {
			return nil, err
		}
		configs[i] = f.config()
	}
	groups, labels := splitRuns(models, configs)
	out := make([]*schema.Matrix, 0, len(groups))
	for g, is := range groups {
		f, si := objs[is[0]], infos[is[0]]
		m := splitRun("sglang bench_serving", FormatSGLangBench, "SGLang bench_serving", models[is[0]], labels[g])
		addField(&m.Run, "Run", "Backend", f.str("backend"))
		if si.Version != "" {
			m.Run.Engine, m.Run.EngineVersion = "sglang", si.Version
		}
		if si.TPSize > 0 {
			m.Run.TensorParallel = schema.I32(si.TPSize)
		}
		setGPUCount(&m.Run, si.GPUs, "SGLang server_info (tp_size × pp_size × dp_size)")
		m.Run.Quantization = si.Quantization
		if si.PrefillServers+si.DecodeServers > 0 {
			addField(&m.Run, "Run", "Disaggregation", fmt.Sprintf("%d prefill server(s) at tp %d, %d decode server(s) at tp %d",
				si.PrefillServers, si.PrefillTP, si.DecodeServers, si.TPSize))
			addField(&m.Run, "Run", "Engine versions", si.RoleVersions)
		}
		if si.MaxTotalNumTokens > 0 {
			m.Run.KVBudgetTokens = schema.I64(si.MaxTotalNumTokens)
		}
		poolMeasuredContexts(objs, is, cells, func(f *flatResult) bool {
			isl, _ := f.num("", "random_input_len")
			return f.str("dataset_name") == "random" && isl.Set && isl.V > 0
		})
		var datasets []string
		for _, i := range is {
			m.Measurements = append(m.Measurements, cells[i])
			objs[i].addErrors(&m.Run)
			if d := objs[i].str("dataset_name"); d != "" && !slices.Contains(datasets, d) {
				datasets = append(datasets, d)
			}
		}
		// One run may sweep several datasets (the cells' contexts tell
		// them apart); the run names them all.
		m.Run.Dataset = strings.Join(datasets, ", ")
		addField(&m.Run, "Run", "Dataset", m.Run.Dataset)
		for _, kv := range f.stringFields() { // the tag, …
			addField(&m.Run, "Metadata", kv.Key, kv.Value)
		}
		if err := numberRepeats(name, m.Measurements); err != nil {
			return nil, err
		}
		out = append(out, m)
	}
	return out, nil
}

// sglangCell maps one SGLang result line to a serve cell.
func sglangCell(name string, f *flatResult) (schema.Measurement, error) {
	s := startServing(name, f, "e2e_latency")
	c := &s.c
	c.InputTokS = s.get("input_throughput").ptr()
	// SGLang's "concurrency" is the measured mean number of requests in
	// flight (the sum of latencies over the duration).
	c.AvgActiveRequests = s.get("concurrency").ptr()
	meanIn := math.NaN()
	if s.inTok.Set && s.completed.Set && s.completed.V > 0 {
		meanIn = s.inTok.V / s.completed.V
		c.PromptTokens = num{V: meanIn, Set: true}.int()
	}
	// Note: the context of a random dataset is the mean prompt length
	// its settings give, not the measured mean, so every line of a rate
	// sweep lands in the same context (their measured means differ by a
	// few tokens); the measured mean stays in prompt_tokens. SGLang draws
	// each length uniformly from [max(⌊len × random_range_ratio⌋, 1), len]:
	// with the default ratio 0 the mean is about half the configured
	// length. Lines without the ratio (older versions) use the length.
	// The random dataset's settings are kept whatever the dataset (a
	// sharegpt line writes them too, unused).
	isl, r := s.get("random_input_len"), s.get("random_range_ratio")
	metric(c, "random_input_len", isl)
	metric(c, "random_range_ratio", r)
	if isl.Set && isl.V > 0 && f.str("dataset_name") == "random" {
		mean := isl.V
		if r.Set && r.V >= 0 && r.V < 1 {
			mean = (max(math.Floor(isl.V*r.V), 1) + isl.V) / 2
		}
		inputContext(c, mean)
	} else {
		inputContext(c, meanIn)
	}
	c2, err := s.finish("SGLang", "backend", "dataset_name", "model_id", "model", "tokenizer_id")
	// Extra figures in name order, as a document's columns print them.
	slices.SortStableFunc(c2.Extra, func(a, b schema.Metric) int { return strings.Compare(a.Name, b.Name) })
	return c2, err
}

// sglangServerInfo is what newer bench_serving lines record of the
// server (server_info: /get_server_info's answer).
type sglangServerInfo struct {
	ModelPath       string `json:"model_path"`
	ServedModelName string `json:"served_model_name"`
	Version         string `json:"version"`
	TPSize          int32  `json:"tp_size"`
	// DPSize and PPSize are the data and pipeline parallel sizes (nil
	// when the answer has no such key); EnableDPAttention runs data
	// parallelism inside the tensor parallel group.
	DPSize            *int32 `json:"dp_size"`
	PPSize            *int32 `json:"pp_size"`
	EnableDPAttention bool   `json:"enable_dp_attention"`
	Quantization      string `json:"quantization"`
	// MaxTotalNumTokens is the KV cache's size in tokens.
	MaxTotalNumTokens int64 `json:"max_total_num_tokens"`
	// PrefillServers, DecodeServers and PrefillTP describe a
	// disaggregated deployment (zero otherwise).
	PrefillServers, DecodeServers int   `json:"-"`
	PrefillTP                     int32 `json:"-"`
	// GPUs is the number of GPUs the server (or every server behind a
	// prefill/decode router) runs on, 0 when the answer does not say
	// (serverGPUs).
	GPUs int `json:"-"`
	// RoleVersions names each role's versions when the servers of a
	// disaggregated deployment do not all run one ("0.5.5 (prefill) /
	// 0.5.6 (decode)"); empty otherwise.
	RoleVersions string `json:"-"`
}

// serverInfo reads a line's server_info (zero when absent or not an
// object of that shape).
func (f *flatResult) serverInfo() sglangServerInfo {
	var si sglangServerInfo
	f.used["server_info"] = true
	raw, ok := f.raw["server_info"]
	if !ok {
		return si
	}
	_ = json.Unmarshal(raw, &si)
	if si.ModelPath != "" || si.Version != "" {
		si.GPUs = si.serverGPUs()
		return si
	}
	// Prefill/decode disaggregation (2025): the router answers with
	// {internal_states, prefill[], decode[]}, one entry per server. The
	// model and version are the prefill servers'; the run's tensor
	// parallel size and KV budget are the decode servers', which hold the
	// streams being measured.
	var pd struct {
		Prefill []sglangServerInfo `json:"prefill"`
		Decode  []sglangServerInfo `json:"decode"`
	}
	if json.Unmarshal(raw, &pd) != nil || len(pd.Prefill)+len(pd.Decode) == 0 {
		return si
	}
	servers := append(append([]sglangServerInfo(nil), pd.Prefill...), pd.Decode...)
	for _, s := range servers {
		si.ModelPath = firstNonEmpty(si.ModelPath, s.ModelPath)
		si.ServedModelName = firstNonEmpty(si.ServedModelName, s.ServedModelName)
		si.Version = firstNonEmpty(si.Version, s.Version)
		si.Quantization = firstNonEmpty(si.Quantization, s.Quantization)
	}
	if len(pd.Decode) > 0 {
		si.TPSize, si.MaxTotalNumTokens = pd.Decode[0].TPSize, pd.Decode[0].MaxTotalNumTokens
	}
	si.PrefillServers, si.DecodeServers = len(pd.Prefill), len(pd.Decode)
	if len(pd.Prefill) > 0 {
		si.PrefillTP = pd.Prefill[0].TPSize
	}
	si.RoleVersions = roleVersions(pd.Prefill, pd.Decode)
	for _, s := range servers {
		n := s.serverGPUs()
		if n == 0 {
			si.GPUs = 0
			break
		}
		si.GPUs += n
	}
	return si
}

// serverGPUs returns the GPUs one SGLang server runs on by its
// /get_server_info answer (its ServerArgs): tp_size × pp_size × dp_size,
// dp_size counting once when enable_dp_attention puts data parallelism
// inside the tensor parallel group; 0 when tp_size or dp_size is not
// there.
//
// Note: the answer dumps every server argument, so a key it lacks is an
// option its version did not have: pp_size came in 2025 (no pipeline
// parallelism before: 1). dp_size is required, since every version with
// server_info in bench_serving's results has it and an answer without it
// is one cut short.
func (si sglangServerInfo) serverGPUs() int {
	if si.TPSize < 1 || si.DPSize == nil {
		return 0
	}
	pp := int32(1)
	if si.PPSize != nil {
		pp = *si.PPSize
	}
	return parallelGPUs(int(si.TPSize), int(pp), int(*si.DPSize), si.EnableDPAttention)
}

// roleVersions names the versions each role's servers run, prefill
// first, when they are not all one version; empty otherwise.
//
// Note: engine_version stays one version as printed (the prefill
// server's, as for a run of one version), so that runs group and compare
// by it; a combined string there would match no other run. The decode
// servers' version goes into run metadata instead.
func roleVersions(prefill, decode []sglangServerInfo) string {
	var all []string
	versions := func(servers []sglangServerInfo) []string {
		var vs []string
		for _, s := range servers {
			if s.Version != "" && !slices.Contains(vs, s.Version) {
				vs = append(vs, s.Version)
			}
			if s.Version != "" && !slices.Contains(all, s.Version) {
				all = append(all, s.Version)
			}
		}
		return vs
	}
	p, d := versions(prefill), versions(decode)
	if len(all) < 2 {
		return ""
	}
	var parts []string
	if len(p) > 0 {
		parts = append(parts, strings.Join(p, ", ")+" (prefill)")
	}
	if len(d) > 0 {
		parts = append(parts, strings.Join(d, ", ")+" (decode)")
	}
	return strings.Join(parts, " / ")
}
