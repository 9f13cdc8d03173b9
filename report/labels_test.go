package report

import (
	"slices"
	"testing"

	"speedmatrix/schema"
)

func TestLabels(t *testing.T) {
	run := func(id, gpu, engine, tool, model string) *schema.Matrix {
		return &schema.Matrix{Run: schema.Run{RunID: id, GPU: gpu, Engine: engine, BenchTool: tool, Model: model}}
	}
	cases := []struct {
		name string
		ms   []*schema.Matrix
		want []string
	}{
		{"GPUs differ", []*schema.Matrix{run("aaaaaaaa11", "H200 NVL 141GB", "vllm", "t", "m"), run("bbbbbbbb22", "RTX PRO 6000 Blackwell", "vllm", "t", "m")},
			[]string{"H200 NVL 141GB", "RTX PRO 6000"}},
		{"one model, three tools", []*schema.Matrix{run("aaaaaaaa11", "", "", "vllm bench serve", "Model-8B"), run("bbbbbbbb22", "", "vllm", "llm-inference-bench", "Model-8B"), run("cccccccc33", "", "", "genai-bench", "Model-8B")},
			[]string{"vllm bench serve", "vllm llm-inference-bench", "genai-bench"}},
		{"providers, two alike", []*schema.Matrix{run("31caec0e11", "", "replicate", "llmperf", "llama-2-70b-chat"), run("7cb54f7922", "", "groq", "llmperf", "llama2-70b-4096"), run("541507f033", "", "replicate", "llmperf", "llama-2-70b-chat")},
			[]string{"replicate llama-2-70b-chat (31caec0e)", "groq llama2-70b-4096", "replicate llama-2-70b-chat (541507f0)"}},
		{"nothing tells them apart", []*schema.Matrix{run("aaaaaaaa11", "", "", "t", "m"), run("bbbbbbbb22", "", "", "t", "m")},
			[]string{"aaaaaaaa", "bbbbbbbb"}},
		{"one run names nothing", []*schema.Matrix{run("aaaaaaaa11", "", "", "", "m"), run("bbbbbbbb22", "", "", "", "")},
			[]string{"m", "bbbbbbbb"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := Labels(c.ms); !slices.Equal(got, c.want) {
				t.Errorf("Labels = %q, want %q", got, c.want)
			}
		})
	}
}
