package sim

import (
	"fmt"
	"net/http"
	"strconv"
)

// handleMetrics serves GET /metrics in the Prometheus text format with
// vLLM's metric names (v1 engine), each labelled engine="0" and
// model_name:
//
//	vllm:num_requests_running, vllm:num_requests_waiting (gauges)
//	vllm:kv_cache_usage_perc (gauge, 0–1)
//	vllm:prompt_tokens_total, vllm:generation_tokens_total (counters)
//	vllm:num_preemptions_total (counter)
//	vllm:prefix_cache_queries_total, vllm:prefix_cache_hits_total
//	  (counters, in tokens)
//	vllm:request_success_total{finished_reason} (counter)
//	vllm:cache_config_info{block_size,num_gpu_blocks,…} 1 (gauge)
//	DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION, DCGM_FI_DEV_POWER_USAGE per GPU
//	  (DCGM exporter's names, EnergyModel; energy.go)
//	vllm:spec_decode_num_drafts_total, vllm:spec_decode_num_draft_tokens_total,
//	  vllm:spec_decode_num_accepted_tokens_total (counters, only when
//	  ChunkTokens > 1: one draft of ChunkTokens−1 tokens per decode step)
//
// Note: written by hand rather than with prometheus/client_golang, which
// is not a dependency of this module; the format is a few lines.
func (s *Server) handleMetrics(w http.ResponseWriter, r *http.Request) {
	m := &s.m
	lbl := fmt.Sprintf(`engine="0",model_name=%s`, strconv.Quote(s.p.ModelName))
	b := make([]byte, 0, 4096)
	metric := func(name, typ, help string, v float64) {
		b = fmt.Appendf(b, "# HELP %s %s\n# TYPE %s %s\n%s{%s} %s\n", name, help, name, typ, name, lbl, strconv.FormatFloat(v, 'g', -1, 64))
	}
	metric("vllm:num_requests_running", "gauge", "Number of requests in model execution batches.", float64(m.running.Load()))
	metric("vllm:num_requests_waiting", "gauge", "Number of requests waiting to be processed.", float64(m.waiting.Load()))
	metric("vllm:kv_cache_usage_perc", "gauge", "KV-cache usage. 1 means 100 percent usage.", min(1, float64(m.kvUsed.Load())/float64(s.p.KVTokens)))
	metric("vllm:num_preemptions_total", "counter", "Cumulative number of preemption from the engine.", float64(m.preemptions.Load()))
	metric("vllm:prompt_tokens_total", "counter", "Number of prefill tokens processed.", float64(m.promptTokens.Load()))
	metric("vllm:generation_tokens_total", "counter", "Number of generation tokens processed.", float64(m.generationTokens.Load()))
	metric("vllm:prefix_cache_queries_total", "counter", "Prefix cache queries, in terms of number of queried tokens.", float64(m.prefixQueries.Load()))
	metric("vllm:prefix_cache_hits_total", "counter", "Prefix cache hits, in terms of number of cached tokens.", float64(m.prefixHits.Load()))
	if s.p.ChunkTokens > 1 {
		metric("vllm:spec_decode_num_drafts_total", "counter", "Number of spec decoding drafts.", float64(m.specDrafts.Load()))
		metric("vllm:spec_decode_num_draft_tokens_total", "counter", "Number of draft tokens.", float64(m.specDraftTokens.Load()))
		metric("vllm:spec_decode_num_accepted_tokens_total", "counter", "Number of accepted tokens.", float64(m.specAccepted.Load()))
	}
	b = fmt.Appendf(b, "# HELP vllm:request_success_total Count of successfully processed requests.\n# TYPE vllm:request_success_total counter\n")
	for _, fr := range []struct {
		reason string
		n      int64
	}{{"length", m.successLength.Load()}, {"stop", m.successStop.Load()}} {
		b = fmt.Appendf(b, "vllm:request_success_total{%s,finished_reason=%q} %d\n", lbl, fr.reason, fr.n)
	}
	blocks := s.p.KVTokens / s.p.BlockSize
	b = fmt.Appendf(b, "# HELP vllm:cache_config_info Information of the LLMEngine CacheConfig\n# TYPE vllm:cache_config_info gauge\n")
	b = fmt.Appendf(b, "vllm:cache_config_info{block_size=\"%d\",cache_dtype=\"auto\",enable_prefix_caching=\"%t\",engine=\"0\",num_gpu_blocks=\"%d\"} 1\n",
		s.p.BlockSize, s.p.PrefixCacheTokens > 0, blocks)
	b = s.appendDCGM(b)
	w.Header().Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
	_, _ = w.Write(b)
}
