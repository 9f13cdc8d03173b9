package analysis

import (
	"strings"
	"testing"

	"speedmatrix/schema"
)

func testRuns() []schema.Run {
	return []schema.Run{
		{RunID: "03cf9c936d246394", Model: "Ling-3.0-tiny", GPU: "H200 NVL", Engine: "vllm", EngineVersion: "0.27.2rc1.dev113+g5cecfc013", Quantization: "BF16",
			Metadata: []schema.Field{{Section: "Run", Key: "Benchmark tool", Value: "llm-inference-bench v0.4.29"}}},
		{RunID: "acc4a01d882a0446", Model: "Ling-3.0-tiny-int4", GPU: "RTX PRO 6000 Blackwell Server Edition", Engine: "vllm", EngineVersion: "0.30.1rc1.dev452+g73a583112", Quantization: "INT4",
			Metadata: []schema.Field{{Section: "Run", Key: "Benchmark tool", Value: "llm-inference-bench v0.7.6"}}},
		{RunID: "acd0000000000001", Model: "Ling-3.0-tiny", GPU: "H200 NVL", Engine: "sglang", EngineVersion: "0.5.1", Quantization: "FP8", GPUCount: schema.I32(2)},
	}
}

func TestSelect(t *testing.T) {
	runs := testRuns()
	tests := []struct {
		sel    string
		want   string // run id, or "" for an error
		errHas []string
	}{
		{"03cf", "03cf9c936d246394", nil},
		{"ACC4", "acc4a01d882a0446", nil},
		{"quantization=BF16", "03cf9c936d246394", nil},
		{"quant=int4", "acc4a01d882a0446", nil},
		{"gpu=~H200,engine=sglang", "acd0000000000001", nil},
		{"benchmark_tool=~v0.7", "acc4a01d882a0446", nil},
		{"Benchmark tool=~0.4.29", "03cf9c936d246394", nil},
		{"gpu_count=2", "acd0000000000001", nil},
		{"version=~0.30", "acc4a01d882a0446", nil},
		{"ac", "", []string{"matches 2 runs", "acc4a01d882a0446", "acd0000000000001"}},
		{"gpu=~H200", "", []string{"matches 2 runs", "03cf9c936d246394", "acd0000000000001"}},
		{"gpu=H200", "", []string{"matches none of 3 runs"}},
		{"ffff", "", []string{"matches none"}},
		{"=x", "", []string{"not key=value"}},
	}
	for _, tt := range tests {
		t.Run(tt.sel, func(t *testing.T) {
			r, err := Select(runs, tt.sel)
			if tt.want != "" {
				if err != nil || r.RunID != tt.want {
					t.Fatalf("got %q, %v; want %q", r.RunID, err, tt.want)
				}
				return
			}
			if err == nil {
				t.Fatalf("selected %s, want an error", r.RunID)
			}
			for _, s := range tt.errHas {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("error %q lacks %q", err, s)
				}
			}
		})
	}
}

func TestSameSetup(t *testing.T) {
	runs := testRuns()
	got := SameSetup(runs, &runs[0])
	if len(got) != 2 || got[0].RunID != runs[0].RunID || got[1].RunID != runs[2].RunID {
		t.Errorf("same setup as H200 BF16: %v", got)
	}
}
