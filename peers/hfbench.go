package peers

import (
	"encoding/json"
	"maps"
	"slices"
	"strings"

	"speedmatrix/schema"
)

// hfBenchmarkerReader recognises a results file by the
// token_throughput_secs of its results.
var hfBenchmarkerReader = reader{
	format: FormatHFBenchmarker,
	parse:  one(parseHFBenchmarker),
	shapes: []shape{{rank: 140, keys: signature{all: []string{"results"}, holds: map[string][]string{"results": {`"token_throughput_secs"`}}}}},
}

// FormatHFBenchmarker is the results JSON of Hugging Face's
// inference-benchmarker.
const FormatHFBenchmarker = "hf-inference-benchmarker"

// hfBenchFile is inference-benchmarker's results file: the run's config
// and one result per benchmark (warmup, throughput, then each rate of a
// sweep), latency percentiles in milliseconds.
type hfBenchFile struct {
	Config struct {
		MaxVUs        num    `json:"max_vus"`
		BenchmarkKind string `json:"benchmark_kind"`
		Tokenizer     string `json:"tokenizer"`
		ModelName     string `json:"model_name"`
		Profile       string `json:"profile"`
		RunID         string `json:"run_id"`
		PromptOptions *struct {
			NumTokens num `json:"num_tokens"`
		} `json:"prompt_options"`
		DecodeOptions *struct {
			NumTokens num `json:"num_tokens"`
		} `json:"decode_options"`
		DurationSecs num               `json:"duration_secs"`
		Meta         map[string]string `json:"meta"`
	} `json:"config"`
	Results   []hfBenchResult `json:"results"`
	StartTime string          `json:"start_time"`
	EndTime   string          `json:"end_time"`
	System    struct {
		OSName    string   `json:"os_name"`
		OSVersion string   `json:"os_version"`
		GPU       []string `json:"gpu"`
	} `json:"system"`
}

// hfBenchResult is one benchmark of a run.
type hfBenchResult struct {
	ID           string `json:"id"`
	ExecutorType string `json:"executor_type"`
	Config       struct {
		MaxVUs      num `json:"max_vus"`
		DurationSec num `json:"duration_secs"`
		Rate        num `json:"rate"`
	} `json:"config"`
	TotalRequests num            `json:"total_requests"`
	TotalTokens   num            `json:"total_tokens"`
	TokenTPS      num            `json:"token_throughput_secs"`
	DurationMs    num            `json:"duration_ms"`
	TTFT          map[string]num `json:"time_to_first_token_ms"`
	ITL           map[string]num `json:"inter_token_latency_ms"`
	E2E           map[string]num `json:"e2e_latency_ms"`
	// The newest writer adds the input token throughput and the medians
	// of tokens per one-second bucket.
	InputTokenTPS       num `json:"input_token_throughput_secs"`
	TokenTPSMedian      num `json:"token_throughput_median_secs"`
	InputTokenTPSMedian num `json:"input_token_throughput_median_secs"`
	// The first writer (text-generation-inference-benchmark, 2024) put
	// avg, p90 and p95 beside each other, e2e in whole milliseconds.
	TTFTAvg     num `json:"time_to_first_token_ms_avg"`
	TTFTP90     num `json:"time_to_first_token_ms_p90"`
	TTFTP95     num `json:"time_to_first_token_ms_p95"`
	ITLAvg      num `json:"inter_token_latency_ms_avg"`
	ITLP90      num `json:"inter_token_latency_ms_p90"`
	ITLP95      num `json:"inter_token_latency_ms_p95"`
	E2EAvg      num `json:"e2e_latency_ms_avg"`
	E2EP90      num `json:"e2e_latency_ms_p90"`
	E2EP95      num `json:"e2e_latency_ms_p95"`
	Failed      num `json:"failed_requests"`
	Successful  num `json:"successful_requests"`
	RequestRate num `json:"request_rate"`
	TokensSent  num `json:"total_tokens_sent"`
}

// parseHFBenchmarker reads inference-benchmarker's results: each result
// but the warm-up is a serve cell. A constant-VUs benchmark (throughput)
// runs max_vus closed-loop users: its concurrency; a constant-arrival-rate
// one runs at its rate, max_vus being a cap (kept in extra).
// token_throughput_secs (output tokens / duration) → total_tok_s;
// request_rate (successful requests / duration) → request_throughput;
// time_to_first_token_ms → ttft; inter_token_latency_ms (per request, the
// time between its first and last token over its tokens) → tbt;
// e2e_latency_ms → e2e; total_tokens_sent / successful → prompt_tokens;
// the configured prompt length names the context.
func parseHFBenchmarker(b []byte, name string) (*schema.Matrix, error) {
	var f hfBenchFile
	if err := json.Unmarshal(sanitizeJSON(b), &f); err != nil {
		return nil, jsonError(name, b, 1, err)
	}
	m := peerMatrix("inference-benchmarker", "")
	m.Run.SourceFormat = FormatHFBenchmarker
	cfg := f.Config
	m.Run.ModelID, m.Run.Model = cfg.ModelName, modelBase(cfg.ModelName)
	m.Run.Title = "inference-benchmarker: " + firstNonEmpty(m.Run.Model, "model not recorded")
	m.Run.StartedAt, m.Run.FinishedAt = vllmDate(f.StartTime), vllmDate(f.EndTime)
	addField(&m.Run, "Run", "Benchmark", cfg.BenchmarkKind)
	addField(&m.Run, "Run", "Tokenizer", cfg.Tokenizer)
	addField(&m.Run, "Run", "Profile", cfg.Profile)
	addField(&m.Run, "Run", "Run id", cfg.RunID)
	for _, k := range slices.Sorted(maps.Keys(cfg.Meta)) {
		// In the order of their names: the run's id is a hash of what
		// is read, and a map's order is not.
		addField(&m.Run, "Metadata", k, cfg.Meta[k])
	}
	m.Run.MeasureSeconds = cfg.DurationSecs.ptr()
	if do := cfg.DecodeOptions; do != nil {
		m.Run.MaxOutputTokens = do.NumTokens.int()
	}
	m.Run.OS = strings.TrimSpace(f.System.OSName + " " + f.System.OSVersion)
	if gpus := slices.DeleteFunc(slices.Clone(f.System.GPU), func(g string) bool { return g == "" || g == "N/A" }); len(gpus) > 0 {
		m.Run.GPU = strings.Join(gpus, ", ")
	}
	lines := objectLines(b, "results", `"executor_type"`, len(f.Results))
	for i, r := range f.Results {
		if r.ID == "warmup" {
			continue // the server's warm-up, not a measurement
		}
		stats := map[string]*aiperfStats{
			"time_to_first_token": statsBlock("ms", firstMap(r.TTFT, map[string]num{"avg": r.TTFTAvg, "p90": r.TTFTP90, "p95": r.TTFTP95})),
			"inter_token_latency": statsBlock("ms", firstMap(r.ITL, map[string]num{"avg": r.ITLAvg, "p90": r.ITLP90, "p95": r.ITLP95})),
			"request_latency":     statsBlock("ms", firstMap(r.E2E, map[string]num{"avg": r.E2EAvg, "p90": r.E2EP90, "p95": r.E2EP95})),
		}
		for k, v := range map[string]num{
			"output_token_throughput": r.TokenTPS, "request_throughput": r.RequestRate,
			"request_count": r.Successful, "error_request_count": r.Failed,
			"total_requests": r.TotalRequests, "total_output_tokens": r.TotalTokens, "total_isl": r.TokensSent,
		} {
			stats[k] = statsBlock("", map[string]num{"mean": v})
		}
		stats["benchmark_duration"] = statsBlock("ms", map[string]num{"mean": r.DurationMs})
		stats["configured_duration"] = statsBlock("s", map[string]num{"mean": r.Config.DurationSec})
		var conc *int32
		var rate *float64
		if strings.Contains(strings.ToLower(r.ExecutorType), "rate") {
			rate = r.Config.Rate.ptr()
			stats["max_vus_cap"] = statsBlock("", map[string]num{"mean": r.Config.MaxVUs})
		} else {
			conc = i32(r.Config.MaxVUs)
		}
		for k, s := range stats {
			if len(s.Stat) == 0 {
				delete(stats, k)
			}
		}
		c, err := aiperfCell(name, stats, conc, rate, true, lines[i])
		if err != nil {
			return nil, err
		}
		c.InputTokS = r.InputTokenTPS.ptr()
		// The medians of the tokens counted in each second of the run.
		metric(&c, "output_token_throughput_median_tok_s", r.TokenTPSMedian)
		metric(&c, "input_token_throughput_median_tok_s", r.InputTokenTPSMedian)
		if r.TokensSent.Set && r.Successful.Set && r.Successful.V > 0 {
			c.PromptTokens = num{V: r.TokensSent.V / r.Successful.V, Set: true}.int()
			inputContext(&c, r.TokensSent.V/r.Successful.V)
		}
		if po := cfg.PromptOptions; po != nil && po.NumTokens.Set && po.NumTokens.V > 0 {
			inputContext(&c, po.NumTokens.V)
		}
		m.Measurements = append(m.Measurements, c)
	}
	if len(m.Measurements) == 0 {
		return nil, errorf(name, keyLine(b, "results", 1), "inference-benchmarker results with no benchmark but the warm-up")
	}
	if err := checkPeerCells(name, m.Measurements); err != nil {
		return nil, err
	}
	return m, nil
}

// firstMap returns m, or else the figures of alt that are set (nil when
// none is).
func firstMap(m, alt map[string]num) map[string]num {
	if len(m) > 0 {
		return m
	}
	out := map[string]num{}
	for k, v := range alt {
		if v.Set {
			out[k] = v
		}
	}
	return out
}
