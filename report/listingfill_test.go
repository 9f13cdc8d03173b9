package report

import (
	"testing"
	"time"

	"speedmatrix/schema"
)

// TestComplete: a blank GPU, engine, quantization or GPU count is filled
// from the metadata or the model's name; a column the run fills is kept.
func TestComplete(t *testing.T) {
	two := int32(2)
	tests := []struct {
		name     string
		in       RunListing
		meta     []schema.Field
		gpu, eng string
		quant    string
		gpuCount int32
	}{
		{"vllm bench serve backend", RunListing{Model: "Model-8B"}, []schema.Field{{Key: "Backend", Value: "vllm"}}, "", "vllm", "", 0},
		{"sglang chat backend", RunListing{Model: "m"}, []schema.Field{{Key: "Backend", Value: "sglang-oai-chat"}}, "", "sglang", "", 0},
		{"protocol is no engine", RunListing{Model: "m"}, []schema.Field{{Key: "Backend", Value: "openai-chat"}}, "", "", "", 0},
		{"model name FP8", RunListing{Model: "Qwen3.5-397B-A17B-FP8"}, nil, "", "", "FP8", 0},
		{"model name nvfp4", RunListing{Model: "org/model-nvfp4"}, nil, "", "", "NVFP4", 0},
		{"no token in a word", RunListing{Model: "Model-8Bfp8x"}, nil, "", "", "", 0},
		{"gpu and count from metadata", RunListing{Model: "m"}, []schema.Field{{Key: "GPU", Value: "H100"}, {Key: "gpu_count", Value: "2"}}, "H100", "", "", 2},
		{"columns kept", RunListing{Model: "m-FP8", GPU: "H200", Engine: "sglang", Quantization: "BF16", GPUCount: &two},
			[]schema.Field{{Key: "GPU", Value: "H100"}, {Key: "Backend", Value: "vllm"}, {Key: "gpu_count", Value: "8"}}, "H200", "sglang", "BF16", 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := tt.in
			l.Complete(tt.meta)
			var n int32
			if l.GPUCount != nil {
				n = *l.GPUCount
			}
			if l.GPU != tt.gpu || l.Engine != tt.eng || l.Quantization != tt.quant || n != tt.gpuCount {
				t.Errorf("got gpu %q engine %q quant %q count %d; want %q %q %q %d", l.GPU, l.Engine, l.Quantization, n, tt.gpu, tt.eng, tt.quant, tt.gpuCount)
			}
		})
	}
}

// TestSortByMeasured: by started_at, else ingested_at, then run id.
func TestSortByMeasured(t *testing.T) {
	day := func(d int) time.Time { return time.Date(2026, 3, d, 0, 0, 0, 0, time.UTC) }
	d2, d4 := day(2), day(4)
	runs := []RunListing{
		{RunID: "a", IngestedAt: day(5)},
		{RunID: "b", IngestedAt: day(9), StartedAt: &d4},
		{RunID: "c", IngestedAt: day(9), StartedAt: &d2},
		{RunID: "d", IngestedAt: day(3)},
		{RunID: "0", IngestedAt: day(5)},
	}
	SortByMeasured(runs)
	var got string
	for _, r := range runs {
		got += r.RunID
	}
	if got != "cdb0a" {
		t.Errorf("order %s, want cdb0a", got)
	}
}
