package report

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"speedmatrix/internal/testtool"
	"speedmatrix/parse"
	"speedmatrix/schema"
)

// peer is one run of a peer tool's fixture: the file under
// ../parse/testdata/peers and the run's index in it.
func peer(t *testing.T, file string, i int) *schema.Matrix {
	t.Helper()
	path := filepath.Join("../parse/testdata/peers", file)
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	ms, err := parse.ParseAllBytes(b, path, "")
	if err != nil {
		t.Fatal(err)
	}
	if i >= len(ms) {
		t.Fatalf("%s holds %d runs", path, len(ms))
	}
	ms[i].Run.IngestedAt = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	return ms[i]
}

// simulatedFrom is the run cmd/run -simulate SEED writes: the simulator
// calibrated from seed serves its model, names the GPU "simulated
// (SEED'S TITLE)" and the engine speedmatrix-sim (runner.describe).
func simulatedFrom(m *schema.Matrix, id string) *schema.Matrix {
	r := schema.Run{RunID: id, Model: m.Run.Model, GPU: "simulated (" + m.Run.Title + ")", Engine: "speedmatrix-sim", EngineVersion: "1",
		BenchTool: "speedmatrix run", BenchVersion: "0.0.0-devel", DecodeTest: "Fixed duration"}
	r.Title = r.Model + " on " + r.GPU
	return &schema.Matrix{Run: r}
}

// TestLabelsGolden names groups of 2, 4 and 8 runs drawn from the seeds,
// the peers' fixtures and simulator runs calibrated from the seeds, as
// legends and sentences show them: every label at most MaxLabel
// characters, distinct, "simulated" in a simulated run's, with the line
// naming what else differs.
func TestLabelsGolden(t *testing.T) {
	int4, bf16 := load(t, seedINT4), load(t, seedBF16)
	groups := []struct {
		name string
		ms   []*schema.Matrix
	}{
		{"2 runs: the seeds", []*schema.Matrix{bf16, int4}},
		{"2 runs: llama-bench on RTX 4080 and on H100", []*schema.Matrix{peer(t, "llama-bench/qwen3-8b-q4km-rtx4080.json", 0), peer(t, "llama-bench/qwen3-8b-q4km-h100.json", 0)}},
		{"2 runs: a seed and its simulator", []*schema.Matrix{int4, simulatedFrom(int4, "51a0000000000001")}},
		{"4 runs: the seeds and a simulator calibrated from each", []*schema.Matrix{bf16, int4, simulatedFrom(bf16, "51b0000000000002"), simulatedFrom(int4, "51a0000000000001")}},
		{"4 runs: llama-bench on four GPUs", []*schema.Matrix{peer(t, "llama-bench/b7001-vulkan-abridged.json", 0), peer(t, "llama-bench/console-two-models-cuda.log", 0), peer(t, "llama-bench/qwen3-8b-q4km-h100.json", 0), peer(t, "llama-bench/qwen3-8b-q4km-rtx4080.csv", 0)}},
		{"8 runs: seeds, simulators, llama-bench and SGLang", []*schema.Matrix{bf16, int4, simulatedFrom(bf16, "51b0000000000002"), simulatedFrom(int4, "51a0000000000001"),
			peer(t, "llama-bench/qwen3-8b-q4km-rtx4080.json", 0), peer(t, "llama-bench/qwen3-8b-q4km-h100.json", 0), peer(t, "llama-bench/console-two-models-cuda.log", 2), peer(t, "sglang/disagg-server-info.jsonl", 0)}},
		{"8 runs: providers, tools and configurations", []*schema.Matrix{peer(t, "llmperf/leaderboard-bedrock_70b_summary.json", 0), peer(t, "llmperf/leaderboard-groq_70b_summary.json", 0), peer(t, "llmperf/leaderboard-replicate_70b_summary.json", 0),
			peer(t, "vllm/sweep-serve-summary-v0.12.json", 0), peer(t, "vllm/sweep-serve-summary-v0.12.json", 1), peer(t, "vllm/append-deployments.jsonl", 0), peer(t, "vllm/append-deployments.jsonl", 1), peer(t, "llm-inference-bench/aggregate-iterations.json", 0)}},
	}
	var b strings.Builder
	for _, g := range groups {
		ls := Labels(g.ms)
		fmt.Fprintf(&b, "== %s\n", g.name)
		runs := make([]*schema.Run, len(g.ms))
		seen := map[string]bool{}
		for i, m := range g.ms {
			runs[i] = &m.Run
			l := ls[i]
			if n := utf8.RuneCountInString(l); n > MaxLabel {
				t.Errorf("%s: %q has %d characters, over %d", g.name, l, n, MaxLabel)
			}
			if seen[l] {
				t.Errorf("%s: %q names two runs", g.name, l)
			}
			seen[l] = true
			if Simulated(&m.Run) && !strings.Contains(l, "simulated") {
				t.Errorf("%s: simulated run labelled %q", g.name, l)
			}
			fmt.Fprintf(&b, "%-*s  ← %s | %s | %s %s | %s | %s\n", MaxLabel, l, m.Run.GPU, m.Run.Quantization, m.Run.Engine, m.Run.EngineVersion, m.Run.Model, m.Run.BenchTool)
		}
		if d := AlsoDiffer(runs); d != "" {
			b.WriteString(d + "\n")
		}
		b.WriteString("\n")
	}
	testtool.Golden(t, filepath.Join("testdata", "labels.txt"), []byte(b.String()), *update)
}
