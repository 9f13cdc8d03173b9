package peers

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func FuzzParsePeer(f *testing.F) {
	for _, dir := range []string{"vllm", "sglang", "guidellm", "llmperf", "aiperf", "genai-perf", "llm-inference-bench", "genai-bench", "inference-perf", "hf-inference-benchmarker", "llama-bench", "llama-benchy", "bad"} {
		paths, _ := filepath.Glob(filepath.Join(fixtures, dir, "*"))
		for _, p := range paths {
			b, err := os.ReadFile(p)
			if err == nil {
				addSeed(f, b)
			}
		}
	}
	// Small files of the formats whose fixtures are above maxFuzzSeed, so
	// the engine reaches their readers too.
	for _, s := range []string{
		`{"aggregated_metrics": {"scenario": "D(100,10)", "num_concurrency": 2, "iteration_type": "num_concurrency", "run_duration": 1.5, "mean_output_throughput_tokens_per_s": 10.5, "num_completed_requests": 3, "stats": {"ttft": {"p50": 0.1, "mean": 0.2}, "tpot": {"p50": 0.01}, "num_output_tokens": {"sum": 30}}}, "_time_unit": "s"}`,
		`{"config": {"model_name": "m", "prompt_options": {"num_tokens": 10}}, "results": [{"id": "warmup", "executor_type": "ConstantVUs", "config": {"max_vus": 1}, "token_throughput_secs": 1}, {"id": "r", "executor_type": "ConstantArrivalRate", "config": {"max_vus": 8, "rate": 2.0}, "token_throughput_secs": 5.5, "successful_requests": 4, "total_tokens_sent": 40, "time_to_first_token_ms": {"p50": 12, "avg": 13}, "e2e_latency_ms": {"p90": 100}}]}`,
		"build_commit,build_number,model_type,n_prompt,n_gen,n_depth,avg_ns,avg_ts,stddev_ts\n\"ab12\",\"5\",\"llama 7B Q4_0\",\"512\",\"0\",\"4096\",\"5000\",\"102.5\",\"1.5\"\n",
		"CREATE TABLE IF NOT EXISTS llama_bench (\n  build_commit TEXT,\n  n_prompt INTEGER\n);\nINSERT INTO llama_bench (build_commit, n_prompt, n_gen, avg_ts) VALUES ('a', '0', '128', '9.5');\n",
		`{"build_commit": "a", "n_prompt": 0, "n_gen": 16, "n_depth": 0, "avg_ts": 9.5, "samples_ns": [1000, 1100], "samples_ts": [10, 9]}` + "\n",
		`{"metadata": {"version": "0.4.1"}, "results": [{"concurrency": 2, "context_tokens": 0, "aggregate_tps_mean": 10.5, "aggregate_tps_stdev": 0.5, "ttft_p50_mean": 0.1, "chunk_gap_p99": 0.2, "server_spec_accept_rate": 2001}]}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		ms, ok, err := Read(b, "fuzz.json", "")
		if err != nil {
			var pe *Error
			if !errors.As(err, &pe) || pe.File != "fuzz.json" {
				t.Fatalf("error not positioned: %v", err)
			}
			return
		}
		if ok && len(ms) == 0 {
			t.Fatalf("parsed with no runs")
		}
		for _, m := range ms {
			if len(m.Measurements) == 0 {
				t.Fatalf("parsed a run with no measurements")
			}
		}
	})
}

func BenchmarkParsePeerVLLM(b *testing.B) {
	data, err := os.ReadFile(filepath.Join(fixtures, "vllm", "inferencex-atom-qwen35-397b-mtp-conc64-with-input_lens.json"))
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, _, err := Read(data, "bench.json", ""); err != nil {
			b.Fatal(err)
		}
	}
}
