package parse

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLaunchGPUCount checks the GPU count of a document: the launch
// command's parallel sizes when the document states no count (the seeds:
// `vllm serve … --tensor-parallel-size 1`, no pipeline or data parallel
// size, so one GPU), the stated count kept with a warning when the launch
// command implies another, and no count from a command that says none.
func TestLaunchGPUCount(t *testing.T) {
	seed, err := os.ReadFile(filepath.Join("..", "testdata", "seeds", "000_acc4a01d882a0446.txt"))
	if err != nil {
		t.Fatal(err)
	}
	text := string(seed)
	const tp = "--tensor-parallel-size 1 "
	const vram = "- VRAM\n- 96 GB\n"
	if !strings.Contains(text, tp) || !strings.Contains(text, vram) {
		t.Fatal("the seed's launch command or Hardware section changed")
	}
	for _, tt := range []struct {
		name, text string
		want       int32 // 0: null
		warning    string
	}{
		{"seed", text, 1, ""},
		{"tp 4 pp 2", strings.Replace(text, tp, "--tensor-parallel-size 4 --pipeline-parallel-size 2 ", 1), 8, ""},
		{"stated count kept", strings.Replace(strings.Replace(text, tp, "--tensor-parallel-size 4 ", 1), vram, vram+"- GPU count\n- 2\n", 1), 2,
			"the launch command implies 4 GPUs (vllm: tensor 4 × pipeline 1 × data 1); kept the 2 the document states"},
		{"stated count agrees", strings.Replace(text, vram, vram+"- GPU count\n- 1\n", 1), 1, ""},
		{"headless node", strings.Replace(text, tp, "--tensor-parallel-size 4 --headless ", 1), 0, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			m, err := ParseBytes([]byte(tt.text), tt.name+".txt", "")
			if err != nil {
				t.Fatal(err)
			}
			if got := m.Run.GPUCount; (tt.want == 0) != (got == nil) || got != nil && *got != tt.want {
				t.Errorf("gpu_count %v, want %d", got, tt.want)
			}
			var warnings []string
			for _, f := range m.Run.Metadata {
				if f.Section == "Warnings" {
					warnings = append(warnings, f.Value)
				}
			}
			if tt.warning == "" && len(warnings) > 0 || tt.warning != "" && (len(warnings) != 1 || warnings[0] != tt.warning) {
				t.Errorf("warnings %q, want %q", warnings, tt.warning)
			}
		})
	}
}
