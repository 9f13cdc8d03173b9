package peers

import (
	"encoding/json"
	"maps"
	"slices"
	"speedmatrix/schema"
	"strings"
)

// configKeys are keys read elsewhere that are part of a result's
// configuration beside its load: vLLM's --label, the requested output
// length, and the `vllm serve` parameters a `vllm bench sweep` writes
// into each result (serveParamKeys).
var configKeys = append([]string{"label", "random_output_len", "sharegpt_output_len", "output_len"}, serveParamKeys...)

// serveParamKeys are `vllm serve` parameters that `vllm bench sweep serve`
// merges into each result of a --serve-params combination: a server
// configuration, not a figure, so results that differ in them are runs of
// their own, and they are kept as run metadata (section "Serve").
var serveParamKeys = []string{
	"max_num_seqs", "max_num_batched_tokens", "max_model_len", "tensor_parallel_size", "pipeline_parallel_size",
	"data_parallel_size", "gpu_memory_utilization", "enable_prefix_caching", "enable_chunked_prefill",
	"kv_cache_dtype", "block_size", "quantization", "dtype", "enforce_eager", "speculative_config",
	"compilation_config", "async_scheduling", "enable_expert_parallel",
}

// config describes what a result says of its configuration besides the
// load: its string values not read yet (vLLM's --metadata pairs, SGLang's
// tag) and the requested output length, in key order. Call it after the
// cell is read (which marks dates, models and the like as read: they
// differ between repeats or are compared apart) and before stringFields.
func (f *flatResult) config() []schema.KV {
	var out []schema.KV
	for _, k := range slices.Sorted(maps.Keys(f.raw)) {
		raw := f.raw[k]
		if string(raw) == "null" || f.used[k] && !slices.Contains(configKeys, k) {
			continue
		}
		var s string
		switch {
		case len(raw) > 0 && raw[0] == '"' && json.Unmarshal(raw, &s) == nil:
			out = append(out, schema.KV{Key: k, Value: s})
		case slices.Contains(configKeys, k):
			out = append(out, schema.KV{Key: k, Value: string(raw)})
		}
	}
	return out
}

// splitRuns groups the results of a file into runs, in order of first
// appearance: results of one model and configuration (flatResult.config)
// form one run; results whose configuration differs (an --append-result
// file of several deployments, an SGLang file of two output lengths) are
// different experiments and go to runs of their own. The label says what
// sets a run apart ("deployment=base"), empty when the file is one run or
// only the model differs.
func splitRuns(models []string, configs [][]schema.KV) (groups [][]int, labels []string) {
	index := map[string]int{}
	for i := range models {
		k := models[i] + "\x00" + kvString(configs[i])
		g, ok := index[k]
		if !ok {
			g = len(groups)
			index[k] = g
			groups = append(groups, nil)
		}
		groups[g] = append(groups[g], i)
	}
	// A run's label is the pairs of its configuration that not every run
	// shares.
	labels = make([]string, len(groups))
	if len(groups) > 1 {
		count := map[schema.KV]int{}
		for _, is := range groups {
			for _, kv := range configs[is[0]] {
				count[kv]++
			}
		}
		for g, is := range groups {
			var own []schema.KV
			for _, kv := range configs[is[0]] {
				if count[kv] < len(groups) {
					own = append(own, kv)
				}
			}
			labels[g] = kvString(own)
		}
	}
	return groups, labels
}

// splitRun starts the matrix of one run that splitRuns found: the tool
// and its format, the model, and a title of the tool's display name, the
// model (or "model not recorded") and what sets the run apart (label).
func splitRun(tool, format, display, modelID, label string) *schema.Matrix {
	m := peerMatrix(tool, "")
	m.Run.SourceFormat = format
	m.Run.ModelID, m.Run.Model = modelID, modelBase(modelID)
	m.Run.Title = display + ": " + firstNonEmpty(m.Run.Model, "model not recorded")
	if label != "" {
		m.Run.Title += " (" + label + ")"
	}
	return m
}

// kvString prints pairs as "k=v, k=v".
func kvString(kvs []schema.KV) string {
	parts := make([]string, len(kvs))
	for i, kv := range kvs {
		parts[i] = kv.Key + "=" + kv.Value
	}
	return strings.Join(parts, ", ")
}
