package peers

import (
	"encoding/json"
	"regexp"
)

// inferencePerfPromRead are the parts of a Prometheus metrics report
// parseInferencePerf reads into columns, by path.
var inferencePerfPromRead = regexp.MustCompile(`^successes/(count|rate|request_latency/.*|time_to_first_token/.*|time_per_output_token/.*|inter_token_latency/.*|prompt_len/.*|output_len/.*)$`)

// inferencePerfPromSeconds matches the blocks of a Prometheus metrics
// report that hold seconds without saying so (vLLM's histograms:
// request_queue_time, request_prefill_time, kv_block_lifetime,
// kv_block_reuse_gap, kv_block_idle_before_evict …).
var inferencePerfPromSeconds = regexp.MustCompile(`(_time|latency|lifetime|_gap|_evict)$`)

// inferencePerfPrometheus reports whether r is inference-perf's
// Prometheus metrics report (stage_<n>_prometheus_metrics.json: the model
// server's own view of the stage, beside the client's lifecycle report),
// whose latencies sit under successes itself, in seconds, and whose
// rates sit beside the means (prompt_len.rate is input tokens per
// second, output_len.rate output tokens per second, successes.rate
// requests per second). It moves them where the lifecycle report keeps
// them and returns the server's inter-token latency apart: a per-token
// histogram, not the client's gaps between chunks.
func inferencePerfPrometheus(b []byte, r *inferencePerfReport) (prom bool, serverITL map[string]num) {
	var raw struct {
		Successes map[string]json.RawMessage `json:"successes"`
	}
	if json.Unmarshal(sanitizeJSON(b), &raw) != nil {
		return false, nil
	}
	s := raw.Successes
	_, lifecycle := s["latency"]
	_, rl := s["request_latency"]
	_, ttft := s["time_to_first_token"]
	if lifecycle || !rl && !ttft {
		return false, nil
	}
	r.Successes.Latency = map[string]map[string]num{}
	for _, k := range []string{"request_latency", "time_to_first_token", "time_per_output_token"} {
		var st map[string]num
		if v, ok := s[k]; ok && json.Unmarshal(v, &st) == nil {
			r.Successes.Latency[k] = st
		}
	}
	if v, ok := s["inter_token_latency"]; ok {
		_ = json.Unmarshal(v, &serverITL)
	}
	var rate num
	if v, ok := s["rate"]; ok {
		_ = json.Unmarshal(v, &rate)
	}
	r.Successes.Throughput = map[string]num{
		"requests_per_sec":      rate,
		"output_tokens_per_sec": r.Successes.OutputLen["rate"],
		"input_tokens_per_sec":  r.Successes.PromptLen["rate"],
	}
	delete(r.Successes.OutputLen, "rate")
	delete(r.Successes.PromptLen, "rate")
	return true, serverITL
}

// inferencePerfShare matches the blocks of a Prometheus metrics report
// named as percentages: kv_cache_usage_percentage (vLLM's
// gpu_cache_usage_perc / kv_cache_usage_perc gauge) and
// prefix_cache_hit_percent.
var inferencePerfShare = regexp.MustCompile(`^(.+)_(percentage|percent)$`)

// inferencePerfShares names the percentage blocks of a Prometheus metrics
// report (the decoded report v) that hold 0–1 fractions: inference-perf
// summarizes the model server's gauge as it is (avg_over_time …, no
// scaling), and vLLM's gauge is a fraction (1 = the whole cache), so
// "kv_cache_usage_percentage" 0.51 is 51 %. Such a block is renamed
// <name>_fraction ("kv_cache_usage_fraction_p99"); a block with any value
// above 1 is a percentage and keeps its name.
func inferencePerfShares(v any) map[string]string {
	out := map[string]string{}
	top, _ := v.(map[string]any)
	succ, _ := top["successes"].(map[string]any)
	for k, blk := range succ {
		m := inferencePerfShare.FindStringSubmatch(k)
		st, ok := blk.(map[string]any)
		if m == nil || !ok {
			continue
		}
		fraction := true
		for _, x := range st {
			n, ok := x.(json.Number)
			if !ok {
				continue
			}
			if f, err := n.Float64(); err != nil || f < 0 || f > 1 {
				fraction = false
			}
		}
		if fraction {
			out[k] = m[1] + "_fraction"
		}
	}
	return out
}
