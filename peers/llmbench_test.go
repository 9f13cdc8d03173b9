package peers

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"speedmatrix/schema"
)

// TestLLMBenchFiles reads the fixtures of llm-inference-bench's JSON under llm-inference-bench/ and checks
// their format, model, cells and figures.
func TestLLMBenchFiles(t *testing.T) {
	checkFiles(t, []fileCase{
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
	})
}

// TestLLMBench0429Settings reads an llm_decode_bench.py 0.4.29 file in
// the shape of a real one (sjug/rtx6kpro), with 0.7's loop_detection
// settings object: the timestamp with its zone offset, the engine version
// from the event log, the harness's run_metadata and the metadata
// settings kept; the cell's figures against the file.
func TestLLMBench0429Settings(t *testing.T) {
	m, err := readPeer(t, "llm-inference-bench/v0.4.29-run-metadata.json")
	if err != nil {
		t.Fatal(err)
	}
	if m.Run.StartedAt == nil || !m.Run.StartedAt.Equal(time.Date(2026, 10, 1, 14, 16, 2, 125e6, time.UTC)) {
		t.Errorf("started at %v, want 2026-10-01T14:16:02.125Z", m.Run.StartedAt)
	}
	if m.Run.Engine != "vllm" || m.Run.EngineVersion != "0.11.2rc1.dev7+gabc1234" || m.Run.BenchVersion != "0.4.29" {
		t.Errorf("engine %q %q, tool version %q", m.Run.Engine, m.Run.EngineVersion, m.Run.BenchVersion)
	}
	checkMeta(t, m, []metaCheck{
		{"run_metadata", "variant_id", "baseline-c2"},
		{"run_metadata", "repetition", "2"},
		{"Settings", "decode_mode", "duration"},
		{"Settings", "prefill_mode", "skipped"},
		{"Settings", "ignore_eos", "true"},
		{"Settings", "decode_warmup_seconds", "3.0"},
		{"Settings", "loop_detection.confirmed_min_chars", "4096"},
		{"Settings", "loop_detection.enabled", "true"},
		{"Cells", "aggregate_source", "openai_continuous_usage"},
		{"Cells", "ready_reason", "running_reqs=1/1, queue_reqs=0, active_streams=1/1, stable=3.0s"},
	})
	c := &m.Measurements[0]
	checkFields(t, []fieldCheck{
		{"concurrency", fp(c.Concurrency), 2},
		{"aggregate tok/s", c.TotalTokS, 98.5},
		{"per request", c.PerRequestTokS, 49.25},
		{"ttft p50 s to ms", c.TTFTMs, 60},
		{"ttft p99", c.TTFTP99Ms, 75},
		{"tbt = inter token latency p50", c.TBTMs, 20},
		{"chunk gap p90", c.ChunkGapP90Ms, 57.5},
		{"completed: none finished in the window", fp(c.CompletedRequests), 0},
		{"streams kept", extra(c, "num_completed"), 2},
		{"spec acceptance", c.ServerSpecAcceptRate, 0.5725},
		{"acceptance position 2", extra(c, "server_spec_pos_accept_2"), 0.57},
		{"steps per second", extra(c, "server_steps_per_s"), 36.25},
		{"ttst p99 in ms", extra(c, "time_to_second_token_p99_ms"), 72.5},
		{"measured s", c.MeasuredS, 30},
		{"flag false", extra(c, "capacity_limited_flag"), 0},
		{"flag false", extra(c, "warmup_timed_out_flag"), 0},
	})
}

func TestLLMBenchJSONStatuses(t *testing.T) {
	m, err := readPeer(t, "llm-inference-bench/seed000-excerpt-v0.7.json")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]schema.Status{"8K|1": schema.StatusValid, "8K|16": schema.StatusLooped, "8K|128": schema.StatusValid,
		"123K|1": schema.StatusValid, "123K|16": schema.StatusValid, "123K|128": schema.StatusOverCapacity}
	for _, c := range m.Measurements {
		if c.Phase != schema.PhaseDecode {
			continue
		}
		k := c.ContextLabel + "|" + itoa32(c.Concurrency)
		if c.Status != want[k] {
			t.Errorf("%s: status %s, want %s", k, c.Status, want[k])
		}
		delete(want, k)
	}
	if len(want) != 0 {
		t.Errorf("cells missing: %v", want)
	}

	// An old file leaves skipped cells out; they are recomputed from the
	// recorded budget: 64 × (0 + 8192) = 524288 > 400000, and 32 ×
	// (16384 + 8192) = 786432 > 400000, 64 × … as well; 32 × 8192 = 262144 fits.
	old, err := readPeer(t, "llm-inference-bench/old-no-version.json")
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]schema.Status{}
	for _, c := range old.Measurements {
		got[c.ContextLabel+"|"+itoa32(c.Concurrency)] = c.Status
	}
	for k, st := range map[string]schema.Status{"0|1": schema.StatusValid, "0|32": schema.StatusValid, "0|64": schema.StatusOverCapacity,
		"16K|1": schema.StatusValid, "16K|32": schema.StatusOverCapacity, "16K|64": schema.StatusOverCapacity} {
		if got[k] != st {
			t.Errorf("old file %s: status %q, want %q", k, got[k], st)
		}
	}
	if old.Run.BenchVersion != "" || old.Run.KVBudgetTokens == nil || *old.Run.KVBudgetTokens != 400000 {
		t.Errorf("old file run: version %q budget %v", old.Run.BenchVersion, old.Run.KVBudgetTokens)
	}
}

// TestLLMBenchMeanOnlyTTFT reads llm_decode_bench cells that give the
// time to first token as a mean only (ttft_avg, no ttft_p50): the mean
// goes to ttft_mean_ms and ttft_ms, documented as the median, stays
// empty; a cell with both keeps each in its column.
func TestLLMBenchMeanOnlyTTFT(t *testing.T) {
	m, err := readPeer(t, "llm-inference-bench/mean-only-ttft.json")
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Measurements) != 2 {
		t.Fatalf("%d cells, want 2", len(m.Measurements))
	}
	only, both := m.Measurements[0], m.Measurements[1]
	if only.TTFTMs != nil {
		t.Errorf("mean-only cell: ttft_ms %g, want empty (it is the median)", *only.TTFTMs)
	}
	if only.TTFTMeanMs == nil || *only.TTFTMeanMs != 48 {
		t.Errorf("mean-only cell: ttft_mean_ms %v, want 48", only.TTFTMeanMs)
	}
	if both.TTFTMs == nil || *both.TTFTMs != 110 || both.TTFTMeanMs == nil || *both.TTFTMeanMs != 125 {
		t.Errorf("cell with both: ttft_ms %v, ttft_mean_ms %v, want 110 and 125", both.TTFTMs, both.TTFTMeanMs)
	}
}
