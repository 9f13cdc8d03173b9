package parse

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
