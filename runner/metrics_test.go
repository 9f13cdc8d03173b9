package runner

import (
	"os"
	"testing"
)

func TestParseMetrics(t *testing.T) {
	tests := []struct {
		file string
		want map[string]float64
		kv   int64
	}{
		{"testdata/metrics/vllm.txt", map[string]float64{
			"generation_tokens": 1500, "preemptions": 2, "prefix_hits": 900, "prefix_queries": 1000,
			"spec_accepted": 300, "spec_draft": 400, "running": 3, "waiting": 1}, 1175040},
		{"testdata/metrics/vllm_blocks.txt", map[string]float64{"running": 8, "waiting": 0}, 16 * 4096},
		{"testdata/metrics/sglang.txt", map[string]float64{"running": 5, "waiting": 2, "generation_tokens": 777, "cache_hit_rate": 0.5}, 0},
		{"testdata/metrics/llamacpp.txt", map[string]float64{"running": 4, "waiting": 1}, 0},
		{"testdata/metrics/tgi.txt", map[string]float64{"running": 6, "waiting": 0}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			b, err := os.ReadFile(tt.file)
			if err != nil {
				t.Fatal(err)
			}
			s, err := parseMetrics(b)
			if err != nil {
				t.Fatal(err)
			}
			for k, v := range tt.want {
				if got, ok := s.get(k); !ok || got != v {
					t.Errorf("%s = %v (%v), want %v", k, got, ok, v)
				}
			}
			// A figure the file does not export stays absent.
			for k := range metricNames {
				if v, ok := s.get(k); ok {
					if _, want := tt.want[k]; !want {
						t.Errorf("%s = %v, want absent", k, v)
					}
				}
			}
			if s.kvTokens != tt.kv {
				t.Errorf("kv tokens %d, want %d", s.kvTokens, tt.kv)
			}
		})
	}
}
