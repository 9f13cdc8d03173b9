package peers

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// peerSignature is what a tool's result files look like at the top level,
// for telling the author of an unknown file which tool it most resembles
// and which versions of it speedmatrix reads.
type peerSignature struct {
	tool     string
	versions string
	keys     []string // top-level keys its files carry
}

// peerSignatures lists the tools read, as the README's table does.
var peerSignatures = []peerSignature{
	{"llm-inference-bench (llm_decode_bench.py) JSON", "0.4.x–0.7.x, and older files without metadata.version",
		[]string{"metadata", "prefill", "results", "summary_table", "schema_version", "target_launch_config"}},
	{"vLLM bench serve / benchmark_serving.py", "0.4 to 0.25, `vllm bench sweep` arrays and its summary.csv",
		[]string{"date", "backend", "model_id", "tokenizer_id", "num_prompts", "request_rate", "burstiness", "max_concurrency", "duration", "completed", "failed", "total_input_tokens", "total_output_tokens", "request_throughput", "output_throughput", "median_ttft_ms", "median_tpot_ms", "median_itl_ms", "median_e2el_ms", "input_lens", "output_lens", "ttfts", "itls", "best_of"}},
	{"SGLang bench_serving", "JSON Lines of 2024–2025, server_info (disaggregated too)",
		[]string{"backend", "dataset_name", "request_rate", "max_concurrency", "sharegpt_output_len", "random_input_len", "random_output_len", "random_range_ratio", "duration", "completed", "total_input_tokens", "total_output_tokens", "total_output_tokens_retokenized", "median_e2e_latency_ms", "median_ttft_ms", "concurrency", "server_info", "tag"}},
	{"guidellm benchmarks.json", "0.2–0.4, 0.5 and reports of metadata.version 2 (0.6–0.8), JSON or YAML",
		[]string{"benchmarks", "metadata", "args", "config"}},
	{"AIPerf / GenAI-Perf profile export JSON", "AIPerf 0.1.x (records), 0.2–0.11 and its sweep and confidence aggregates; GenAI-Perf 0.0.x",
		[]string{"records", "input_config", "time_to_first_token", "inter_token_latency", "request_latency", "output_token_throughput", "request_throughput", "request_count", "telemetry_data", "aiperf_version", "was_cancelled", "error_summary", "start_time", "end_time"}},
	{"llmperf summary", "the 2023–2024 summaries (results_<metric>_<stat>, seconds)",
		[]string{"version", "name", "model", "num_concurrent_requests", "mean_input_tokens", "mean_output_tokens", "results_ttft_s_mean", "results_end_to_end_latency_s_mean", "results_mean_output_throughput_token_per_s"}},
	{"genai-bench result file", "experiment folders of 2025 (aggregated_metrics, individual_request_metrics)",
		[]string{"aggregated_metrics", "individual_request_metrics", "_time_unit"}},
	{"inference-perf lifecycle report", "stage_<n>_lifecycle_metrics.json and summary_lifecycle_metrics.json",
		[]string{"load_summary", "successes", "failures"}},
	{"inference-benchmarker results", "the results JSON of 2025 (config, results[], system)",
		[]string{"config", "results", "start_time", "end_time", "system"}},
}

// peerCompanion is a file a read tool writes beside its summary (a
// per-request list, a folder's settings) or that is made from one: people
// feed them by mistake, and are told which file to ingest instead.
type peerCompanion struct {
	what, instead string
	keys          []string // top-level keys (of the first element of a list)
	min           int      // how many of keys make the file one of these
}

// peerCompanions lists the companion files seen in public repositories.
var peerCompanions = []peerCompanion{
	{"a failed `vllm bench sweep` run (run=N.failure.json: its error, no figures)", "the run=N.json or summary.json of the runs that completed",
		[]string{"run_number", "error_type", "error", "serve_overrides", "bench_overrides"}, 3},
	{"llmperf's per-request file (individual_responses.json)", "the *_summary.json beside it",
		[]string{"ttft_s", "end_to_end_latency_s", "inter_token_latency_s", "request_output_throughput_token_per_s", "number_input_tokens", "number_output_tokens", "number_total_tokens", "error_code"}, 4},
	{"genai-bench's experiment_metadata.json (the folder's settings, no figures)", "the result files of the folder (<scenario>_…_num_concurrency_<n>_time_<t>s.json)",
		[]string{"benchmark_version", "api_backend", "api_model_name", "traffic_scenario", "iteration_type", "num_concurrency", "experiment_folder_name", "metrics_time_unit"}, 4},
	{"llmperf-bench's table of figures per concurrency (first-time-to-token_mean_in_ms, latency_ms_per_token), made from llmperf's summaries", "the *_results.json beside it (llmperf's summaries keyed by concurrency)",
		[]string{"concurrency", "input_token_length", "output_token_length", "first-time-to-token_mean_in_ms", "throughput_token_per_s", "latency_ms_per_token"}, 4},
	{"inference-perf's per-request file (per_request_lifecycle_metrics.json)", "the lifecycle reports beside it (stage_<n>_lifecycle_metrics.json, summary_lifecycle_metrics.json)",
		[]string{"start_time", "end_time", "request", "response", "info", "error"}, 5},
	{"inference-perf's session report (summary_/stage_<n>_session_lifecycle_metrics.json: sessions of dependent requests, no request latencies)", "the request lifecycle reports beside it (stage_<n>_lifecycle_metrics.json, summary_lifecycle_metrics.json)",
		[]string{"num_sessions", "num_sessions_succeeded", "num_sessions_failed", "total_events", "total_events_completed", "total_events_cancelled", "sessions_per_second", "session_duration_sec"}, 3},
	{"inference-perf's per-session file (per_session_lifecycle_metrics.json)", "the request lifecycle reports beside it (stage_<n>_lifecycle_metrics.json, summary_lifecycle_metrics.json)",
		[]string{"session_id", "num_events", "num_events_completed", "num_events_cancelled", "success", "total_input_tokens", "total_output_tokens", "duration_sec"}, 4},
	{"a Benchmark Report v0.2 (llm-d's schema; inference-perf writes one per stage beside its own reports), whose time_per_output_token and inter_token_latency mean different things for each tool that fills them", "the producing tool's own result files (inference-perf: stage_<n>_lifecycle_metrics.json)",
		[]string{"version", "run", "scenario", "results"}, 3},
	{"GenAI-Perf's per-request profile_export.json", "profile_export_genai_perf.json (or its CSV)",
		[]string{"experiments", "service_kind", "endpoint"}, 2},
	{"vLLM's offline latency benchmark (`vllm bench latency`, benchmark_latency.py: the seconds each whole batch took, no model, batch size, lengths or per-token figures)", "the result of `vllm bench serve` (benchmark_serving.py --save-result)",
		[]string{"avg_latency", "latencies", "percentiles"}, 2},
	{"vLLM's offline throughput benchmark (`vllm bench throughput`, benchmark_throughput.py: requests and tokens per second of one batch, input and output tokens summed, no model or latencies)", "the result of `vllm bench serve` (benchmark_serving.py --save-result)",
		[]string{"elapsed_time", "num_requests", "total_num_tokens", "requests_per_second", "tokens_per_second"}, 4},
	{"SGLang's offline batch benchmark (`python -m sglang.bench_one_batch`, its result JSONL: one static batch run in the engine, no server, with the prefill and median decode latency in seconds and throughput per batch size, and no requests, rate or model)", "the JSONL of `python -m sglang.bench_serving --output-file`",
		[]string{"run_name", "batch_size", "input_len", "output_len", "prefill_latency", "prefill_throughput", "median_decode_latency", "median_decode_throughput", "total_latency", "overall_throughput"}, 5},
	{"llama.cpp's llama-bench JSON without its tokens per second (neither avg_ts nor samples_ts, or without build_commit, n_prompt or n_gen)", "llama-bench's output as it prints it (-o json, jsonl, csv, sql or the Markdown table)",
		[]string{"build_commit", "build_number", "model_filename", "model_type", "n_prompt", "n_gen", "avg_ns", "avg_ts", "stddev_ts", "samples_ts"}, 5},
	{"an InferenceX (InferenceMAX) aggregate, computed from a benchmark's raw result (seconds without a unit, per-GPU throughput)", "the raw result it was computed from (a benchmark_serving JSON, an AIPerf export)",
		[]string{"tput_per_gpu", "output_tput_per_gpu", "input_tput_per_gpu", "mean_intvty", "infmax_model_prefix", "conc", "isl", "osl", "spec_decoding", "disagg"}, 4},
}

// companion tells what companion file keys belong to and what to ingest
// instead, or "" when they are none.
func companion(keys map[string]json.RawMessage) string {
	for _, c := range peerCompanions {
		n := 0
		for _, k := range c.keys {
			if _, ok := keys[k]; ok {
				n++
			}
		}
		if n >= c.min {
			return companionText(c)
		}
	}
	return ""
}

// companionText says what companion file c is and what to ingest instead.
func companionText(c peerCompanion) string {
	return fmt.Sprintf("it is %s: speedmatrix reads %s", c.what, c.instead)
}

// resemblance names the tool whose files share the most top-level keys
// with keys, the keys they share and the versions read, or "" when none
// shares two. A companion file of a read tool is named as such.
func resemblance(keys map[string]json.RawMessage) string {
	if c := companion(keys); c != "" {
		return c
	}
	best, bestN := -1, 1
	var shared []string
	for i, sig := range peerSignatures {
		var s []string
		for _, k := range sig.keys {
			if _, ok := keys[k]; ok {
				s = append(s, k)
			}
		}
		if len(s) > bestN {
			best, bestN, shared = i, len(s), s
		}
	}
	if best < 0 {
		return ""
	}
	sort.Strings(shared)
	if len(shared) > 6 {
		shared = append(slices.Clip(shared[:6]), "…")
	}
	sig := peerSignatures[best]
	return fmt.Sprintf("it most resembles %s (shares %s), of which speedmatrix reads %s", sig.tool, strings.Join(shared, ", "), sig.versions)
}

// keyedResemblance is resemblance for a JSON object whose values are all
// objects (one per key: a concurrency, a stage): what its first value
// resembles, or "".
func keyedResemblance(t []byte) string {
	var top map[string]json.RawMessage
	if json.Unmarshal(sanitizeJSON(t), &top) != nil || len(top) == 0 {
		return ""
	}
	var first map[string]json.RawMessage
	for _, k := range slices.Sorted(maps.Keys(top)) {
		var v map[string]json.RawMessage
		if json.Unmarshal(top[k], &v) != nil {
			return ""
		}
		if first == nil {
			first = v
		}
	}
	if r := resemblance(first); r != "" {
		return "each of its values: " + r
	}
	return ""
}

// benchmarkReportYAML matches the YAML of a Benchmark Report v0.2 (BR0.2),
// as inference-perf writes it per stage (inference-perf.partial.stage_<n>.yaml)
// and llm-d-benchmark converts other tools' results to: a version 0.2.x
// at the top level (or in each element of a list of reports).
var benchmarkReportYAML = regexp.MustCompile(`(?m)^(- )?\s*version:\s*['"]?0\.2`)

// llmperfTableCSV is the header of the CSV that llmperf's README example
// (and forks' generate_csv.py) makes from its summaries.
var llmperfTableCSV = []byte("model_id,concurrent requests,throughput (t/s),Time-to-first-token @ P50 (s)")

// benchmarkReport tells, for a file that is not JSON, whether it is the
// YAML of a Benchmark Report v0.2 or the CSV made from llmperf's
// summaries, and what to ingest instead; "" when it is neither.
func benchmarkReport(t []byte) string {
	if bytes.HasPrefix(t, llmperfTableCSV) {
		return "a CSV made from llmperf's summaries (its \"average latency (ms)\" is the inter-token latency p50 × 1000): speedmatrix reads the *_summary.json files it was made from"
	}
	if !containsAfter(t, "request", []byte("_performance:")) || !benchmarkReportYAML.Match(t) {
		return ""
	}
	return "YAML, not JSON: " + companionText(peerCompanions[slices.IndexFunc(peerCompanions, func(c peerCompanion) bool {
		return strings.HasPrefix(c.what, "a Benchmark Report v0.2")
	})])
}

// csvTable tells what a CSV table of no tool speedmatrix reads is: a
// header row of three or more names and a row of as many fields with a
// number among them (a table people made from results, like the figures
// behind a paper's plots), or "" when t is no such table. Speed-test
// documents are Markdown, HTML or text, never CSV: such a file was once
// told it lacked an All measurements table.
func csvTable(t []byte) string {
	// Note: only the first two lines that are not blank are read (every
	// text document ingested comes here); the whole text is not copied.
	var rows [][]string
	for rest := t; len(rest) > 0 && len(rows) < 2; {
		var line []byte
		line, rest, _ = bytes.Cut(rest, []byte("\n"))
		if line = bytes.TrimSpace(line); len(line) > 0 {
			if len(rows) == 0 && bytes.Count(line, []byte(",")) < 2 {
				return "" // fewer than three names (most documents): not split
			}
			rows = append(rows, strings.Split(string(line), ","))
		}
	}
	if len(rows) < 2 || len(rows[0]) < 3 || len(rows[1]) != len(rows[0]) {
		return ""
	}
	for _, h := range rows[0] {
		h = strings.TrimSpace(h)
		if h == "" || strings.ContainsAny(h, "|<#") {
			return ""
		}
		if _, err := strconv.ParseFloat(h, 64); err == nil {
			return "" // a number in the header: no header row
		}
	}
	if !slices.ContainsFunc(rows[1], func(f string) bool {
		_, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
		return err == nil
	}) {
		return ""
	}
	cols := slices.Clone(rows[0])
	if len(cols) > 8 {
		cols = append(cols[:8], "…")
	}
	return fmt.Sprintf("a CSV table of no benchmark tool speedmatrix reads (columns: %s), such as one made from results for a plot or a paper: ingest the result files it was made from (speedmatrix reads vLLM's, SGLang's, guidellm's, AIPerf's, GenAI-Perf's, llmperf's, genai-bench's, inference-perf's and inference-benchmarker's, vllm bench sweep's, AIPerf's, llama-bench's and llama-benchy's own CSV, and LMBench's per-request CSV)", strings.Join(cols, ", "))
}

// servingResultBanner is the line above the summary vLLM's bench serve
// (benchmark_serving.py) and SGLang's bench_serving print to the console,
// also pasted as comments ("# ") or a Markdown quote ("> ").
var servingResultBanner = regexp.MustCompile(`(?m)^[ \t#>]*=+ Serving Benchmark Result =+\s*$`)

// consoleSummary tells what a text holding those console summaries is, or
// "" when it holds none or is a speed-test document (which names its All
// measurements table). People keep the console output in logs and
// Markdown notes; it was once told it lacked an All measurements table.
//
// Note: the summary names neither the model nor the input and output
// lengths (only the command above it may), so it is named and the result
// file of the same run asked for rather than read.
func consoleSummary(t []byte) string {
	// Note: the regexp ran over every document ingested (a quarter of an
	// ingest's CPU); the literal it needs is searched for first.
	if !containsAfter(t, "Serving ", []byte("Benchmark Result")) {
		return ""
	}
	n := len(servingResultBanner.FindAllIndex(t, -1))
	if n == 0 || bytes.Contains(bytes.ToLower(t), []byte("all measurements")) {
		return ""
	}
	return fmt.Sprintf("the console summary of vLLM's bench serve (benchmark_serving.py) or SGLang's bench_serving (%d \"Serving Benchmark Result\" block(s)), which names neither the model nor the input and output lengths: speedmatrix reads the result file the same run writes (vLLM: --save-result's JSON; SGLang: --output-file's JSON Lines)", n)
}

// llmDecodeBenchConsole names the console report of llm_decode_bench.py
// (llm-inference-bench, the tool behind the seed documents): Rich tables
// titled "Aggregate tok/s" and "Per-Request tok/s", rows "ctx \\ conc"
// (llm_decode_bench.py at 429f63e prints them at the end of a run). It
// was once told it lacked an All measurements table.
//
// Note: the tables round the figures and hide over-capacity cells, so
// the JSON the same run saved is asked for rather than the tables read.
func llmDecodeBenchConsole(t []byte) string {
	if !bytes.Contains(t, []byte("Aggregate tok/s")) && !bytes.Contains(t, []byte("Aggregate decode tok/s")) {
		return ""
	}
	if !bytes.Contains(t, []byte(`ctx \ conc`)) || bytes.Contains(bytes.ToLower(t), []byte("all measurements")) {
		return ""
	}
	return "the console report of llm_decode_bench.py (llm-inference-bench: tables \"Aggregate tok/s\", \"Per-Request tok/s\" by ctx \\ conc), whose figures are rounded and whose over-capacity cells are hidden: speedmatrix reads the JSON the same run saved (--output, benchmark_results.json by default) or the document it writes"
}
