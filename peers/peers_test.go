package peers

import (
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"speedmatrix/schema"
)

// fixtures holds the files of other tools the tests read, one folder per
// tool, with their origins (README.md, SYNTHETIC.md).
//
// Note: they stay under parse/testdata, where they were first kept: the
// golden files of report and the tests of render and cmd/run name them
// by that path (a run's source path is in report's goldens).
const fixtures = "../parse/testdata/peers"

// maxFuzzSeed bounds the fixtures a fuzz target takes as seeds while it
// fuzzes (plain go test still runs every one), as parse's does: large
// seeds leave the engine minimizing them.
const maxFuzzSeed = 2 << 10

// addSeed adds b to f's corpus unless it is too large to fuzz from.
func addSeed(f *testing.F, b []byte) {
	if fuzzing() && len(b) > maxFuzzSeed {
		return
	}
	f.Add(b)
}

// fuzzing reports whether the test binary runs a fuzz target's engine
// (-test.fuzz set), not only its seed corpus.
func fuzzing() bool {
	fl := flag.Lookup("test.fuzz")
	return fl != nil && fl.Value.String() != ""
}

// readPeer parses one fixture under parse/testdata/peers through detection.
func readPeer(t *testing.T, rel string) (*schema.Matrix, error) {
	t.Helper()
	path := filepath.Join(fixtures, rel)
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return readOne(b, path, "")
}

// readAll is Read for a file the test knows is another tool's: one that
// is not is an error, as it is in a document the document formats do
// not recognise either.
func readAll(b []byte, name, format string) ([]*schema.Matrix, error) {
	ms, ok, err := Read(b, name, format)
	if !ok && err == nil {
		return nil, fmt.Errorf("%s: not recognised as another tool's result file", name)
	}
	return ms, err
}

// readOne is readAll for a file of one run.
func readOne(b []byte, name, format string) (*schema.Matrix, error) {
	ms, err := readAll(b, name, format)
	if err != nil {
		return nil, err
	}
	if len(ms) != 1 {
		return nil, fmt.Errorf("%s: %d runs, want one", name, len(ms))
	}
	return ms[0], nil
}

// mustReadOne reads a file that holds one run, failing the test on
// error.
func mustReadOne(t *testing.T, path string) *schema.Matrix {
	t.Helper()
	ms := mustReadAll(t, path)
	if len(ms) != 1 {
		t.Fatalf("%s: %d runs, want one", path, len(ms))
	}
	return ms[0]
}

// mustReadAll reads a file into its runs, failing the test on error.
func mustReadAll(t *testing.T, path string) []*schema.Matrix {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	ms, err := readAll(b, path, "")
	if err != nil {
		t.Fatal(err)
	}
	return ms
}

// near reports whether p holds want within a relative 1e-6.
func near(p *float64, want float64) bool {
	if p == nil {
		return false
	}
	if math.IsInf(want, 0) {
		return *p == want
	}
	return math.Abs(*p-want) <= 1e-6*math.Max(1, math.Abs(want))
}

// extra returns a named Extra figure.
func extra(m *schema.Measurement, name string) *float64 {
	for _, e := range m.Extra {
		if e.Name == name {
			v := e.Value
			return &v
		}
	}
	return nil
}

func TestPeerFiles(t *testing.T) {
	type check struct {
		what string
		got  func(m *schema.Matrix) *float64
		want float64
	}
	f := func(v float64) *float64 { return &v }
	f64 := f
	i64 := func(p *int64) *float64 {
		if p == nil {
			return nil
		}
		return f(float64(*p))
	}
	// set counts the figures present among ps (checks of absence want 0).
	set := func(ps ...*float64) *float64 {
		n := 0.0
		for _, p := range ps {
			if p != nil {
				n++
			}
		}
		return f(n)
	}
	i32p := func(p *int32) *float64 {
		if p == nil {
			return nil
		}
		return f(float64(*p))
	}
	tests := []struct {
		file   string
		format string
		model  string
		cells  int
		checks []check
	}{
		{"vllm/inferencex-multinode-gptoss120b-conc16-p999.json", FormatVLLMBench, "gpt-oss-120b", 1, []check{
			{"concurrency", func(m *schema.Matrix) *float64 { return i32p(m.Measurements[0].Concurrency) }, 16},
			{"request rate inf", func(m *schema.Matrix) *float64 { return m.Measurements[0].RequestRate }, math.Inf(1)},
			{"ttft median", func(m *schema.Matrix) *float64 { return m.Measurements[0].TTFTMs }, 104.43462803959846},
			{"tbt = tpot median", func(m *schema.Matrix) *float64 { return m.Measurements[0].TBTMs }, 9.03941193840877},
			{"chunk gap = itl median", func(m *schema.Matrix) *float64 { return m.Measurements[0].ChunkGapP50Ms }, 9.067311882972717},
			{"e2e p99", func(m *schema.Matrix) *float64 { return m.Measurements[0].E2EP99Ms }, 9977.636895296164},
			{"total tok/s", func(m *schema.Matrix) *float64 { return m.Measurements[0].TotalTokS }, 1725.5812148243967},
			{"per request = 1000/tpot", func(m *schema.Matrix) *float64 { return m.Measurements[0].PerRequestTokS }, 1000 / 9.03941193840877},
			{"completed", func(m *schema.Matrix) *float64 { return i64(m.Measurements[0].CompletedRequests) }, 160},
			{"p99.9 ttft kept", func(m *schema.Matrix) *float64 { return extra(&m.Measurements[0], "p99_9_ttft_ms") }, 698.2081180762034},
			{"prompt tokens mean", func(m *schema.Matrix) *float64 { return i64(m.Measurements[0].PromptTokens) }, 1024},
		}},
		{"vllm/inferencex-atom-qwen35-397b-mtp-conc64-with-input_lens.json", FormatVLLMBench, "Qwen3.5-397B-A17B-FP8", 1, []check{
			{"concurrency", func(m *schema.Matrix) *float64 { return i32p(m.Measurements[0].Concurrency) }, 64},
			{"ttft p90", func(m *schema.Matrix) *float64 { return m.Measurements[0].TTFTP90Ms }, 1280.1106976694427},
			{"input tokens", func(m *schema.Matrix) *float64 { return i64(m.Measurements[0].InputTokensTotal) }, 4729077},
			{"output tokens", func(m *schema.Matrix) *float64 { return i64(m.Measurements[0].OutputTokens) }, 588102},
			{"input lens counted", func(m *schema.Matrix) *float64 { return extra(&m.Measurements[0], "input_lens_count") }, 640},
		}},
		{"vllm/append-result.jsonl", FormatVLLMBench, "Llama-3.1-8B-Instruct", 2, []check{
			{"line 2 concurrency", func(m *schema.Matrix) *float64 { return i32p(m.Measurements[1].Concurrency) }, 32},
			{"line 2 failed", func(m *schema.Matrix) *float64 { return i64(m.Measurements[1].ErroredRequests) }, 1},
			{"old goodput key", func(m *schema.Matrix) *float64 { return m.Measurements[1].GoodputReqS }, 9.1},
			{"line 2 source line", func(m *schema.Matrix) *float64 { return f(float64(m.Measurements[1].SourceLine)) }, 2},
		}},
		// A sharegpt rate sweep appended to one file (means 224.4, 225.3
		// and 226.1 tokens) shares one context, the pooled mean (157,715
		// over 699 requests: 225.6); a sonnet line appended after it (no
		// dataset is recorded) keeps its own 550.
		{"vllm/sharegpt-append.jsonl", FormatVLLMBench, "Llama-3.1-8B-Instruct", 4, []check{
			{"sweep lines in one context", func(m *schema.Matrix) *float64 {
				n := 0.0
				for _, c := range m.Measurements[:3] {
					if c.ContextLabel == "226" && *c.ContextTokens == 226 {
						n++
					}
				}
				return &n
			}, 3},
			{"a sweep line keeps its own mean", func(m *schema.Matrix) *float64 { return i64(m.Measurements[1].PromptTokens) }, 225},
			{"the sonnet line apart", func(m *schema.Matrix) *float64 { return i64(m.Measurements[3].ContextTokens) }, 550},
		}},
		// A benchmark_serving derivative writing seconds without "_ms"
		// (bug class 4): milliseconds in the columns, nothing unit-less.
		{"vllm/inferencex-token-position-slo-glm5-conc4-seconds.json", FormatVLLMBench, "GLM-5-FP8", 1, []check{
			{"ttft median s to ms", func(m *schema.Matrix) *float64 { return m.Measurements[0].TTFTMs }, 264.99967742711306},
			{"ttft p99", func(m *schema.Matrix) *float64 { return m.Measurements[0].TTFTP99Ms }, 584.8183088190854},
			{"tbt = tpot median", func(m *schema.Matrix) *float64 { return m.Measurements[0].TBTMs }, 21.372462615488082},
			{"tbt p99", func(m *schema.Matrix) *float64 { return m.Measurements[0].TBTP99Ms }, 26.454948791720733},
			{"e2e median", func(m *schema.Matrix) *float64 { return m.Measurements[0].E2EP50Ms }, 3022.5854497402906},
			{"e2e p99", func(m *schema.Matrix) *float64 { return m.Measurements[0].E2EP99Ms }, 3720.3497649915516},
			{"per request = 1000/tpot", func(m *schema.Matrix) *float64 { return m.Measurements[0].PerRequestTokS }, 1000 / 21.372462615488082},
			{"input tok/s", func(m *schema.Matrix) *float64 { return m.Measurements[0].InputTokS }, 1317.8212352978426},
			{"total tok/s", func(m *schema.Matrix) *float64 { return m.Measurements[0].TotalTokS }, 164.72765441223032},
			{"concurrency", func(m *schema.Matrix) *float64 { return i32p(m.Measurements[0].Concurrency) }, 4},
			{"completed", func(m *schema.Matrix) *float64 { return i64(m.Measurements[0].CompletedRequests) }, 40},
			{"no unit-less latency", func(m *schema.Matrix) *float64 {
				return set(extra(&m.Measurements[0], "median_ttft"), extra(&m.Measurements[0], "p99_tpot"), extra(&m.Measurements[0], "median_e2el"))
			}, 0},
		}},
		// vLLM 0.4: "request_inthroughput", printed input_throughput, no ITL.
		{"vllm/v0.4-request-inthroughput.json", FormatVLLMBench, "Llama-2-7b-chat-hf", 1, []check{
			{"request throughput", func(m *schema.Matrix) *float64 { return m.Measurements[0].RequestThroughput }, 10.47},
			{"input tok/s as printed", func(m *schema.Matrix) *float64 { return m.Measurements[0].InputTokS }, 2251.3},
			{"no misspelt extra", func(m *schema.Matrix) *float64 {
				return set(extra(&m.Measurements[0], "request_inthroughput"), extra(&m.Measurements[0], "input_throughput"))
			}, 0},
		}},
		{"vllm/sweep-array.json", FormatVLLMBench, "Qwen3-32B", 2, []check{
			{"e2e median", func(m *schema.Matrix) *float64 { return m.Measurements[1].E2EP50Ms }, 1432},
		}},
		{"sglang/datacrunch-h200-llama33-70b-online.jsonl", FormatSGLangBench, "", 7, []check{
			{"rate of line 3", func(m *schema.Matrix) *float64 { return m.Measurements[2].RequestRate }, 4},
			{"a sharegpt line keeps the random settings it wrote", func(m *schema.Matrix) *float64 {
				for i := range m.Measurements {
					if m.Measurements[i].SourceLine == 6 {
						return extra(&m.Measurements[i], "random_input_len")
					}
				}
				return nil
			}, 1024},
			{"no concurrency", func(m *schema.Matrix) *float64 {
				if m.Measurements[0].Concurrency != nil {
					return f(1)
				}
				return f(0)
			}, 0},
			{"chunk gap median", func(m *schema.Matrix) *float64 { return m.Measurements[0].ChunkGapP50Ms }, 13.638956006616354},
			{"e2e median", func(m *schema.Matrix) *float64 { return m.Measurements[0].E2EP50Ms }, 7819.046192569658},
			{"retokenized kept", func(m *schema.Matrix) *float64 { return extra(&m.Measurements[0], "total_output_tokens_retokenized") }, 160192},
			// Lines 6–7 (sharegpt, 269,081 input tokens over 1,200 requests
			// and 540,779 over 2,400) share one context, their pooled mean.
			{"one context for the sharegpt sweep", func(m *schema.Matrix) *float64 {
				n := 0.0
				for _, c := range m.Measurements {
					if c.SourceLine >= 6 && c.ContextLabel == "225" && *c.ContextTokens == 225 {
						n++
					}
				}
				return &n
			}, 2},
			{"a sharegpt line keeps its own mean prompt length", func(m *schema.Matrix) *float64 {
				for _, c := range m.Measurements {
					if c.SourceLine == 6 && c.PromptTokens != nil {
						v := float64(*c.PromptTokens)
						return &v
					}
				}
				return nil
			}, 224},
			// Lines 1–5 sweep the random dataset (input 1024, range ratio
			// 0: lengths uniform in [1, 1024], mean 512.5, measured 509–515);
			// lines 6–7 use sharegpt at rates 4 and 8 again, and land in
			// their own context.
			{"one context for the random-dataset sweep", func(m *schema.Matrix) *float64 {
				n := 0.0
				for _, c := range m.Measurements {
					if c.ContextLabel == "513" && c.ContextTokens != nil && *c.ContextTokens == 513 {
						n++
					}
				}
				return f(n)
			}, 5},
			{"sharegpt lines apart", func(m *schema.Matrix) *float64 {
				if m.Measurements[5].ContextLabel == "513" || m.Run.Dataset != "random, sharegpt" {
					return f(0)
				}
				return f(1)
			}, 1},
			{"measured prompt mean kept", func(m *schema.Matrix) *float64 { return i64(m.Measurements[0].PromptTokens) }, 509},
		}},
		// Prefill/decode disaggregation (bug class 3): server_info is
		// {internal_states, prefill[], decode[]}.
		{"sglang/disagg-server-info.jsonl", FormatSGLangBench, "DeepSeek-V3-0324", 1, []check{
			{"engine version known", func(m *schema.Matrix) *float64 { return f(float64(len(m.Run.EngineVersion))) }, float64(len("0.4.9.post2"))},
			{"decode tp", func(m *schema.Matrix) *float64 { return i32p(m.Run.TensorParallel) }, 16},
			{"decode KV budget", func(m *schema.Matrix) *float64 { return i64(m.Run.KVBudgetTokens) }, 3311360},
			{"ttft median", func(m *schema.Matrix) *float64 { return m.Measurements[0].TTFTMs }, 980.25},
			{"total tok/s", func(m *schema.Matrix) *float64 { return m.Measurements[0].TotalTokS }, 4350.875},
			{"concurrency", func(m *schema.Matrix) *float64 { return i32p(m.Measurements[0].Concurrency) }, 64},
			{"measured in flight", func(m *schema.Matrix) *float64 { return m.Measurements[0].AvgActiveRequests }, 61.5},
		}},
		{"sglang/datacrunch-h200-deepseek-dp-mla.jsonl", FormatSGLangBench, "", 1, []check{
			{"Infinity rate", func(m *schema.Matrix) *float64 { return m.Measurements[0].RequestRate }, math.Inf(1)},
			{"total tok/s", func(m *schema.Matrix) *float64 { return m.Measurements[0].TotalTokS }, 12412.394674113431},
		}},
		{"guidellm/danielkorat-qwen3-4b-thinking-sanity-benchmarks.json", FormatGuideLLM, "Qwen3-4B-Thinking-2507", 1, []check{
			{"concurrency", func(m *schema.Matrix) *float64 { return i32p(m.Measurements[0].Concurrency) }, 4},
			{"ttft median", func(m *schema.Matrix) *float64 { return m.Measurements[0].TTFTMs }, 171.52166366577148},
			{"tbt = guidellm ITL", func(m *schema.Matrix) *float64 { return m.Measurements[0].TBTMs }, 24.178653868062757},
			{"guidellm TPOT kept apart", func(m *schema.Matrix) *float64 { return extra(&m.Measurements[0], "e2e_per_token_ms") }, 24.32254352606833},
			{"e2e seconds to ms", func(m *schema.Matrix) *float64 { return m.Measurements[0].E2EP50Ms }, 24908.42366218567},
			{"output tokens", func(m *schema.Matrix) *float64 { return i64(m.Measurements[0].OutputTokens) }, 4096},
			{"total tok/s", func(m *schema.Matrix) *float64 { return m.Measurements[0].TotalTokS }, 4096 / 24.909644603729248},
		}},
		// guidellm 0.8 (report version 2): constant-rate benchmarks whose
		// strategy records max_concurrency 10240, a cap and not the load.
		{"guidellm/llmd-benchmark-guidellm-0.8.0dev18-report-v2.json", FormatGuideLLM, "e2e-mock-model", 2, []check{
			{"no concurrency from the cap", func(m *schema.Matrix) *float64 {
				return set(i32p(m.Measurements[0].Concurrency), i32p(m.Measurements[1].Concurrency))
			}, 0},
			{"cap kept", func(m *schema.Matrix) *float64 { return extra(&m.Measurements[0], "max_concurrency_cap") }, 10240},
			{"rate 1", func(m *schema.Matrix) *float64 { return m.Measurements[0].RequestRate }, 2},
			{"rate 2", func(m *schema.Matrix) *float64 { return m.Measurements[1].RequestRate }, 4},
			{"measured mean in flight", func(m *schema.Matrix) *float64 { return m.Measurements[0].AvgActiveRequests }, 0.007884656213828013},
			{"ttft median", func(m *schema.Matrix) *float64 { return m.Measurements[0].TTFTMs }, 11.276006698608398},
			{"ttft p95 kept", func(m *schema.Matrix) *float64 { return extra(&m.Measurements[0], "time_to_first_token_ms_p95") }, 11.686325073242188},
			{"e2e p99 s to ms", func(m *schema.Matrix) *float64 { return m.Measurements[1].E2EP99Ms }, 19.294023513793945},
			{"tbt median", func(m *schema.Matrix) *float64 { return m.Measurements[1].TBTMs }, 0.9067058563232422},
			{"time to first content", func(m *schema.Matrix) *float64 { return m.Measurements[1].TTFCMs }, 9.419918060302734},
			{"total tok/s", func(m *schema.Matrix) *float64 { return m.Measurements[0].TotalTokS }, 16 / 5.01964807510376},
			{"prompt tokens", func(m *schema.Matrix) *float64 { return i64(m.Measurements[1].PromptTokens) }, 66},
			{"completed", func(m *schema.Matrix) *float64 { return i64(m.Measurements[1].CompletedRequests) }, 2},
		}},
		// guidellm before 0.5: no metadata or args at the top; the strategy,
		// backend and request totals sit in each benchmark, and the
		// percentiles have no p50 (the median stands in).
		{"guidellm/neuralmagic-benchmarks-stripped-v0.3.json", FormatGuideLLM, "example_model", 1, []check{
			{"synchronous is concurrency 1", func(m *schema.Matrix) *float64 { return i32p(m.Measurements[0].Concurrency) }, 1},
			{"ttft p50 = median", func(m *schema.Matrix) *float64 { return m.Measurements[0].TTFTP50Ms }, 16.38054847717285},
			{"tbt p50 = median", func(m *schema.Matrix) *float64 { return m.Measurements[0].TBTP50Ms }, 4.9241227427805505},
			{"completed from request_totals", func(m *schema.Matrix) *float64 { return i64(m.Measurements[0].CompletedRequests) }, 46},
			{"errored from request_totals", func(m *schema.Matrix) *float64 { return i64(m.Measurements[0].ErroredRequests) }, 0},
		}},
		// An AIPerf run in which every request failed writes zeros for
		// every statistic: an error cell, figures null, never zero.
		{"aiperf/profile_export_aiperf-nothing-completed.json", FormatAIPerf, "mistral-7b", 1, []check{
			{"failed requests", func(m *schema.Matrix) *float64 { return i64(m.Measurements[0].ErroredRequests) }, 16},
			{"no figure", func(m *schema.Matrix) *float64 {
				c := m.Measurements[0]
				return set(c.TotalTokS, c.RequestThroughput, c.TTFTMs, c.TBTMs, c.E2EMeanMs, c.E2EP99Ms)
			}, 0},
			{"error status", func(m *schema.Matrix) *float64 {
				c := m.Measurements[0]
				if c.Status == schema.StatusError && c.StatusReason == "no request completed (16 failed)" {
					return f(1)
				}
				return f(0)
			}, 1},
			{"concurrency kept", func(m *schema.Matrix) *float64 { return i32p(m.Measurements[0].Concurrency) }, 16},
		}},
		// AIPerf 0.10 (schema 1.3): a Poisson phase's rate, the requested
		// prompt length of datasets[].prompts.isl (0.8 and later), the
		// trial of run_info, sizes with their unit.
		{"aiperf/profile_export_aiperf-v0.10-http.json", FormatAIPerf, "model-nvfp4", 1, []check{
			{"rate of the measured phase", func(m *schema.Matrix) *float64 { return m.Measurements[0].RequestRate }, 0.8},
			{"no concurrency", func(m *schema.Matrix) *float64 { return set(i32p(m.Measurements[0].Concurrency)) }, 0},
			{"requested prompt length names the context", func(m *schema.Matrix) *float64 { return i64(m.Measurements[0].ContextTokens) }, 512},
			{"measured prompt length kept", func(m *schema.Matrix) *float64 { return i64(m.Measurements[0].PromptTokens) }, 581},
			{"size with its unit", func(m *schema.Matrix) *float64 { return extra(&m.Measurements[0], "http_req_data_received_p90_kb") }, 102.71},
			{"trial", func(m *schema.Matrix) *float64 {
				for _, kv := range m.Run.Metadata {
					if kv.Key == "Trial" {
						v, _ := strconv.ParseFloat(kv.Value, 64)
						return &v
					}
				}
				return nil
			}, 1},
		}},
		// A leaderboard summary with failed requests: the error codes of
		// results_error_code_frequency (a Python dict in a string) are
		// counted, model_size kept.
		{"llmperf/leaderboard-bedrock_70b_summary.json", FormatLLMPerf, "meta.llama2-70b-chat-v1", 1, []check{
			{"error code counted", func(m *schema.Matrix) *float64 { return extra(&m.Measurements[0], "error_code_m100_count") }, 49},
			{"errored", func(m *schema.Matrix) *float64 { return i64(m.Measurements[0].ErroredRequests) }, 49},
			{"completed", func(m *schema.Matrix) *float64 { return i64(m.Measurements[0].CompletedRequests) }, 101},
			{"requests per minute to per second", func(m *schema.Matrix) *float64 { return m.Measurements[0].RequestThroughput }, 25.18838751305755 / 60},
			{"ttft p99 s to ms", func(m *schema.Matrix) *float64 { return m.Measurements[0].TTFTP99Ms }, 686.971139999514},
			{"concurrency", func(m *schema.Matrix) *float64 { return i32p(m.Measurements[0].Concurrency) }, 5},
			{"model size kept", func(m *schema.Matrix) *float64 {
				for _, kv := range m.Run.Metadata {
					if kv.Key == "model_size" && kv.Value == "70b" {
						return f(1)
					}
				}
				return nil
			}, 1},
		}},
		{"llmperf/leaderboard-groq_70b_summary.json", FormatLLMPerf, "llama2-70b-4096", 1, []check{
			{"concurrency", func(m *schema.Matrix) *float64 { return i32p(m.Measurements[0].Concurrency) }, 5},
			{"ttft seconds to ms", func(m *schema.Matrix) *float64 { return m.Measurements[0].TTFTMs }, 221.8883791938424},
			{"llmperf ITL is not tbt", func(m *schema.Matrix) *float64 { return set(m.Measurements[0].TBTMs) }, 0},
			{"llmperf ITL kept by formula", func(m *schema.Matrix) *float64 { return extra(&m.Measurements[0], "e2e_per_token_ms_p50") }, 5.320808651546638},
			{"total tok/s", func(m *schema.Matrix) *float64 { return m.Measurements[0].TotalTokS }, 441.84737788500206},
			{"completed", func(m *schema.Matrix) *float64 { return i64(m.Measurements[0].CompletedRequests) }, 150},
			{"a number written as a string kept", func(m *schema.Matrix) *float64 { return extra(&m.Measurements[0], "results_number_input_tokens_min") }, 550},
		}},
		{"aiperf/profile_export_aiperf.json", FormatAIPerf, "Qwen3-0.6B", 1, []check{
			{"concurrency", func(m *schema.Matrix) *float64 { return i32p(m.Measurements[0].Concurrency) }, 20},
			{"tbt = AIPerf ITL", func(m *schema.Matrix) *float64 { return m.Measurements[0].TBTMs }, 18},
			{"per user p50", func(m *schema.Matrix) *float64 { return m.Measurements[0].PerRequestTokS }, 55.6},
			{"errors", func(m *schema.Matrix) *float64 { return i64(m.Measurements[0].ErroredRequests) }, 2},
		}},
		{"aiperf/profile_export_aiperf.csv", FormatAIPerfCSV, "", 1, []check{
			{"ttft p50", func(m *schema.Matrix) *float64 { return m.Measurements[0].TTFTMs }, 145},
			{"e2e with thousands separators", func(m *schema.Matrix) *float64 { return m.Measurements[0].E2EMeanMs }, 2000},
			{"throughput section", func(m *schema.Matrix) *float64 { return m.Measurements[0].TotalTokS }, 1150.92},
			{"request count", func(m *schema.Matrix) *float64 { return i64(m.Measurements[0].CompletedRequests) }, 1000},
		}},
		// AIPerf 0.10: the model in models.items, the load in the phase
		// not excluded from results (the warm-up ran at another rate).
		{"aiperf/profile_export_aiperf-v0.10-phases.json", FormatAIPerf, "model-nvfp4", 1, []check{
			{"rate of the measured phase", func(m *schema.Matrix) *float64 { return m.Measurements[0].RequestRate }, 0.8},

			{"input tokens", func(m *schema.Matrix) *float64 { return i64(m.Measurements[0].InputTokensTotal) }, 285000},
			{"duration in sec", func(m *schema.Matrix) *float64 { return m.Measurements[0].MeasuredS }, 124.125},
			{"output tokens with reasoning (total_osl)", func(m *schema.Matrix) *float64 { return i64(m.Measurements[0].OutputTokens) }, 42800},
			{"answer tokens kept", func(m *schema.Matrix) *float64 { return extra(&m.Measurements[0], "total_output_tokens_avg") }, 42744},
			{"time to first content", func(m *schema.Matrix) *float64 { return m.Measurements[0].TTFCMs }, 150.75},
			{"every other statistic kept", func(m *schema.Matrix) *float64 { return extra(&m.Measurements[0], "request_latency_max_ms") }, 10511},
			{"GPU 1 power, named as in the CSV", func(m *schema.Matrix) *float64 { return extra(&m.Measurements[0], "gpu1_gpu_power_usage_w_avg") }, 398.75},
			{"GPU 0 temperature", func(m *schema.Matrix) *float64 { return extra(&m.Measurements[0], "gpu0_gpu_temperature_c_avg") }, 61.5},
			{"GPU 0 utilization", func(m *schema.Matrix) *float64 { return extra(&m.Measurements[0], "gpu0_gpu_utilization_avg") }, 91.25},
			{"averages only", func(m *schema.Matrix) *float64 {
				return set(extra(&m.Measurements[0], "gpu0_gpu_power_usage_w_max"), extra(&m.Measurements[0], "telemetry_data_avg"))
			}, 0},
			{"start time", func(m *schema.Matrix) *float64 {
				if m.Run.StartedAt == nil || m.Run.FinishedAt == nil {
					return nil
				}
				return f(float64(m.Run.StartedAt.Unix()))
			}, float64(time.Date(2026, 7, 3, 5, 24, 2, 0, time.UTC).Unix())},
		}},
		// AIPerf 0.1.1 (bug class 5): blocks under "records", ttft/ttst.
		{"aiperf/aiperf-0.1.1-example-run1-profile_export_aiperf.json", FormatAIPerf, "gpt-oss-20b", 1, []check{
			{"concurrency", func(m *schema.Matrix) *float64 { return i32p(m.Measurements[0].Concurrency) }, 100},
			{"ttft p50 (tag ttft)", func(m *schema.Matrix) *float64 { return m.Measurements[0].TTFTMs }, 2369.317693},
			{"ttft p99", func(m *schema.Matrix) *float64 { return m.Measurements[0].TTFTP99Ms }, 3833.3894000399996},
			{"tbt mean", func(m *schema.Matrix) *float64 { return m.Measurements[0].TBTMeanMs }, 27.763065454471807},
			{"chunk gap p99", func(m *schema.Matrix) *float64 { return m.Measurements[0].ChunkGapP99Ms }, 140.53429476},
			{"e2e p90", func(m *schema.Matrix) *float64 { return m.Measurements[0].E2EP90Ms }, 9277.5984794},
			{"total tok/s", func(m *schema.Matrix) *float64 { return m.Measurements[0].TotalTokS }, 2320.7222350404572},
			{"request throughput", func(m *schema.Matrix) *float64 { return m.Measurements[0].RequestThroughput }, 9.551622221540914},
			{"per user p50", func(m *schema.Matrix) *float64 { return m.Measurements[0].PerRequestTokS }, 36.21203256049328},
			{"completed", func(m *schema.Matrix) *float64 { return i64(m.Measurements[0].CompletedRequests) }, 89},
			{"errored", func(m *schema.Matrix) *float64 { return i64(m.Measurements[0].ErroredRequests) }, 11},
			{"output tokens (total_osl)", func(m *schema.Matrix) *float64 { return i64(m.Measurements[0].OutputTokens) }, 21624},
			{"input tokens (total_isl)", func(m *schema.Matrix) *float64 { return i64(m.Measurements[0].InputTokensTotal) }, 48950},
			{"duration", func(m *schema.Matrix) *float64 { return m.Measurements[0].MeasuredS }, 9.317788951},
			{"time to second token (tag ttst) kept", func(m *schema.Matrix) *float64 { return extra(&m.Measurements[0], "time_to_second_token_avg_ms") }, 120.16625153932584},
		}},
		// AIPerf's CSV with CRLF lines and its GPU telemetry section.
		{"aiperf/profile_export_aiperf-gpu.csv", FormatAIPerfCSV, "", 1, []check{
			{"ttft p50", func(m *schema.Matrix) *float64 { return m.Measurements[0].TTFTMs }, 240.5},
			{"errors", func(m *schema.Matrix) *float64 { return i64(m.Measurements[0].ErroredRequests) }, 10},
			{"output tokens", func(m *schema.Matrix) *float64 { return i64(m.Measurements[0].OutputTokens) }, 110},
			{"GPU 1 power", func(m *schema.Matrix) *float64 { return extra(&m.Measurements[0], "gpu1_gpu_power_usage_w_avg") }, 395.25},
			{"a label with parentheses", func(m *schema.Matrix) *float64 { return extra(&m.Measurements[0], "http_req_duration_avg_ms") }, 640.5},
		}},
		// GenAI-Perf of the command-line era: endpoint is the path, u the
		// URL, and the per-user rate has its older name.
		{"genai-perf/profile_export_genai_perf-cli.json", FormatGenAIPerf, "model-20b", 1, []check{
			{"concurrency", func(m *schema.Matrix) *float64 { return i32p(m.Measurements[0].Concurrency) }, 1},
			// Output tokens / request latency (first token included): by
			// formula in extra, not a decode rate.
			{"per request rate kept apart", func(m *schema.Matrix) *float64 { return extra(&m.Measurements[0], "request_output_tok_s_p50") }, 40.5},
			{"no per-request decode rate", func(m *schema.Matrix) *float64 { return set(m.Measurements[0].PerRequestTokS) }, 0},
			{"tbt", func(m *schema.Matrix) *float64 { return m.Measurements[0].TBTMs }, 7.0625},
		}},
		// GenAI-Perf of the config-file era: model_names and
		// perf_analyzer.stimulus.
		{"genai-perf/profile_export_genai_perf-config.json", FormatGenAIPerf, "model-20b", 1, []check{
			{"request rate", func(m *schema.Matrix) *float64 { return m.Measurements[0].RequestRate }, 4},
			{"ttft p50", func(m *schema.Matrix) *float64 { return m.Measurements[0].TTFTMs }, 90.25},
		}},
		// GenAI-Perf without streaming writes the request latency as TTFT
		// and zeros as ITL: token timing is left out.
		{"genai-perf/profile_export_genai_perf-nonstreaming.json", FormatGenAIPerf, "gpt-4o-mini", 1, []check{
			{"no ttft, tbt or decode rate", func(m *schema.Matrix) *float64 {
				c := m.Measurements[0]
				return set(c.TTFTMs, c.TBTMs, c.PerRequestTokS, extra(&c, "time_to_first_token_p50_ms"), extra(&c, "inter_token_latency_avg_ms"))
			}, 0},
			{"e2e p50", func(m *schema.Matrix) *float64 { return m.Measurements[0].E2EP50Ms }, 2090.25},
			{"e2e p95 kept", func(m *schema.Matrix) *float64 { return extra(&m.Measurements[0], "request_latency_p95_ms") }, 4890.25},
		}},
		// GenAI-Perf's CSV: "(per sec)" rates, p25–p99 columns, CRLF.
		{"genai-perf/profile_export_genai_perf.csv", FormatGenAIPerfCSV, "", 1, []check{
			{"total tok/s", func(m *schema.Matrix) *float64 { return m.Measurements[0].TotalTokS }, 55.5},
			{"e2e p50", func(m *schema.Matrix) *float64 { return m.Measurements[0].E2EP50Ms }, 2613.75},
			{"e2e p25 kept", func(m *schema.Matrix) *float64 { return extra(&m.Measurements[0], "request_latency_p25_ms") }, 1250.5},
			{"requests", func(m *schema.Matrix) *float64 { return i64(m.Measurements[0].CompletedRequests) }, 39},
		}},
		{"genai-perf/profile_export_genai_perf.json", FormatGenAIPerf, "gpt2", 1, []check{
			{"concurrency", func(m *schema.Matrix) *float64 { return i32p(m.Measurements[0].Concurrency) }, 10},
			{"ttft p99", func(m *schema.Matrix) *float64 { return m.Measurements[0].TTFTP99Ms }, 510},
		}},
		// genai-bench: aggregated_metrics.stats in seconds; tpot is per
		// request (e2e − ttft)/(tokens − 1); the scenario's input length
		// names the context.
		{"genai-bench/D8000_1000_text-to-text_num_concurrency_16_time_120s.json", FormatGenAIBench, "", 1, []check{
			{"concurrency", func(m *schema.Matrix) *float64 { return i32p(m.Measurements[0].Concurrency) }, 16},
			{"ttft p50 s to ms", func(m *schema.Matrix) *float64 { return m.Measurements[0].TTFTMs }, 562.5},
			{"ttft p99", func(m *schema.Matrix) *float64 { return m.Measurements[0].TTFTP99Ms }, 1500},
			{"tbt = tpot p50", func(m *schema.Matrix) *float64 { return m.Measurements[0].TBTMs }, 12.25},
			{"tbt mean", func(m *schema.Matrix) *float64 { return m.Measurements[0].TBTMeanMs }, 12.5},
			{"e2e p90", func(m *schema.Matrix) *float64 { return m.Measurements[0].E2EP90Ms }, 15000},
			{"per request decode rate p50", func(m *schema.Matrix) *float64 { return m.Measurements[0].PerRequestTokS }, 81.625},
			{"total tok/s", func(m *schema.Matrix) *float64 { return m.Measurements[0].TotalTokS }, 1250.25},
			{"request throughput", func(m *schema.Matrix) *float64 { return m.Measurements[0].RequestThroughput }, 1.25},
			{"completed", func(m *schema.Matrix) *float64 { return i64(m.Measurements[0].CompletedRequests) }, 150},
			{"errored", func(m *schema.Matrix) *float64 { return i64(m.Measurements[0].ErroredRequests) }, 2},
			{"output tokens", func(m *schema.Matrix) *float64 { return i64(m.Measurements[0].OutputTokens) }, 150000},
			{"input tokens", func(m *schema.Matrix) *float64 { return i64(m.Measurements[0].InputTokensTotal) }, 1200000},
			{"duration", func(m *schema.Matrix) *float64 { return m.Measurements[0].MeasuredS }, 120.5},
			{"context = requested 8000", func(m *schema.Matrix) *float64 { return i64(m.Measurements[0].ContextTokens) }, 8000},
			{"output latency p95 kept in ms", func(m *schema.Matrix) *float64 { return extra(&m.Measurements[0], "output_latency_p95_ms") }, 15500},
			{"error code counted", func(m *schema.Matrix) *float64 { return extra(&m.Measurements[0], "error_code_500_count") }, 2},
		}},
		// inference-perf's lifecycle report of one stage (seconds).
		// inference-perf of 2026: prompt_len gone, prompt_tokens (server
		// counts: total, cached, distribution) stands for it; every other
		// number (retries, goodput, failures by label …) lands in extra,
		// seconds in ms, rates per second left alone.
		{"inference-perf/stage_1_lifecycle_metrics-2026.json", FormatInferencePerf, "", 1, []check{
			{"context from prompt_tokens mean", func(m *schema.Matrix) *float64 { return i64(m.Measurements[0].ContextTokens) }, 1030},
			{"input tokens total", func(m *schema.Matrix) *float64 { return i64(m.Measurements[0].InputTokensTotal) }, 630432},
			{"output tokens total", func(m *schema.Matrix) *float64 { return i64(m.Measurements[0].OutputTokens) }, 78435},
			{"benchmark time", func(m *schema.Matrix) *float64 { return m.Measurements[0].MeasuredS }, 61.5},
			{"concurrency of the stage", func(m *schema.Matrix) *float64 { return i32p(m.Measurements[0].Concurrency) }, 32},
			{"rate of the stage", func(m *schema.Matrix) *float64 { return m.Measurements[0].RequestRate }, 10},
			{"cached prompt tokens", func(m *schema.Matrix) *float64 { return extra(&m.Measurements[0], "prompt_tokens_cached") }, 201500},
			{"goodput", func(m *schema.Matrix) *float64 { return extra(&m.Measurements[0], "goodput_metrics_request_goodput") }, 9.105},
			{"retry waste in ms", func(m *schema.Matrix) *float64 { return extra(&m.Measurements[0], "retries_wasted_total_ms") }, 16500},
			{"retry waste p90 in ms", func(m *schema.Matrix) *float64 { return extra(&m.Measurements[0], "retries_wasted_p90_ms") }, 3500},
			{"failures by label", func(m *schema.Matrix) *float64 {
				return extra(&m.Measurements[0], "failures_by_label_429_rate_limit_count")
			}, 5},
			{"a rate per second stays one", func(m *schema.Matrix) *float64 { return set(extra(&m.Measurements[0], "throughput_images_per_sec")) }, 1},
			{"request size", func(m *schema.Matrix) *float64 { return extra(&m.Measurements[0], "request_size_bytes_p90") }, 7010},
		}},
		// inference-perf's Prometheus metrics report: the model server's
		// view, latencies under successes in seconds, rates beside the
		// means; the server's per-token inter-token latency kept apart
		// from the client's chunk gaps.
		{"inference-perf/stage_0_prometheus_metrics.json", FormatInferencePerf, "", 1, []check{
			{"requests per second", func(m *schema.Matrix) *float64 { return m.Measurements[0].RequestThroughput }, 3.699181},
			{"output tokens per second", func(m *schema.Matrix) *float64 { return m.Measurements[0].TotalTokS }, 387.775739},
			{"input tokens per second", func(m *schema.Matrix) *float64 { return m.Measurements[0].InputTokS }, 224.720813},
			{"ttft median s to ms", func(m *schema.Matrix) *float64 { return m.Measurements[0].TTFTMs }, 23.043},
			{"tbt p99", func(m *schema.Matrix) *float64 { return m.Measurements[0].TBTP99Ms }, 48.646},
			{"e2e p90", func(m *schema.Matrix) *float64 { return m.Measurements[0].E2EP90Ms }, 9407.407},
			{"context", func(m *schema.Matrix) *float64 { return i64(m.Measurements[0].ContextTokens) }, 583},
			{"completed", func(m *schema.Matrix) *float64 { return i64(m.Measurements[0].CompletedRequests) }, 295},
		}},
		{"inference-perf/stage_2_prometheus_metrics-2026.json", FormatInferencePerf, "", 1, []check{
			{"server itl in ms, not a chunk gap", func(m *schema.Matrix) *float64 { return extra(&m.Measurements[0], "server_inter_token_latency_p90_ms") }, 22.5},
			{"no chunk gap", func(m *schema.Matrix) *float64 { return set(m.Measurements[0].ChunkGapP50Ms) }, 0},
			{"queue time in ms", func(m *schema.Matrix) *float64 { return extra(&m.Measurements[0], "request_queue_time_p99_ms") }, 210},
			{"block lifetime in ms", func(m *schema.Matrix) *float64 { return extra(&m.Measurements[0], "kv_block_lifetime_avg_ms") }, 12500},
			{"kv cache share, a 0–1 fraction named so", func(m *schema.Matrix) *float64 { return extra(&m.Measurements[0], "kv_cache_usage_fraction_p99") }, 0.6125},
			{"prefix cache hits, a fraction", func(m *schema.Matrix) *float64 { return extra(&m.Measurements[0], "prefix_cache_hit_fraction_avg") }, 0.125},
			{"no percentage name left", func(m *schema.Matrix) *float64 {
				return set(extra(&m.Measurements[0], "kv_cache_usage_percentage_p99"))
			}, 0},
			{"cached prompt tokens", func(m *schema.Matrix) *float64 { return extra(&m.Measurements[0], "prompt_tokens_cached") }, 153600},
			{"running", func(m *schema.Matrix) *float64 { return extra(&m.Measurements[0], "num_requests_running_avg") }, 48.5},
		}},
		// llm-d-benchmark's fixture: prompt_len (client count) and
		// prompt_tokens (server count) both; the first is the context, the
		// second is kept.
		{"inference-perf/llmd-benchmark-stage-prompt-tokens.json", FormatInferencePerf, "", 1, []check{
			{"context from prompt_len", func(m *schema.Matrix) *float64 { return i64(m.Measurements[0].ContextTokens) }, 4477},
			{"prompt_tokens kept", func(m *schema.Matrix) *float64 { return extra(&m.Measurements[0], "prompt_tokens_avg") }, 7197.974683544304},
			{"e2e mean", func(m *schema.Matrix) *float64 { return m.Measurements[0].E2EMeanMs }, 4338.102704063284},
		}},
		{"inference-perf/stage_3_lifecycle_metrics.json", FormatInferencePerf, "", 1, []check{
			{"rate", func(m *schema.Matrix) *float64 { return m.Measurements[0].RequestRate }, 16},
			{"ttft median s to ms", func(m *schema.Matrix) *float64 { return m.Measurements[0].TTFTMs }, 89.29768897360191},
			{"ttft p90", func(m *schema.Matrix) *float64 { return m.Measurements[0].TTFTP90Ms }, 145.19051388488152},
			{"tbt = time_per_output_token median", func(m *schema.Matrix) *float64 { return m.Measurements[0].TBTMs }, 17.54722771012656},
			{"chunk gap = inter_token_latency median", func(m *schema.Matrix) *float64 { return m.Measurements[0].ChunkGapP50Ms }, 0.1673795050010085},
			{"e2e mean", func(m *schema.Matrix) *float64 { return m.Measurements[0].E2EMeanMs }, 7630.229180409212},
			{"total tok/s", func(m *schema.Matrix) *float64 { return m.Measurements[0].TotalTokS }, 2673.728455531701},
			{"input tok/s", func(m *schema.Matrix) *float64 { return m.Measurements[0].InputTokS }, 2763.0938968935975},
			{"request throughput", func(m *schema.Matrix) *float64 { return m.Measurements[0].RequestThroughput }, 12.674076482112723},
			{"completed", func(m *schema.Matrix) *float64 { return i64(m.Measurements[0].CompletedRequests) }, 960},
			{"errored", func(m *schema.Matrix) *float64 { return i64(m.Measurements[0].ErroredRequests) }, 0},
			{"prompt mean", func(m *schema.Matrix) *float64 { return i64(m.Measurements[0].PromptTokens) }, 218},
			{"e2e per token kept in ms", func(m *schema.Matrix) *float64 {
				return extra(&m.Measurements[0], "normalized_time_per_output_token_p50_ms")
			}, 38.41728906105465},
			{"achieved rate kept", func(m *schema.Matrix) *float64 { return extra(&m.Measurements[0], "achieved_rate_avg") }, 16.00201431836482},
		}},
		// HF inference-benchmarker: the warm-up left out; rate benchmarks
		// at their rate, max_vus a cap.
		{"hf-inference-benchmarker/results.json", FormatHFBenchmarker, "Model-8B-Instruct", 2, []check{
			{"rate", func(m *schema.Matrix) *float64 { return m.Measurements[1].RequestRate }, 4},
			{"no concurrency from the cap", func(m *schema.Matrix) *float64 { return set(i32p(m.Measurements[1].Concurrency)) }, 0},
			{"cap kept", func(m *schema.Matrix) *float64 { return extra(&m.Measurements[1], "max_vus_cap_avg") }, 128},
			{"ttft p50", func(m *schema.Matrix) *float64 { return m.Measurements[1].TTFTMs }, 62.5},
			{"ttft mean", func(m *schema.Matrix) *float64 { return m.Measurements[1].TTFTMeanMs }, 70.3125},
			{"ttft p95 kept", func(m *schema.Matrix) *float64 { return extra(&m.Measurements[1], "time_to_first_token_p95_ms") }, 109.375},
			{"tbt p50", func(m *schema.Matrix) *float64 { return m.Measurements[1].TBTMs }, 10.25},
			{"e2e p99", func(m *schema.Matrix) *float64 { return m.Measurements[1].E2EP99Ms }, 20750},
			{"total tok/s", func(m *schema.Matrix) *float64 { return m.Measurements[1].TotalTokS }, 3120.332},
			{"completed", func(m *schema.Matrix) *float64 { return i64(m.Measurements[1].CompletedRequests) }, 470},
			{"errored", func(m *schema.Matrix) *float64 { return i64(m.Measurements[1].ErroredRequests) }, 10},
			{"duration ms to s", func(m *schema.Matrix) *float64 { return m.Measurements[1].MeasuredS }, 120.5},
			{"prompt mean", func(m *schema.Matrix) *float64 { return i64(m.Measurements[1].PromptTokens) }, 200},
			{"context = configured prompt length", func(m *schema.Matrix) *float64 { return i64(m.Measurements[1].ContextTokens) }, 200},
		}},
		{"llm-inference-bench/seed000-excerpt-v0.7.json", FormatLLMBenchJSON, "ling", 8, []check{
			{"prefill 8K tok/s", func(m *schema.Matrix) *float64 { return m.Measurements[0].TotalTokS }, 55000},
			{"prefill 8K ttft ms", func(m *schema.Matrix) *float64 { return m.Measurements[0].TTFTMs }, 149},
			{"decode 8K×1 ttft ms", func(m *schema.Matrix) *float64 { return m.Measurements[2].TTFTMs }, 41},
			{"decode 8K×1 tbt ms", func(m *schema.Matrix) *float64 { return m.Measurements[2].TBTMs }, 3.1},
			{"decode 8K×128 total", func(m *schema.Matrix) *float64 { return m.Measurements[4].TotalTokS }, 6091.1412},
		}},
		{"llm-inference-bench/old-no-version.json", FormatLLMBenchJSON, "Qwen3.5", 6, nil},
		// 0.4.x (bug class 2): every numeric key lands in a column or in
		// extra; completed_request_count, not the number of streams.
		{"llm-inference-bench/v0.4-cell-keys.json", FormatLLMBenchJSON, "Model-30B-A3B", 4, []check{
			{"prefill 8K tok/s", func(m *schema.Matrix) *float64 { return m.Measurements[0].TotalTokS }, 32768},
			{"decode 0×1 total", func(m *schema.Matrix) *float64 { return m.Measurements[1].TotalTokS }, 151.5},
			{"completed: the count that finished", func(m *schema.Matrix) *float64 { return i64(m.Measurements[3].CompletedRequests) }, 0},
			{"streams kept apart", func(m *schema.Matrix) *float64 { return extra(&m.Measurements[3], "num_completed") }, 64},
			{"completed at C=1", func(m *schema.Matrix) *float64 { return i64(m.Measurements[1].CompletedRequests) }, 2},
			{"ttft p90 s to ms", func(m *schema.Matrix) *float64 { return m.Measurements[1].TTFTP90Ms }, 610},
			{"tbt mean", func(m *schema.Matrix) *float64 { return m.Measurements[1].TBTMeanMs }, 13.1},
			{"tbt p90", func(m *schema.Matrix) *float64 { return m.Measurements[1].TBTP90Ms }, 14.9},
			{"tbt p99", func(m *schema.Matrix) *float64 { return m.Measurements[1].TBTP99Ms }, 18.8},
			{"chunk gap p50", func(m *schema.Matrix) *float64 { return m.Measurements[2].ChunkGapP50Ms }, 12.4},
			{"chunk gap p99", func(m *schema.Matrix) *float64 { return m.Measurements[2].ChunkGapP99Ms }, 42.1},
			{"chunk gap max kept in ms", func(m *schema.Matrix) *float64 { return extra(&m.Measurements[2], "chunk_gap_max_ms") }, 287.5},
			{"e2e mean", func(m *schema.Matrix) *float64 { return m.Measurements[2].E2EMeanMs }, 51250},
			{"e2e p99", func(m *schema.Matrix) *float64 { return m.Measurements[3].E2EP99Ms }, 53125},
			{"spec fraction in its column", func(m *schema.Matrix) *float64 { return m.Measurements[3].ServerSpecAcceptRate }, 0.71},
			{"request count kept", func(m *schema.Matrix) *float64 { return extra(&m.Measurements[3], "request_count") }, 64},
			{"max queue kept", func(m *schema.Matrix) *float64 { return extra(&m.Measurements[3], "max_running_reqs") }, 64},
			{"accepted draft tokens kept", func(m *schema.Matrix) *float64 { return extra(&m.Measurements[3], "server_spec_accepted_tokens") }, 29081},
			{"output length kept", func(m *schema.Matrix) *float64 { return extra(&m.Measurements[2], "output_seq_len_avg") }, 4096},
		}},
		// llm_decode_bench 0.6: chunk_inter_token_latency and
		// request_latency are the chunk-gap and e2e families (seconds);
		// request_latency 0.0 of a cell where nothing completed is no
		// measurement; time_to_second_token and warmup_duration are
		// seconds; e2e_output_tps_per_user is a rate, not a duration;
		// nested hardware and per-position acceptance figures are kept.
		{"llm-inference-bench/v0.6-cell-keys.json", FormatLLMBenchJSON, "Model-35B-A3B", 2, []check{
			{"chunk gap mean s to ms", func(m *schema.Matrix) *float64 { return m.Measurements[0].ChunkGapMeanMs }, 11.2},
			{"chunk gap p99 s to ms", func(m *schema.Matrix) *float64 { return m.Measurements[1].ChunkGapP99Ms }, 21.2},
			{"e2e p50 from request_latency", func(m *schema.Matrix) *float64 { return m.Measurements[1].E2EP50Ms }, 12250},
			{"e2e p99 from request_latency", func(m *schema.Matrix) *float64 { return m.Measurements[1].E2EP99Ms }, 14500},
			{"no e2e where nothing completed", func(m *schema.Matrix) *float64 {
				c := m.Measurements[0]
				return set(c.E2EMeanMs, c.E2EP50Ms, c.E2EP90Ms, c.E2EP99Ms)
			}, 0},
			{"placeholder kept in extra", func(m *schema.Matrix) *float64 { return extra(&m.Measurements[0], "request_latency_p50_ms") }, 0},
			{"ttst in ms", func(m *schema.Matrix) *float64 { return extra(&m.Measurements[1], "time_to_second_token_p90_ms") }, 24},
			{"warm-up in ms", func(m *schema.Matrix) *float64 { return extra(&m.Measurements[1], "warmup_duration_ms") }, 5250},
			{"rate kept as a rate", func(m *schema.Matrix) *float64 { return extra(&m.Measurements[1], "e2e_output_tps_per_user_p50") }, 161.5},
			{"rate not named a duration", func(m *schema.Matrix) *float64 {
				return set(extra(&m.Measurements[1], "e2e_output_tps_per_user_p50_ms"))
			}, 0},
			{"acceptance per position", func(m *schema.Matrix) *float64 { return extra(&m.Measurements[1], "server_spec_pos_accept_2") }, 0.4},
			{"cell hardware", func(m *schema.Matrix) *float64 { return extra(&m.Measurements[1], "hardware_power_total_avg_w") }, 650.75},
			{"cell hardware duration in ms", func(m *schema.Matrix) *float64 { return extra(&m.Measurements[1], "hardware_duration_ms") }, 23500},
			{"completed: the count that finished", func(m *schema.Matrix) *float64 { return i64(m.Measurements[1].CompletedRequests) }, 8},
			{"run hardware kept", func(m *schema.Matrix) *float64 {
				for _, kv := range m.Run.Metadata {
					if kv.Section == "Hardware" && kv.Key == "power_total_avg_w" {
						v, _ := strconv.ParseFloat(kv.Value, 64)
						return &v
					}
				}
				return nil
			}, 612.5},
		}},
		// llm_decode_bench 0.6's prefill map: the client's and the
		// server's figures and the hardware summary beside the headline.
		{"llm-inference-bench/v0.6-prefill.json", FormatLLMBenchJSON, "Model-35B-A3B", 1, []check{
			{"prefill tok/s", func(m *schema.Matrix) *float64 { return m.Measurements[0].TotalTokS }, 14275.5},
			{"ttft s to ms", func(m *schema.Matrix) *float64 { return m.Measurements[0].TTFTMs }, 2250},
			{"prefill time in ms", func(m *schema.Matrix) *float64 { return extra(&m.Measurements[0], "prefill_ms") }, 2125},
			{"server's rate", func(m *schema.Matrix) *float64 { return extra(&m.Measurements[0], "server_validation_tok_per_sec") }, 15115.25},
			{"server's cached tokens", func(m *schema.Matrix) *float64 { return extra(&m.Measurements[0], "server_validation_cached_tokens") }, 16},
			{"server's prefill time in ms", func(m *schema.Matrix) *float64 { return extra(&m.Measurements[0], "server_validation_prefill_ms") }, 2125},
			{"hardware", func(m *schema.Matrix) *float64 { return extra(&m.Measurements[0], "hardware_power_total_avg_w") }, 640.25},
		}},
		// An aggregate of iterations (bug class 6): the means, with the
		// standard deviations and the iteration count in extra.
		{"llm-inference-bench/aggregate-iterations.json", FormatLLMBenchJSON, "Model-8B", 2, []check{
			{"aggregate mean", func(m *schema.Matrix) *float64 { return m.Measurements[1].TotalTokS }, 1675.5},
			{"per request mean", func(m *schema.Matrix) *float64 { return m.Measurements[1].PerRequestTokS }, 104.5},
			{"ttft mean of p50s", func(m *schema.Matrix) *float64 { return m.Measurements[0].TTFTMs }, 31},
			{"tbt mean of p50s", func(m *schema.Matrix) *float64 { return m.Measurements[0].TBTMs }, 7.1},
			{"stdev kept", func(m *schema.Matrix) *float64 { return extra(&m.Measurements[1], "aggregate_tps_stdev") }, 22.25},
			{"ttft stdev in ms", func(m *schema.Matrix) *float64 { return extra(&m.Measurements[1], "ttft_p50_stdev_ms") }, 11},
			{"iterations", func(m *schema.Matrix) *float64 { return extra(&m.Measurements[1], "iterations") }, 3},
			{"errors", func(m *schema.Matrix) *float64 { return i64(m.Measurements[1].ErroredRequests) }, 0},
		}},
		// Early files (bug class 7): accepted-token counts where the
		// column means a 0–1 fraction stay in extra, with a warning.
		{"llm-inference-bench/early-spec-accept-counts.json", FormatLLMBenchJSON, "Model-235B", 2, []check{
			{"no fraction from a count", func(m *schema.Matrix) *float64 {
				return set(m.Measurements[0].ServerSpecAcceptRate, m.Measurements[1].ServerSpecAcceptRate)
			}, 0},
			{"count kept 1", func(m *schema.Matrix) *float64 { return extra(&m.Measurements[0], "server_spec_accept_rate_raw") }, 2001},
			{"count kept 2", func(m *schema.Matrix) *float64 { return extra(&m.Measurements[1], "server_spec_accept_rate_raw") }, 508460},
			{"warning", func(m *schema.Matrix) *float64 {
				for _, f := range m.Run.Metadata {
					if f.Section == "Warnings" && strings.Contains(f.Value, "not a 0–1 fraction") {
						return f64(1)
					}
				}
				return f64(0)
			}, 1},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			m, err := readPeer(t, tt.file)
			if err != nil {
				t.Fatal(err)
			}
			if m.Run.SourceFormat != tt.format {
				t.Errorf("format %q, want %q", m.Run.SourceFormat, tt.format)
			}
			if m.Run.Model != tt.model {
				t.Errorf("model %q, want %q", m.Run.Model, tt.model)
			}
			if len(m.Measurements) != tt.cells {
				t.Fatalf("%d cells, want %d", len(m.Measurements), tt.cells)
			}
			for _, c := range tt.checks {
				if got := c.got(m); !near(got, c.want) {
					if got == nil {
						t.Errorf("%s: null, want %v", c.what, c.want)
					} else {
						t.Errorf("%s: %v, want %v", c.what, *got, c.want)
					}
				}
			}
			for i := range m.Measurements {
				if m.Measurements[i].ContextLabel == "" {
					t.Errorf("cell %d has no context label", i)
				}
			}
		})
	}
}

// TestContainsAfter compares containsAfter with bytes.Contains of the
// whole needle, on chosen texts and on random ones of a few letters
// (where needles and their pieces occur often, overlapping).
func TestContainsAfter(t *testing.T) {
	tests := []struct{ b, pre, rest string }{
		{"", "", ""},
		{"", "\n", "B"},
		{"x\nBest Configurations", "\n", "Best Configurations"},
		{"Best Configurations", "\n", "Best Configurations"},
		{"a Best\nBest", "\n", "Best"},
		{"request_performance:", "request", "_performance:"},
		{"xrequest_performance", "request", "_performance:"},
		{"== Serving Benchmark Result ==", "Serving ", "Benchmark Result"},
		{"Serving  Benchmark Result", "Serving ", "Benchmark Result"},
		{"aab", "a", "ab"},
		{"abc", "abc", ""},
	}
	for _, tc := range tests {
		want := strings.Contains(tc.b, tc.pre+tc.rest)
		if got := containsAfter([]byte(tc.b), tc.pre, []byte(tc.rest)); got != want {
			t.Errorf("containsAfter(%q, %q, %q) = %v, want %v", tc.b, tc.pre, tc.rest, got, want)
		}
	}
	r := rand.New(rand.NewPCG(7, 8))
	word := func(n int) string {
		b := make([]byte, r.IntN(n+1))
		for i := range b {
			b[i] = "ab\n"[r.IntN(3)]
		}
		return string(b)
	}
	for range 20000 {
		b, pre, rest := word(30), word(3), word(4)
		want := strings.Contains(b, pre+rest)
		if got := containsAfter([]byte(b), pre, []byte(rest)); got != want {
			t.Fatalf("containsAfter(%q, %q, %q) = %v, want %v", b, pre, rest, got, want)
		}
	}
}
