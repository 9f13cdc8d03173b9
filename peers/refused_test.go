package peers

import (
	"errors"
	"strings"
	"testing"
)

// TestPeerBadFiles checks that files which are not results of a tool read
// here are refused at their line with a message naming what they are.
func TestPeerBadFiles(t *testing.T) {
	tests := []struct {
		file string
		line int
		msg  string
	}{
		{"bad/vllm-garbled.json", 2, "invalid JSON"},
		{"bad/unknown.json", 1, "no benchmark tool"},
		// An unknown file says which tool it most resembles and which
		// versions of it are read.
		{"bad/unknown-vllm-like.json", 1, "it most resembles vLLM bench serve / benchmark_serving.py (shares completed, date, duration, model_id, num_prompts, request_throughput, …), of which speedmatrix reads 0.4 to 0.25"},
		// Files a read tool writes beside its summary, or made from one,
		// are named, with the file to ingest instead.
		{"bad/llmperf-individual-responses-abridged.json", 1, "it is llmperf's per-request file (individual_responses.json): speedmatrix reads the *_summary.json beside it"},
		{"bad/genai-bench-experiment-metadata.json", 1, "it is genai-bench's experiment_metadata.json"},
		// inference-perf's per-request file (once named AIPerf-like) and
		// its session report (once "no tool").
		{"bad/inference-perf-per-request.json", 1, "it is inference-perf's per-request file (per_request_lifecycle_metrics.json): speedmatrix reads the lifecycle reports beside it"},
		{"bad/inference-perf-session-summary.json", 1, "it is inference-perf's session report"},
		// A Benchmark Report v0.2 (llm-d's golden inference-perf report,
		// copied), YAML: once told it was no complete speed-test document.
		{"bad/llmd-br-v0_2-inference_perf.yaml", 1, "YAML, not JSON: it is a Benchmark Report v0.2"},
		// The CSV llmperf's README example makes from its summaries
		// (once "not a complete speed-test document").
		{"bad/llmperf-readme-table.csv", 1, "a CSV made from llmperf's summaries"},
		// genai-bench's embeddings (no tokens generated): once stored with
		// TBT 0 ms and the whole request as TTFT.
		{"bad/genai-bench-E512_text-to-embeddings_batch_size_16_time_30s.json", 2, "genai-bench result of a task that generates no tokens (text-to-embeddings"},
		// llmperf-bench's table per concurrency, keyed like its results.
		{"bad/llmperf-bench-summary-table.json", 1, "each of its values: it is llmperf-bench's table of figures per concurrency"},
		{"bad/inferencex-agg-kimik2.5-conc4.json", 1, "it is an InferenceX (InferenceMAX) aggregate"},
		{"bad/llmbench-duplicate.json", 3, "duplicate cell"},
		{"bad/llmbench-summary-disagrees.json", 2, "disagrees with summary_table"},
		// Found by FuzzParsePeer: a failed CSV read has no field position
		// (FieldPos panicked); the reader's own error gives the line.
		{"bad/aiperf-csv-bare-quote.csv", 2, "CSV: "},
		// A table made from results for a paper's plots (Argonne's
		// LLM-Inference-Bench, abridged): once "no All measurements table
		// ... not a complete speed-test document".
		{"bad/argonne-llm-inference-bench-all_results_TTFT-abridged.csv", 1, "a CSV table of no benchmark tool speedmatrix reads (columns: Hardware, Num of Hardware, Framework, Model, Input Length, Output Length, Batch Size, Latency)"},
		// A home-grown script's summary with only *_ttft_ms keys and no
		// model (shape of a real one, our numbers): once "vLLM result
		// without model_id".
		// vLLM's offline benchmarks (shapes of real ones, our numbers):
		// once "JSON of no benchmark tool", although vLLM wrote them.
		{"bad/vllm-bench-latency.json", 1, "it is vLLM's offline latency benchmark (`vllm bench latency`"},
		{"bad/vllm-bench-throughput.json", 1, "it is vLLM's offline throughput benchmark (`vllm bench throughput`"},
		// The console summaries of vLLM bench serve and SGLang
		// bench_serving, kept in logs and Markdown notes (shapes of real
		// ones, our numbers): once "no All measurements table".
		{"bad/vllm-bench-serve-console.log", 1, "the console summary of vLLM's bench serve (benchmark_serving.py) or SGLang's bench_serving (1 \"Serving Benchmark Result\" block(s))"},
		{"bad/sglang-bench-serving-console.md", 1, "speedmatrix reads the result file the same run writes"},
		// The same pasted as comments (the shape of a real script's notes,
		// yiliu30/vllm-fork scripts/pp_local_test_res.sh).
		{"bad/vllm-console-commented.txt", 1, "the console summary of vLLM's bench serve"},
		// llama-benchy's progress events and a Markdown table of no tool:
		// once "JSON of no benchmark tool" and "no All measurements table".
		{"bad/llama-benchy-progress.jsonl", 1, "llama-benchy's progress JSON Lines"},
		{"bad/foreign-markdown-table.md", 1, "a Markdown table of no tool speedmatrix reads (columns: GPU, Model, Prompt tok/s, Gen tok/s)"},
		{"bad/homegrown-ttft-summary-no-model.json", 1, "JSON of no benchmark tool speedmatrix reads (keys: avg_latency_ms, avg_ttft_ms, concurrency,"},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			_, err := readPeer(t, tt.file)
			var pe *Error
			if !errors.As(err, &pe) {
				t.Fatalf("want *Error, got %v", err)
			}
			if pe.Line != tt.line || !strings.Contains(pe.Msg, tt.msg) || !strings.HasSuffix(pe.File, tt.file) {
				t.Errorf("got %v; want line %d and %q", err, tt.line, tt.msg)
			}
		})
	}
}
