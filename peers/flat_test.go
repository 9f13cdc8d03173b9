package peers

import (
	"fmt"
	"testing"
)

func TestServeLabel(t *testing.T) {
	for tokens, want := range map[int64]string{
		7999: "8K", 8000: "8K", 8192: "8K", 8704: "9K", 2969: "3K", 3072: "3K",
		1000: "1K", 1024: "1K", 895: "895", 513: "513", 131072: "128K", 128000: "125K",
	} {
		if got := serveLabel(tokens); got != want {
			t.Errorf("serveLabel(%d) = %q, want %q", tokens, got, want)
		}
	}
}

// TestServeRowsAlignByRequestedLength checks that two serving results
// asked for 8,000 and 8,192 input tokens (measured 7,999 and 8,190) land in
// one context, labelled as people name it, with the exact lengths kept.
func TestServeRowsAlignByRequestedLength(t *testing.T) {
	line := func(req, total int) string {
		return fmt.Sprintf(`{"model_id": "m", "max_concurrency": 4, "request_rate": "inf", "completed": 10, "random_input_len": %d, "total_input_tokens": %d, "total_output_tokens": 1280, "duration": 10, "output_throughput": 128, "median_ttft_ms": 50, "median_tpot_ms": 10}`, req, total)
	}
	var labels []string
	for _, c := range []struct{ req, total, want int }{{8000, 79990, 8000}, {8192, 81900, 8192}} {
		ms, err := readAll([]byte(line(c.req, c.total)), "r.json", "")
		if err != nil {
			t.Fatal(err)
		}
		m := ms[0].Measurements[0]
		if m.ContextTokens == nil || *m.ContextTokens != int64(c.want) || !near(extra(&m, "requested_input_len"), float64(c.req)) {
			t.Errorf("requested %d: context %v", c.req, js(m))
		}
		labels = append(labels, m.ContextLabel)
	}
	if labels[0] != "8K" || labels[1] != "8K" {
		t.Errorf("labels %v, want both 8K", labels)
	}
}
