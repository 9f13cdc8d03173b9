package docspec

import (
	"path"
	"strconv"
	"strings"
)

// GPUs returns the number of GPUs the server a launch command starts runs
// on, by the engine's parallel sizes, and the rule it used ("vllm:
// tensor 4 × pipeline 1 × data 1"); 0 and "" when the command does not
// say. The engines and their flags:
//
//   - vLLM (`vllm serve`, `python -m vllm.entrypoints…`):
//     --tensor-parallel-size/-tp × --pipeline-parallel-size/-pp ×
//     --data-parallel-size/-dp;
//   - SGLang (`python -m sglang.launch_server`, `sglang serve`):
//     --tp-size/--tp × --pp-size/--pp × --dp-size/--dp, the data parallel
//     size counting once with --enable-dp-attention (data parallel
//     attention runs inside the tensor parallel group);
//   - TensorRT-LLM (`trtllm-serve`): --tp_size × --pp_size (expert
//     parallelism splits the same GPUs);
//   - TGI (`text-generation-launcher`): --num-shard.
//
// Note: a size the command leaves out is the engine's default, 1 for each
// of these, since a launch command is the server's whole configuration;
// except TGI's --num-shard, whose default is every visible GPU, so a TGI
// command without it says nothing. A command of another program (llama.cpp,
// a container run whose image the command names only as a word) gives 0:
// its GPUs are not a product of sizes it prints. A vLLM command of one
// node of several (--headless, --data-parallel-start-rank) gives 0 too.
func (l Launch) GPUs() (int, string) {
	base := path.Base(strings.Trim(l.Program, `"'`))
	size := func(names ...string) (int, bool) {
		for _, f := range l.Flags {
			name := strings.TrimLeft(f.Key, "-")
			for _, n := range names {
				if name == n {
					v, err := strconv.Atoi(f.Value)
					if err != nil || v < 1 {
						return -1, true
					}
					return v, true
				}
			}
		}
		return 1, false
	}
	has := func(name string) bool {
		_, ok := size(name)
		return ok
	}
	product := func(engine string, dpInTP bool, sizes ...int) (int, string) {
		n := 1
		var parts []string
		for i, s := range sizes {
			if s < 1 {
				return 0, ""
			}
			if !(dpInTP && i == 2) {
				n *= s
			}
			parts = append(parts, []string{"tensor ", "pipeline ", "data "}[i]+strconv.Itoa(s))
		}
		rule := engine + ": " + strings.Join(parts, " × ")
		if dpInTP {
			rule += " (data parallel attention inside the tensor parallel group)"
		}
		return n, rule
	}
	switch {
	case base == "vllm" || strings.HasPrefix(base, "vllm."):
		if has("headless") || has("data-parallel-start-rank") {
			return 0, ""
		}
		tp, _ := size("tensor-parallel-size", "tp")
		pp, _ := size("pipeline-parallel-size", "pp")
		dp, _ := size("data-parallel-size", "dp")
		return product("vllm", false, tp, pp, dp)
	case base == "sglang" || strings.HasPrefix(base, "sglang."):
		tp, _ := size("tp-size", "tp", "tensor-parallel-size")
		pp, _ := size("pp-size", "pp", "pipeline-parallel-size")
		dp, _ := size("dp-size", "dp", "data-parallel-size")
		return product("sglang", has("enable-dp-attention"), tp, pp, dp)
	case base == "trtllm-serve":
		tp, _ := size("tp_size", "tp-size")
		pp, _ := size("pp_size", "pp-size")
		return product("trtllm-serve", false, tp, pp)
	case base == "text-generation-launcher":
		if n, ok := size("num-shard"); ok && n >= 1 {
			return n, "text-generation-launcher: --num-shard " + strconv.Itoa(n)
		}
	}
	return 0, ""
}
