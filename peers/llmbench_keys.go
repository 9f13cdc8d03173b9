package peers

import (
	"encoding/json"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"

	"speedmatrix/schema"
)

// llmBenchCellKeys are the keys of a results[] entry that llmBenchRow
// reads into columns (or, for strings and flags, into the status).
var llmBenchCellKeys = []string{
	"concurrency", "context_tokens", "aggregate_tps", "per_request_avg_tps", "ttft_avg", "ttft_p50", "ttft_p99",
	"inter_token_latency_p50", "total_tokens", "wall_time", "measurement_seconds", "num_completed",
	"completed_request_count", "num_errors", "server_gen_throughput", "server_spec_accept_rate",
	"avg_running_reqs", "effective_concurrency", "input_seq_len_avg",
}

// llmBenchFamily maps the latency keys of llm_decode_bench 0.4 and later
// (seconds, without a unit suffix) to the column families of the same
// formula: ttft_* → ttft, tbt_* and inter_token_latency_* (per request
// (t_last − t_first)/(tokens − 1)) → tbt, chunk_gap_* and 0.6's
// chunk_inter_token_latency_* (gaps between streamed chunks) → chunk_gap,
// e2e_latency_*, e2e_* and 0.6's request_latency_* → e2e. A key may name
// its unit (_ms, _s, _seconds); without one it is in seconds, as the
// tool's ttft_p50 is.
var llmBenchFamily = regexp.MustCompile(`^(ttft|tbt|inter_token_latency|chunk_gap|chunk_inter_token_latency|e2e_latency|e2e|request_latency)_(avg|mean|p50|median|p90|p99)(_ms|_s|_seconds)?$`)

// llmBenchLatencyKey matches other keys that hold a duration in seconds
// without saying so (ttft_p95, chunk_gap_max, e2e_latency_std, 0.6's
// time_to_second_token_p50 and warmup_duration …): they are kept in extra
// in milliseconds, named with the unit.
var llmBenchLatencyKey = regexp.MustCompile(`^(ttft|tbt|itl|inter_token_latency|chunk_gap|chunk_inter_token_latency|e2e_latency|e2e|latency|request_latency|tpot|time_to_second_token|ttst)(_|$)|^warmup_duration$`)

// llmBenchRateKey matches keys that are rates although their names begin
// like a latency's (0.6's e2e_output_tps_per_user_p50 is tokens per
// second, not seconds): they are kept as they are.
var llmBenchRateKey = regexp.MustCompile(`(^|_)(tps|tok_s|tokens_per_s|throughput)(_|$)`)

// llmBenchPlaceholder reports whether a latency of a family that needs
// completed requests (e2e) is 0: 0.6 writes request_latency_* = 0.0 when
// no request of the cell completed, which is no measurement.
func llmBenchPlaceholder(family string, n num) bool {
	return (family == "e2e" || family == "e2e_latency" || family == "request_latency") && n.V == 0
}

// llmBenchUnitSuffix matches a key that names its unit already.
var llmBenchUnitSuffix = regexp.MustCompile(`_(ms|s|sec|seconds|us|ns)$`)

// llmBenchAggregate reads what an aggregate of several iterations writes
// instead of a single run's figures: each key as <key>_mean beside
// <key>_stdev (aggregate_tps_mean, ttft_p50_mean …). The means stand for
// the keys that are absent; the standard deviations and the iteration
// count go to extra with the rest. It reports whether the cell was such
// an aggregate.
func llmBenchAggregate(raw map[string]json.RawMessage) bool {
	agg := false
	for _, k := range slices.Sorted(maps.Keys(raw)) {
		base, ok := strings.CutSuffix(k, "_mean")
		if !ok || !slices.Contains(llmBenchCellKeys, base) && !llmBenchFamily.MatchString(base) {
			continue
		}
		if _, has := raw[base]; !has {
			raw[base] = raw[k]
			delete(raw, k)
			agg = true
		}
	}
	return agg
}

// llmBenchExtras fills the columns of the latency families and keeps
// every other numeric key of a results[] entry in extra: nothing the tool
// measured is dropped (0.4.x writes about thirty per cell). Durations in
// seconds without a unit land in milliseconds named <key>_ms.
func llmBenchExtras(row *schema.Measurement, raw map[string]json.RawMessage) {
	cols := map[string][4]**float64{
		"ttft":                      {&row.TTFTMeanMs, &row.TTFTP50Ms, &row.TTFTP90Ms, &row.TTFTP99Ms},
		"tbt":                       {&row.TBTMeanMs, &row.TBTP50Ms, &row.TBTP90Ms, &row.TBTP99Ms},
		"inter_token_latency":       {&row.TBTMeanMs, &row.TBTP50Ms, &row.TBTP90Ms, &row.TBTP99Ms},
		"chunk_gap":                 {&row.ChunkGapMeanMs, &row.ChunkGapP50Ms, &row.ChunkGapP90Ms, &row.ChunkGapP99Ms},
		"chunk_inter_token_latency": {&row.ChunkGapMeanMs, &row.ChunkGapP50Ms, &row.ChunkGapP90Ms, &row.ChunkGapP99Ms},
		"e2e_latency":               {&row.E2EMeanMs, &row.E2EP50Ms, &row.E2EP90Ms, &row.E2EP99Ms},
		"e2e":                       {&row.E2EMeanMs, &row.E2EP50Ms, &row.E2EP90Ms, &row.E2EP99Ms},
		"request_latency":           {&row.E2EMeanMs, &row.E2EP50Ms, &row.E2EP90Ms, &row.E2EP99Ms},
	}
	stat := map[string]int{"avg": 0, "mean": 0, "p50": 1, "median": 1, "p90": 2, "p99": 3}
	for _, k := range slices.Sorted(maps.Keys(raw)) {
		if slices.Contains(llmBenchCellKeys, k) {
			continue
		}
		v := raw[k]
		if llmBenchNested(row, k, v) {
			continue
		}
		if len(v) == 0 || v[0] == '"' || v[0] == '[' || v[0] == '{' || v[0] == 't' || v[0] == 'f' || v[0] == 'n' {
			continue // strings, lists of samples, objects, flags, null
		}
		var n num
		if json.Unmarshal(v, &n) != nil || n.ptr() == nil {
			continue
		}
		if m := llmBenchFamily.FindStringSubmatch(k); m != nil && !llmBenchPlaceholder(m[1], n) {
			if dst := cols[m[1]][stat[m[2]]]; *dst == nil {
				*dst = n.scaled(1000)
				if m[3] == "_ms" {
					*dst = n.ptr()
				}
				continue
			}
		}
		switch {
		case llmBenchLatencyKey.MatchString(k) && !llmBenchRateKey.MatchString(k) && !llmBenchUnitSuffix.MatchString(k) && !strings.HasSuffix(k, "_count"):
			metric(row, k+"_ms", num{V: n.V * 1000, Set: true})
		default:
			metric(row, k, n)
		}
	}
}

// llmBenchNested keeps the figures 0.6 nests in a cell: the hardware
// monitor's summary of the cell (hardware_summary: power, temperatures,
// utilisation, VRAM, PCIe, each key naming its unit) as
// hardware_<key>, and the per-draft-position acceptance probabilities
// (server_spec_pos_accept: [p1, p2, …]) as server_spec_pos_accept_<n>.
// It reports whether k was such a key.
func llmBenchNested(row *schema.Measurement, k string, v json.RawMessage) bool {
	switch k {
	case "hardware_summary":
		var hw map[string]num
		if json.Unmarshal(v, &hw) == nil {
			for _, hk := range slices.Sorted(maps.Keys(hw)) {
				name := "hardware_" + hk
				if hk == "duration_seconds" {
					name = "hardware_duration_ms"
					hw[hk] = num{V: hw[hk].V * 1000, Set: hw[hk].Set}
				}
				metric(row, name, hw[hk])
			}
		}
		return true
	case "server_spec_pos_accept":
		var ps []num
		if json.Unmarshal(v, &ps) == nil {
			for i, p := range ps {
				metric(row, fmt.Sprintf("server_spec_pos_accept_%d", i+1), p)
			}
		}
		return true
	}
	return false
}

// llmBenchPrefillRead are the keys of a prefill entry read into columns.
var llmBenchPrefillRead = []string{"ttft_seconds", "tok_per_sec", "prompt_tokens", "samples"}

// llmBenchPrefillExtras keeps the other numbers of a prefill entry in
// extra (0.6: prefill_seconds, client_ttft_seconds, client_tok_per_sec,
// server_validation's figures prefixed server_validation_, the hardware
// summary as hardware_<key>); a key in seconds (_seconds) in milliseconds
// named _ms. prefix names a nested object's figures.
func llmBenchPrefillExtras(row *schema.Measurement, prefix string, raw map[string]json.RawMessage) {
	for _, k := range slices.Sorted(maps.Keys(raw)) {
		v := raw[k]
		if prefix == "" && slices.Contains(llmBenchPrefillRead, k) || llmBenchNested(row, k, v) {
			continue
		}
		if len(v) > 0 && v[0] == '{' {
			var sub map[string]json.RawMessage
			if json.Unmarshal(v, &sub) == nil {
				llmBenchPrefillExtras(row, prefix+k+"_", sub)
			}
			continue
		}
		var n num
		if len(v) == 0 || v[0] == '"' || v[0] == '[' || json.Unmarshal(v, &n) != nil || n.ptr() == nil {
			continue
		}
		if base, ok := strings.CutSuffix(k, "_seconds"); ok {
			metric(row, prefix+base+"_ms", num{V: n.V * 1000, Set: true})
			continue
		}
		metric(row, prefix+k, n)
	}
}

// llmBenchSpecRate keeps server_spec_accept_rate in its column when it is
// the 0–1 fraction the column means; early versions wrote the accepted
// token count there (2,001 … 508,460), which is kept in extra as
// server_spec_accept_rate_raw (the tool's name would be read back into the
// column from a rendered document), with a warning for the run.
func llmBenchSpecRate(m *schema.Matrix, row *schema.Measurement, c llmBenchCell, warned *bool) {
	p := c.ServerSpecAcceptRate.ptr()
	switch {
	case p == nil || *p == 0:
	case *p > 0 && *p <= 1:
		row.ServerSpecAcceptRate = p
	default:
		metric(row, "server_spec_accept_rate_raw", c.ServerSpecAcceptRate)
		if !*warned {
			*warned = true
			addField(&m.Run, "Warnings", "server_spec_accept_rate",
				fmt.Sprintf("%g (line %d) is not a 0–1 fraction (an accepted-token count?): kept in extra, not in the column", *p, row.SourceLine))
		}
	}
}
