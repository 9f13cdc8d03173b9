package peers

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"speedmatrix/schema"
)

// inferencePerfReader recognises a lifecycle report by its load_summary
// beside successes or failures.
var inferencePerfReader = reader{
	format: FormatInferencePerf,
	parse:  one(parseInferencePerf),
	shapes: []shape{{rank: 130, keys: signature{all: []string{"load_summary"}, any: []string{"successes", "failures"}}}},
}

// FormatInferencePerf is the lifecycle report of kubernetes-sigs'
// inference-perf, per stage (stage_<n>_lifecycle_metrics.json) or for
// the whole run (summary_lifecycle_metrics.json).
const FormatInferencePerf = "inference-perf"

// inferencePerfReport is one lifecycle metrics report: the load sent, the
// successful requests' latency distributions (seconds), throughput and
// lengths, and the failed requests.
type inferencePerfReport struct {
	BenchmarkTime num `json:"benchmark_time_seconds"`
	Load          struct {
		Count         num            `json:"count"`
		ScheduleDelay map[string]num `json:"schedule_delay"`
		SendDuration  num            `json:"send_duration"`
		RequestedRate num            `json:"requested_rate"`
		AchievedRate  num            `json:"achieved_rate"`
		Concurrency   num            `json:"concurrency"`
	} `json:"load_summary"`
	Successes struct {
		Count      num                       `json:"count"`
		Latency    map[string]map[string]num `json:"latency"`
		Throughput map[string]num            `json:"throughput"`
		PromptLen  map[string]num            `json:"prompt_len"`
		OutputLen  map[string]num            `json:"output_len"`
		// PromptTokens and OutputTokens (2026) are the server-reported
		// counts: total, cached/uncached and the distribution.
		PromptTokens map[string]num `json:"prompt_tokens"`
		OutputTokens map[string]num `json:"output_tokens"`
	} `json:"successes"`
	Failures struct {
		Count          num            `json:"count"`
		RequestLatency map[string]num `json:"request_latency"`
		PromptLen      map[string]num `json:"prompt_len"`
	} `json:"failures"`
}

// inferencePerfNames maps inference-perf's latency metrics to the AIPerf
// metric of the same formula (aiperfCell puts those in columns):
// time_per_output_token, per request (e2e − ttft)/(tokens − 1) → tbt;
// inter_token_latency, the gaps between streamed chunks → chunk_gap;
// request_latency → e2e. normalized_time_per_output_token (e2e / output
// tokens) stays in extra under its own name.
var inferencePerfNames = map[string]string{
	"time_per_output_token": "inter_token_latency",
	"inter_token_latency":   "inter_chunk_latency",
}

// inferencePerfStage reads the stage number from the report's file name.
var inferencePerfStage = regexp.MustCompile(`stage_(-?[0-9]+)_`)

// parseInferencePerf reads one lifecycle metrics report into a serve
// cell: requested_rate → request_rate; throughput output_tokens_per_sec →
// total_tok_s, input_tokens_per_sec → input_tok_s, requests_per_sec →
// request_throughput; successes/failures count → completed/errored;
// prompt_len mean → prompt_tokens and the context; every other figure
// (schedule delay, achieved rate, p10, min, max…) → extra, durations in
// milliseconds.
func parseInferencePerf(b []byte, name string) (*schema.Matrix, error) {
	var r inferencePerfReport
	if err := json.Unmarshal(sanitizeJSON(b), &r); err != nil {
		return nil, jsonError(name, b, 1, err)
	}
	prom, serverITL := inferencePerfPrometheus(b, &r)
	stats := map[string]*aiperfStats{}
	if serverITL != nil {
		stats["server_inter_token_latency"] = statsBlock("s", serverITL)
	}
	for k, st := range r.Successes.Latency {
		if long, ok := inferencePerfNames[k]; ok {
			k = long
		}
		stats[k] = statsBlock("s", st)
	}
	prompt := r.Successes.PromptLen
	if len(prompt) == 0 {
		prompt = r.Successes.PromptTokens
	}
	stats["input_sequence_length"] = statsBlock("", prompt)
	stats["output_sequence_length"] = statsBlock("", r.Successes.OutputLen)
	stats["schedule_delay"] = statsBlock("s", r.Load.ScheduleDelay)
	stats["failed_request_latency"] = statsBlock("s", r.Failures.RequestLatency)
	stats["failed_prompt_len"] = statsBlock("", r.Failures.PromptLen)
	tp := r.Successes.Throughput
	for k, v := range map[string]num{
		"output_token_throughput": tp["output_tokens_per_sec"],
		"total_token_throughput":  tp["total_tokens_per_sec"], "request_throughput": tp["requests_per_sec"],
		"request_count": r.Successes.Count, "error_request_count": r.Failures.Count,
		"requests_sent": r.Load.Count, "achieved_rate": r.Load.AchievedRate,
	} {
		stats[k] = statsBlock("", map[string]num{"mean": v})
	}
	stats["send_duration"] = statsBlock("s", map[string]num{"mean": r.Load.SendDuration})
	for k, s := range stats {
		if len(s.Stat) == 0 {
			delete(stats, k)
		}
	}
	var conc *int32
	if r.Load.Concurrency.Set {
		conc = i32(r.Load.Concurrency)
	}
	// A requested rate of 0 or below is no rate: inference-perf's replay
	// load generator records its stage at rate −1. It is kept as it is,
	// with a warning, and the cell has no rate.
	rate, badRate := r.Load.RequestedRate.ptr(), false
	if rate != nil && *rate <= 0 {
		rate, badRate = nil, true
	}
	c, err := aiperfCell(name, stats, conc, rate, true, keyLine(b, "successes", 1))
	if err != nil {
		return nil, err
	}
	if badRate {
		metric(&c, "requested_rate_raw", r.Load.RequestedRate)
	}
	c.InputTokS = tp["input_tokens_per_sec"].ptr()
	c.MeasuredS = r.BenchmarkTime.ptr()
	c.OutputTokens = r.Successes.OutputTokens["total"].int()
	c.InputTokensTotal = r.Successes.PromptTokens["total"].int()
	if err := inferencePerfRest(&c, b, len(r.Successes.PromptLen) == 0, prom); err != nil {
		return nil, jsonError(name, b, 1, err)
	}
	m := peerMatrix("inference-perf", "")
	m.Run.SourceFormat = FormatInferencePerf
	m.Run.Title = "inference-perf: model not recorded in the report"
	base := filepath.Base(name)
	if st := inferencePerfStage.FindStringSubmatch(base); st != nil {
		m.Run.Title += " (stage " + st[1] + ")"
		addField(&m.Run, "Run", "Stage", st[1])
	} else if strings.HasPrefix(base, "summary") {
		m.Run.Title += " (summary of all stages)"
	}
	if prom {
		m.Run.Title += ", the model server's Prometheus metrics"
		addField(&m.Run, "Run", "Metrics", "model server (Prometheus), not the client's request lifecycle")
	}
	if badRate {
		addField(&m.Run, "Warnings", "requested_rate", fmt.Sprintf("%g is no request rate (a replay stage's −1?): kept in extra as requested_rate_raw, the cell has no rate", r.Load.RequestedRate.V))
	}
	m.Measurements = []schema.Measurement{c}
	return m, nil
}

// inferencePerfRead are the parts of a lifecycle report parseInferencePerf
// reads into columns or the AIPerf-named extras, by path.
var inferencePerfRead = regexp.MustCompile(`^(benchmark_time_seconds` +
	`|load_summary/(count|schedule_delay/.*|send_duration|requested_rate|achieved_rate|concurrency)` +
	`|successes/(count|latency/.*|throughput/(input|output|total)_tokens_per_sec|throughput/requests_per_sec|prompt_len/.*|output_len/.*|output_tokens/total|prompt_tokens/total)` +
	`|failures/(count|request_latency/.*|prompt_len/.*))$`)

// inferencePerfRest keeps every other number of the report in extra, so
// that the figures of newer versions (2026: prompt_tokens and
// output_tokens totals and cached counts, goodput_metrics, retries,
// request_size_bytes, image/video/audio, failures by label …) are not
// dropped: named by their path without "successes" ("prompt_tokens_cached",
// "retries_attempts", "failures_by_label_429_rate_limit_count"), mean →
// avg and median → p50; a value under a name in seconds ("_sec",
// "_seconds", "wasted_sec/…", audio "seconds") in milliseconds, named
// with _ms. promptTokensRead says prompt_tokens stood in for prompt_len
// (its distribution is then read already).
func inferencePerfRest(c *schema.Measurement, b []byte, promptTokensRead, prom bool) error {
	dec := json.NewDecoder(bytes.NewReader(sanitizeJSON(b)))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return err
	}
	shares := map[string]string{}
	if prom {
		shares = inferencePerfShares(v)
	}
	var walk func(path []string, v any)
	walk = func(path []string, v any) {
		switch x := v.(type) {
		case map[string]any:
			for _, k := range slices.Sorted(maps.Keys(x)) {
				walk(append(slices.Clip(path), k), x[k])
			}
		case json.Number:
			p := strings.Join(path, "/")
			if inferencePerfRead.MatchString(p) || prom && inferencePerfPromRead.MatchString(p) || promptTokensRead && strings.HasPrefix(p, "successes/prompt_tokens/") && !slices.Contains([]string{"total", "cached", "uncached"}, path[len(path)-1]) {
				return
			}
			f, err := x.Float64()
			if err != nil {
				return
			}
			seconds := prom && len(path) > 1 && path[0] == "successes" && inferencePerfPromSeconds.MatchString(path[1])
			if len(path) > 1 && path[0] == "successes" && shares[path[1]] != "" {
				path = append([]string{path[0], shares[path[1]]}, path[2:]...)
			}
			metric(c, inferencePerfName(path, &f, seconds), num{V: f, Set: true})
		}
	}
	walk(nil, v)
	return nil
}

// inferencePerfName names a report figure by its path (see
// inferencePerfRest), converting seconds to milliseconds in place; seconds
// says the value is in seconds whatever its name.
func inferencePerfName(path []string, v *float64, seconds bool) string {
	var parts []string
	for i, p := range path {
		switch {
		case i == 0 && p == "successes":
			continue
		case p == "mean":
			p = "avg"
		case p == "median":
			p = "p50"
		case p == "seconds":
			seconds = true
			continue
		}
		if strings.HasSuffix(p, "_per_sec") {
			// a rate (images_per_sec), not a duration
		} else if q, ok := strings.CutSuffix(p, "_seconds"); ok {
			p, seconds = q, true
		} else if q, ok := strings.CutSuffix(p, "_sec"); ok {
			p, seconds = q, true
		} else if q, ok := strings.CutSuffix(p, "_sec_total"); ok {
			p, seconds = q+"_total", true
		}
		parts = append(parts, metricKey(p))
	}
	name := strings.Join(parts, "_")
	if seconds {
		*v *= 1000
		name += "_ms"
	}
	return name
}

// statsBlock turns a tool's {stat: value} map into an AIPerf metric block
// of the given unit (mean → avg, median → p50, stddev → std), so that
// aiperfCell maps it.
func statsBlock(unit string, st map[string]num) *aiperfStats {
	s := &aiperfStats{Unit: unit, Stat: map[string]num{}, used: map[string]bool{}}
	for stat, v := range st {
		if !v.Set {
			continue
		}
		switch stat {
		case "mean":
			stat = "avg"
		case "median":
			stat = "p50"
		case "stddev", "std_dev":
			stat = "std"
		}
		// p0.1 and p99.9 (inference-perf) as p0_1 and p99_9: a name
		// keeps no "." (docs/schema.md), so that it reads back the same
		// from a rendered document.
		stat = strings.ReplaceAll(stat, ".", "_")
		s.Stat[stat] = v
	}
	return s
}
