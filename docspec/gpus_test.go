package docspec

import "testing"

// TestLaunchGPUs checks the GPU count a launch command's parallel sizes
// give, and the commands that say nothing.
func TestLaunchGPUs(t *testing.T) {
	for _, tt := range []struct {
		cmd  string
		want int
	}{
		// The seeds' command: tp 1, no pp/dp (vLLM's defaults): one GPU.
		{`env MAX_JOBS=2 "$HOME/env/bin/vllm" serve inclusionAI/Ling-3.0-tiny-int4 --tensor-parallel-size 1 --max-model-len 131072`, 1},
		{`vllm serve m -tp 4`, 4},
		{`vllm serve m --tensor-parallel-size 2 --pipeline-parallel-size 2 --data-parallel-size 2`, 8},
		{`vllm serve m --tensor-parallel-size=4 -dp 2 --enable-expert-parallel`, 8},
		{`python -m vllm.entrypoints.openai.api_server --model m -tp 2 -pp 2`, 4},
		{`vllm serve m`, 1},
		// One node of several: its sizes are the deployment's, not its own.
		{`vllm serve m -tp 8 --data-parallel-size 4 --headless`, 0},
		{`python3 -m sglang.launch_server --model-path m --tp 8`, 8},
		{`python3 -m sglang.launch_server --model-path m --tp-size 8 --dp-size 8 --enable-dp-attention`, 8},
		{`python3 -m sglang.launch_server --model-path m --tp-size 2 --dp-size 2`, 4},
		{`sglang serve --model-path m --tp-size 2 --pp-size 2`, 4},
		{`trtllm-serve m --tp_size 4 --ep_size 4`, 4},
		{`text-generation-launcher --model-id m --num-shard 2`, 2},
		// TGI's default shards over every visible GPU: no count.
		{`text-generation-launcher --model-id m`, 0},
		{`llama-server -m m.gguf -ngl 99`, 0},
		{`docker run --gpus all vllm/vllm-openai:latest --model m -tp 2`, 0},
		{`vllm serve m -tp x`, 0},
	} {
		got, rule := ParseLaunch(tt.cmd).GPUs()
		if got != tt.want || (got == 0) != (rule == "") {
			t.Errorf("%s: %d GPUs (%q), want %d", tt.cmd, got, rule, tt.want)
		}
	}
}
