package runner

import (
	"bytes"
	"context"
	"errors"
	"strings"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// metricNames lists, per figure, the Prometheus names servers use for it:
// vLLM's first, then SGLang's, llama.cpp server's and TGI's.
//
// Note: llama.cpp's llamacpp:tokens_predicted_total and TGI's
// tgi_request_generated_tokens grow only when a request finishes, so
// their change over a cell misses the tokens of the requests the cell
// cancels at its end; they are not taken as generation tokens. Their
// running and queued gauges are.
var metricNames = map[string][]string{
	"generation_tokens": {"vllm:generation_tokens_total", "sglang:generation_tokens_total"},
	"preemptions":       {"vllm:num_preemptions_total", "sglang:num_retracted_reqs_total"},
	"prefix_hits":       {"vllm:prefix_cache_hits_total", "vllm:gpu_prefix_cache_hits_total"},
	"prefix_queries":    {"vllm:prefix_cache_queries_total", "vllm:gpu_prefix_cache_queries_total"},
	"spec_accepted":     {"vllm:spec_decode_num_accepted_tokens_total"},
	"spec_draft":        {"vllm:spec_decode_num_draft_tokens_total"},
	"running":           {"vllm:num_requests_running", "sglang:num_running_reqs", "llamacpp:requests_processing", "tgi_batch_current_size"},
	"waiting":           {"vllm:num_requests_waiting", "sglang:num_queue_reqs", "llamacpp:requests_deferred", "tgi_queue_size"},
	"cache_hit_rate":    {"sglang:cache_hit_rate", "vllm:gpu_prefix_cache_hit_rate"},
}

// metricsSnapshot holds the server figures of one /metrics scrape; a
// figure the server does not export is absent from vals.
type metricsSnapshot struct {
	vals map[string]float64
	// kvTokens is the KV budget from vllm:cache_config_info, 0 if absent.
	kvTokens int64
}

func (s metricsSnapshot) get(name string) (float64, bool) {
	v, ok := s.vals[name]
	return v, ok
}

// parseMetrics reads a Prometheus text exposition and keeps the figures
// the runner reports, summing series across labels (several engines or
// models behind one server).
func parseMetrics(b []byte) (metricsSnapshot, error) {
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(bytes.NewReader(b))
	if err != nil && len(fams) == 0 {
		return metricsSnapshot{}, err
	}
	snap := metricsSnapshot{vals: map[string]float64{}}
	for fig, names := range metricNames {
		for _, n := range names {
			f := fams[n]
			if f == nil {
				f = fams[strings.TrimSuffix(n, "_total")]
			}
			if f == nil {
				continue
			}
			snap.vals[fig] = sumFamily(f)
			break
		}
	}
	if f := fams["vllm:cache_config_info"]; f != nil {
		for _, m := range f.GetMetric() {
			var size, blocks, block int64
			for _, l := range m.GetLabel() {
				v := atoi64(l.GetValue())
				switch l.GetName() {
				case "kv_cache_size_tokens":
					size = v
				case "num_gpu_blocks":
					blocks = v
				case "block_size":
					block = v
				}
			}
			switch {
			case size > 0:
				snap.kvTokens = size
			case blocks > 0 && block > 0:
				snap.kvTokens = blocks * block
			}
		}
	}
	return snap, nil
}

func sumFamily(f *dto.MetricFamily) float64 {
	sum := 0.0
	for _, m := range f.GetMetric() {
		switch {
		case m.Counter != nil:
			sum += m.GetCounter().GetValue()
		case m.Gauge != nil:
			sum += m.GetGauge().GetValue()
		case m.Untyped != nil:
			sum += m.GetUntyped().GetValue()
		}
	}
	return sum
}

func atoi64(s string) int64 {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '.'); i >= 0 { // "16.0"
		s = s[:i]
	}
	var n int64
	for _, c := range s {
		if c < '0' || c > '9' {
			return 0
		}
		n = n*10 + int64(c-'0')
	}
	return n
}

// scrape fetches and parses /metrics; errNotFound when the server has none.
func (c *Client) scrape(ctx context.Context) (metricsSnapshot, error) {
	b, err := c.getText(ctx, "/metrics")
	if err != nil {
		return metricsSnapshot{}, err
	}
	return parseMetrics(b)
}

// metricsDelta returns after − before for a counter present in both.
func metricsDelta(before, after metricsSnapshot, fig string) (float64, bool) {
	a, ok1 := after.get(fig)
	b, ok2 := before.get(fig)
	if !ok1 || !ok2 {
		return 0, false
	}
	return a - b, true
}

var errNoMetrics = errors.New("server has no /metrics")
