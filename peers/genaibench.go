package peers

import (
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"speedmatrix/schema"
)

// genAIBenchReader recognises a result file by its aggregated_metrics.
var genAIBenchReader = reader{
	format: FormatGenAIBench,
	parse:  one(parseGenAIBench),
	shapes: []shape{{rank: 120, keys: signature{all: []string{"aggregated_metrics"}}}},
}

// FormatGenAIBench is genai-bench's (sgl-project) result file of one
// scenario and load.
const FormatGenAIBench = "genai-bench"

// genaiBenchFile is one result file of a genai-bench experiment folder
// (<scenario>_<task>_<model>_<iteration>_<n>_time_<t>s.json):
// aggregated_metrics with per-metric statistics, and the per-request
// metrics it summarizes.
type genaiBenchFile struct {
	Aggregated struct {
		Scenario       string                    `json:"scenario"`
		NumConcurrency num                       `json:"num_concurrency"`
		BatchSize      num                       `json:"batch_size"`
		IterationType  string                    `json:"iteration_type"`
		RunDuration    num                       `json:"run_duration"`
		OutputTokS     num                       `json:"mean_output_throughput_tokens_per_s"`
		InputTokS      num                       `json:"mean_input_throughput_tokens_per_s"`
		TotalTokS      num                       `json:"mean_total_tokens_throughput_tokens_per_s"`
		CharsPerHour   num                       `json:"mean_total_chars_per_hour"`
		RequestsPerS   num                       `json:"requests_per_second"`
		ErrorRate      num                       `json:"error_rate"`
		Errors         num                       `json:"num_error_requests"`
		Completed      num                       `json:"num_completed_requests"`
		Requests       num                       `json:"num_requests"`
		TotalArrivals  num                       `json:"total_arrivals"`
		ArrivalRate    num                       `json:"arrival_requests_per_second"`
		ErrorCodes     map[string]num            `json:"error_codes_frequency"`
		Stats          map[string]map[string]num `json:"stats"`
	} `json:"aggregated_metrics"`
	TimeUnit string `json:"_time_unit"`
}

// genaiBenchNames maps genai-bench's per-request metrics to the AIPerf
// metric of the same formula, so that one mapping (aiperfCell) puts them
// in columns: ttft → time to first token; tpot, per request
// (e2e − ttft)/(tokens − 1) → tbt; e2e_latency → e2e;
// output_inference_speed (1/tpot per request) → per-request decode rate;
// num_input_tokens and num_output_tokens → sequence lengths.
var genaiBenchNames = map[string]string{
	"ttft":                   "time_to_first_token",
	"tpot":                   "inter_token_latency",
	"e2e_latency":            "request_latency",
	"output_inference_speed": "output_token_throughput_per_user",
	"num_input_tokens":       "input_sequence_length",
	"num_output_tokens":      "output_sequence_length",
	// Per request: input tokens / ttft and (output tokens − 1) / output
	// latency (the decode rate), named so that they are not read as the
	// run's throughput (llmperf's request_output_tok_s is tokens / e2e).
	"input_throughput":  "request_input_tok_s",
	"output_throughput": "request_decode_tok_s",
}

// genaiBenchScenario reads the requested input length of a scenario:
// D(in,out) deterministic, N(mean,std)/(mean,std) normal.
var genaiBenchScenario = regexp.MustCompile(`^[DN]\(([0-9]+)`)

// parseGenAIBench reads one genai-bench result file into a serve cell.
// mean_output_throughput_tokens_per_s (output tokens over the run's
// duration) → total_tok_s; requests_per_second → request_throughput;
// num_completed_requests, num_error_requests, run_duration; the
// scenario's requested input length names the context.
// The model is not in the file (the experiment folder's
// experiment_metadata.json names it); the scenario is the run's dataset.
func parseGenAIBench(b []byte, name string) (*schema.Matrix, error) {
	var f genaiBenchFile
	if err := json.Unmarshal(sanitizeJSON(b), &f); err != nil {
		return nil, jsonError(name, b, 1, err)
	}
	a := f.Aggregated
	unit := firstNonEmpty(f.TimeUnit, "s")
	stats := map[string]*aiperfStats{}
	for k, st := range a.Stats {
		u := ""
		if strings.HasSuffix(k, "latency") || k == "ttft" || k == "tpot" || strings.HasSuffix(k, "_time") {
			u = unit
		}
		if long, ok := genaiBenchNames[k]; ok {
			k = long
		}
		if s := statsBlock(u, st); len(s.Stat) > 0 {
			stats[k] = s
		}
	}
	one := func(v num) *aiperfStats {
		return &aiperfStats{Stat: map[string]num{"avg": v}, used: map[string]bool{}}
	}
	for k, v := range map[string]num{
		"output_token_throughput": a.OutputTokS, "request_throughput": a.RequestsPerS,
		"request_count": a.Completed, "error_request_count": a.Errors,
		"total_token_throughput": a.TotalTokS,
		"total_chars_per_hour":   a.CharsPerHour, "error_rate": a.ErrorRate, "num_requests": a.Requests,
		"total_arrivals": a.TotalArrivals, "arrival_requests_per_second": a.ArrivalRate, "batch_size": a.BatchSize,
	} {
		if v.Set {
			stats[k] = one(v)
		}
	}
	if s := stats["output_sequence_length"]; s != nil && s.Stat["max"].Set && s.Stat["max"].V == 0 && a.Completed.V > 0 {
		// genai-bench sets every output figure of a response that is
		// not a chat completion (embeddings, rerank) to 0, and its TTFT
		// is the whole request.
		return nil, errorf(name, keyLine(b, "aggregated_metrics", 1),
			"genai-bench result of a task that generates no tokens (%s: every request's num_output_tokens is 0, tpot 0, TTFT the whole request): speedmatrix measures generation, not read",
			firstNonEmpty(genaiBenchTask(name), "embeddings or rerank"))
	}
	notStreamed := genaiBenchNotStreamed(stats)
	if s := stats["output_sequence_length"]; s != nil {
		stats["total_output_tokens"] = one(s.Stat["sum"])
		s.used["sum"] = true
	}
	if s := stats["input_sequence_length"]; s != nil {
		stats["total_isl"] = one(s.Stat["sum"])
		s.used["sum"] = true
	}
	if a.RunDuration.Set {
		stats["benchmark_duration"] = &aiperfStats{Unit: "s", Stat: map[string]num{"avg": a.RunDuration}, used: map[string]bool{}}
	}
	var conc *int32
	var rate *float64
	switch it := strings.ToLower(a.IterationType); {
	case strings.Contains(it, "rate") || strings.Contains(it, "qps"):
		rate = a.NumConcurrency.ptr()
	case it == "batch_size":
		conc = i32(a.BatchSize)
	case genaiBenchOpenLoop(a.NumConcurrency, a.ArrivalRate):
		rate = a.NumConcurrency.ptr()
	default:
		conc = i32(a.NumConcurrency)
	}
	c, err := aiperfCell(name, stats, conc, rate, true, keyLine(b, "aggregated_metrics", 1))
	if err != nil {
		return nil, err
	}
	c.InputTokS = a.InputTokS.ptr()
	if m := genaiBenchScenario.FindStringSubmatch(a.Scenario); m != nil {
		if req, err := strconv.ParseFloat(m[1], 64); err == nil && req > 0 {
			inputContext(&c, req)
			metric(&c, "requested_input_tokens", num{V: req, Set: true})
		}
	}
	for _, code := range slices.Sorted(maps.Keys(a.ErrorCodes)) {
		metric(&c, "error_code_"+metricKey(code)+"_count", a.ErrorCodes[code])
	}
	m := peerMatrix("genai-bench", "")
	m.Run.SourceFormat = FormatGenAIBench
	m.Run.Title = "genai-bench: model not recorded in the result file"
	if raw, id := genaiBenchFileModel(name); id != "" {
		m.Run.ModelID, m.Run.Model = id, modelBase(id)
		m.Run.Title = "genai-bench: " + m.Run.Model
		addField(&m.Run, "Run", "Model (file name)", raw)
	}
	if a.Scenario != "" {
		m.Run.Title += " (scenario " + a.Scenario + ")"
		m.Run.Dataset = a.Scenario
	}
	if rate != nil {
		addField(&m.Run, "Run", "Load", fmt.Sprintf("open loop at %g requests/s (--qps-level, written as num_concurrency)", *rate))
	}
	addField(&m.Run, "Run", "Scenario", a.Scenario)
	addField(&m.Run, "Run", "Iteration", a.IterationType)
	if notStreamed {
		addField(&m.Run, "Warnings", "ttft",
			"every request's TTFT is genai-bench's 1 ms stand-in for a response that was not streamed: no TTFT, TBT or decode rate was measured; "+
				"kept in extra as nonstreamed_ttft_placeholder_*, e2e_per_output_token_*, request_output_tok_s_nonstreamed_* and request_output_throughput_tok_s_nonstreamed_*")
	}
	m.Measurements = []schema.Measurement{c}
	return m, nil
}

// genaiBenchFileName is a result file's name as genai-bench 2025–2026
// writes it: <scenario>_<task>_<model>_<iteration>_<n>_time_<t>s.json,
// the model (api_model_name) with "/" written "_"
// (D8000_700_text-to-text_openai_gpt-oss-120b_num_concurrency_4_time_66s.json).
// Older files have no model part (N2000_200_200_20_text-to-text_num_concurrency_16_time_15s.json).
var genaiBenchFileName = regexp.MustCompile(`_([a-z]+(?:-[a-z]+)*-to-[a-z]+)_(.+)_(?:num_concurrency|batch_size|request_rate|num_workers)_[0-9.]+_time_[0-9.]+s\.json$`)

// genaiBenchTask reads the task from a result file's name
// ("text-to-embeddings"), or "".
func genaiBenchTask(name string) string {
	if m := genaiBenchFileName.FindStringSubmatch(filepath.Base(name)); m != nil {
		return m[1]
	}
	if m := genaiBenchOldFileName.FindStringSubmatch(filepath.Base(name)); m != nil {
		return m[1]
	}
	return ""
}

// genaiBenchOldFileName is a result file's name without a model part
// (<scenario>_<task>_<iteration>_<n>_time_<t>s.json).
var genaiBenchOldFileName = regexp.MustCompile(`_([a-z]+(?:-[a-z]+)*-to-[a-z]+)_(?:num_concurrency|batch_size|request_rate|num_workers)_[0-9.]+_time_[0-9.]+s\.json$`)

// genaiBenchFileModel reads the model from a result file's name: the
// text as written, and the model id with its first "_" read back as the
// "/" between organisation and model ("zai-org_GLM-4.6" →
// "zai-org/GLM-4.6"). Note: a model name of its own with "_" in it and no
// organisation is misread; the text as written is kept beside it.
func genaiBenchFileModel(name string) (raw, id string) {
	m := genaiBenchFileName.FindStringSubmatch(filepath.Base(name))
	if m == nil {
		return "", ""
	}
	raw = m[2]
	if org, model, ok := strings.Cut(raw, "_"); ok && org != "" && model != "" {
		return raw, org + "/" + model
	}
	return raw, raw
}

// genaiBenchOpenLoop reports whether a result's num_concurrency holds the
// QPS of an open-loop run: genai-bench's async runner with --qps-level
// writes the rate there, with iteration_type "num_concurrency"
// (genai_bench/cli/cli.py: "store QPS value directly … in num_concurrency
// field"). It is one when the value is not a whole number, or when the
// arrival rate the open-loop runner records (planned arrivals ÷ planned
// duration) equals it; the closed-loop runner records requests sent ÷ the
// measured duration, which does not.
func genaiBenchOpenLoop(n, arrivalRate num) bool {
	if !n.Set {
		return false
	}
	if n.V != math.Trunc(n.V) {
		return true
	}
	return arrivalRate.Set && n.V > 0 && math.Abs(arrivalRate.V-n.V) <= 1e-9*n.V
}

// genaiBenchPlaceholderMs is the TTFT genai-bench records for a response
// it did not stream: the request's start plus 1 ms ("we can't measure
// TTFT, so we use a small offset", genai_bench/user/*_user.py).
const genaiBenchPlaceholderMs = 1.0

// genaiBenchNotStreamed reports whether every request's TTFT of stats is
// genai-bench's placeholder (a run against a non-streaming endpoint, or
// with --disable-streaming), and if so moves the figures that rest on it
// out of the columns' way, named by what they are: the placeholder
// itself; tpot, then (e2e − 1 ms)/(tokens − 1), the whole request per
// output token, prefill included; output_inference_speed, its inverse
// (request_output_tok_s_nonstreamed), and output_throughput, the same
// over the whole request (request_output_throughput_tok_s_nonstreamed).
// Note: a measured TTFT of exactly 1 ms for every request of a run is
// not credible; the test is min and max both within 1 µs of 1 ms.
func genaiBenchNotStreamed(stats map[string]*aiperfStats) bool {
	s := stats["time_to_first_token"]
	if s == nil {
		return false
	}
	lo, hi := s.Stat["min"], s.Stat["max"]
	k := unitToMs(s.Unit)
	if !lo.Set || !hi.Set || math.Abs(lo.V*k-genaiBenchPlaceholderMs) > 1e-3 || math.Abs(hi.V*k-genaiBenchPlaceholderMs) > 1e-3 {
		return false
	}
	for from, to := range map[string]string{
		"time_to_first_token":              "nonstreamed_ttft_placeholder",
		"inter_token_latency":              "e2e_per_output_token",
		"output_token_throughput_per_user": "request_output_tok_s_nonstreamed",
		"request_decode_tok_s":             "request_output_throughput_tok_s_nonstreamed",
	} {
		if st, ok := stats[from]; ok {
			delete(stats, from)
			stats[to] = st
		}
	}
	return true
}
