package report

import (
	"slices"
	"strings"
	"testing"

	"speedmatrix/schema"
)

func TestLabels(t *testing.T) {
	run := func(id, gpu, engine, tool, model string) *schema.Matrix {
		e, v, _ := strings.Cut(engine, " ")
		return &schema.Matrix{Run: schema.Run{RunID: id, GPU: gpu, Engine: e, EngineVersion: v, BenchTool: tool, Model: model}}
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
			[]string{"replicate llama-2-70b-chat #1", "groq llama2-70b-4096", "replicate llama-2-70b-chat #2"}},
		{"providers, short names alike", []*schema.Matrix{run("31caec0e11", "", "replicate", "llmperf", "llama-70b"), run("7cb54f7922", "", "groq", "llmperf", "llama2-70b-4096"), run("541507f033", "", "replicate", "llmperf", "llama-70b")},
			[]string{"replicate llama-70b (31caec0e)", "groq llama2-70b-4096", "replicate llama-70b (541507f0)"}},
		{"engine builds", []*schema.Matrix{run("aaaaaaaa11", "H200 NVL", "vllm 0.27.2rc1.dev113+g5cecfc013", "t", "Ling-3.0-tiny"), run("bbbbbbbb22", "", "sglang", "t", "Model-30B-A3B"), run("cccccccc33", "", "", "t", "MiniMax-M2.7")},
			[]string{"H200 NVL Ling-3.0-tiny", "Model-30B-A3B", "MiniMax-M2.7"}},
		{"GeForce models", []*schema.Matrix{run("aaaaaaaa11", "NVIDIA GeForce RTX 4080", "llama.cpp b5163", "llama-bench", "m"), run("bbbbbbbb22", "NVIDIA GeForce RTX 3090", "llama.cpp b5163", "llama-bench", "m")},
			[]string{"RTX 4080", "RTX 3090"}},
		{"long names alike but the end", []*schema.Matrix{run("aaaaaaaa11", "RTX PRO 6000 Blackwell Server Edition", "vllm", "t", "m"), run("bbbbbbbb22", "RTX PRO 6000 Blackwell Max-Q Workstation Edition", "vllm", "t", "m")},
			[]string{"RTX PRO 6000 Server", "RTX PRO 6000 Max-Q"}},
		{"simulated beside real", []*schema.Matrix{run("aaaaaaaa11", "H200 NVL", "vllm 0.27.2rc1", "t", "m"), run("bbbbbbbb22", "simulated (m on H200 NVL 141GB)", "speedmatrix-sim 1", "t", "m"), run("cccccccc33", "simulated (default)", "speedmatrix-sim 1", "t", "m")},
			[]string{"H200 NVL", "simulated H200 NVL 141GB", "simulated default"}},
		{"builds alone differ", []*schema.Matrix{run("aaaaaaaa11", "", "vllm 0.11.2rc1.dev7+gabc1234", "t", "m"), run("bbbbbbbb22", "", "vllm 0.11.2rc1.dev9+gdef5678", "t", "m")},
			[]string{"vllm 0.11.2rc1.dev7+gabc1234", "vllm 0.11.2rc1.dev9+gdef5678"}},
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
