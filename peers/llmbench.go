package peers

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"speedmatrix/schema"
)

// llmBenchFile is the JSON written by llm_decode_bench.py, the tool behind
// the seed documents (llm-inference-bench). Older files lack
// metadata.version and the prefill map, and leave skipped cells out.
type llmBenchFile struct {
	SchemaVersion num                        `json:"schema_version"`
	Metadata      llmBenchMeta               `json:"metadata"`
	Prefill       map[string]llmBenchPrefill `json:"prefill"`
	Results       []llmBenchCell             `json:"results"`
	SummaryTable  map[string]map[string]num  `json:"summary_table"`
	LaunchConfig  json.RawMessage            `json:"target_launch_config"`
	// HardwareRunSummary is 0.6's hardware monitor over the whole run
	// (power, temperatures, VRAM, PCIe; each key names its unit).
	HardwareRunSummary map[string]num `json:"hardware_run_summary"`
}

// llmBenchMeta is the metadata object of an llm-inference-bench JSON file.
type llmBenchMeta struct {
	Version           string `json:"version"`
	Engine            string `json:"engine"`
	Model             string `json:"model"`
	Server            string `json:"server"`
	Timestamp         string `json:"timestamp"`
	DurationPerTest   num    `json:"duration_per_test"`
	MaxTokens         num    `json:"max_tokens"`
	MaxTotalTokens    num    `json:"max_total_tokens"`
	KVBudget          num    `json:"kv_budget"`
	ConcurrencyLevels []int  `json:"concurrency_levels"`
	ContextLengths    []int  `json:"context_lengths"`
	GPU               string `json:"gpu"`
	Quantization      string `json:"quantization"`
	EngineVersion     string `json:"engine_version"`
}

// llmBenchPrefill is one context of the prefill map.
type llmBenchPrefill struct {
	TTFTSeconds  num `json:"ttft_seconds"`
	TokPerSec    num `json:"tok_per_sec"`
	PromptTokens num `json:"prompt_tokens"`
	Samples      num `json:"samples"`
}

// llmBenchCell is one decode cell (the tool's CellResult).
type llmBenchCell struct {
	Concurrency          num    `json:"concurrency"`
	ContextTokens        num    `json:"context_tokens"`
	AggregateTPS         num    `json:"aggregate_tps"`
	PerRequestAvgTPS     num    `json:"per_request_avg_tps"`
	TTFTAvg              num    `json:"ttft_avg"`
	TTFTP50              num    `json:"ttft_p50"`
	TTFTP99              num    `json:"ttft_p99"`
	ITLP50               num    `json:"inter_token_latency_p50"`
	TotalTokens          num    `json:"total_tokens"`
	WallTime             num    `json:"wall_time"`
	MeasurementSeconds   num    `json:"measurement_seconds"`
	NumCompleted         num    `json:"num_completed"`
	CompletedRequests    num    `json:"completed_request_count"`
	NumErrors            num    `json:"num_errors"`
	ServerGenThroughput  num    `json:"server_gen_throughput"`
	ServerSpecAcceptRate num    `json:"server_spec_accept_rate"`
	AvgRunningReqs       num    `json:"avg_running_reqs"`
	EffectiveConcurrency num    `json:"effective_concurrency"`
	InputSeqLenAvg       num    `json:"input_seq_len_avg"`
	FailureReason        string `json:"failure_reason"`
	LoopDetected         *bool  `json:"loop_detected"`
	CapacityLimited      *bool  `json:"capacity_limited"`
}

// Sentinels llm-inference-bench writes into aggregate_tps.
const (
	llmBenchSkippedKV   = -1
	llmBenchSkippedUser = -2
	llmBenchLooped      = -3
	llmBenchError       = -4
)

// FormatLLMBenchJSON is the JSON of llm_decode_bench.py
// (llm-inference-bench), the tool behind the seed documents.
const FormatLLMBenchJSON = "llm-inference-bench-json"

// llmBenchReader recognises its JSON by results beside summary_table,
// prefill or metadata.
var llmBenchReader = reader{
	format: FormatLLMBenchJSON,
	parse:  one(parseLLMBenchJSON),
	shapes: []shape{{rank: 100, keys: signature{all: []string{"results"}, any: []string{"summary_table", "prefill", "metadata"}}}},
}

// parseLLMBenchJSON reads an llm-inference-bench JSON result so that it
// lands as the same figures as the document the tool prints for the run:
// prefill rows from the prefill map (tok_per_sec → total_tok_s,
// ttft_seconds × 1000 → ttft_ms), decode rows from results[]
// (aggregate_tps → total_tok_s, per_request_avg_tps → per_request_tok_s,
// ttft_p50 × 1000 → ttft_ms (ttft_avg → ttft_mean_ms only, never the
// median column), inter_token_latency_p50 × 1000 → tbt_ms,
// effective_concurrency or avg_running_reqs → avg_active_requests,
// num_completed → completed_requests, total_tokens → output_tokens,
// measurement_seconds → measured_s). Negative aggregate_tps are statuses:
// −1 over capacity, −2 skipped by the user, −3 looped, −4 error. Cells of
// the grid missing from results[] are recomputed as over capacity when
// the file records the KV budget (C × (context + max_tokens) > budget).
func parseLLMBenchJSON(b []byte, name string) (*schema.Matrix, error) {
	b = sanitizeJSON(b)
	var f llmBenchFile
	dec := json.NewDecoder(bytes.NewReader(b))
	if err := dec.Decode(&f); err != nil {
		return nil, jsonError(name, b, 1, err)
	}
	md := f.Metadata
	m := peerMatrix("llm-inference-bench", strings.TrimPrefix(md.Version, "v"))
	m.Run.SourceFormat = FormatLLMBenchJSON
	m.Run.Model = md.Model
	m.Run.ServedModel = md.Model
	m.Run.Engine = md.Engine
	m.Run.EngineVersion = md.EngineVersion
	m.Run.GPU = md.GPU
	m.Run.Quantization = md.Quantization
	m.Run.ServerURL = md.Server
	m.Run.MeasureSeconds = md.DurationPerTest.ptr()
	m.Run.MaxOutputTokens = md.MaxTokens.int()
	budget := md.KVBudget
	if !budget.Set || budget.V <= 0 {
		budget = md.MaxTotalTokens
	}
	if budget.Set && budget.V > 0 {
		m.Run.KVBudgetTokens = budget.int()
	}
	// 0.4.x and later write the host's zone offset ("…-04:00").
	for _, layout := range []string{"2006-01-02T15:04:05.999999", time.RFC3339Nano} {
		if t, err := time.Parse(layout, md.Timestamp); err == nil {
			t = t.UTC()
			m.Run.StartedAt = &t
			break
		}
	}
	m.Run.Title = "llm-inference-bench: " + firstNonEmpty(md.Model, "model not recorded")
	addField(&m.Run, "Run", "Timestamp", md.Timestamp)
	addField(&m.Run, "Run", "Server", md.Server)
	if f.SchemaVersion.Set {
		addField(&m.Run, "Run", "Result schema version", strconv.FormatFloat(f.SchemaVersion.V, 'f', -1, 64))
	}
	for _, k := range slices.Sorted(maps.Keys(f.HardwareRunSummary)) {
		if v := f.HardwareRunSummary[k]; v.Set {
			addField(&m.Run, "Hardware", k, strconv.FormatFloat(v.V, 'f', -1, 64))
		}
	}
	llmBenchSettings(&m.Run, b)
	if len(f.LaunchConfig) > 0 && string(f.LaunchConfig) != "null" {
		addField(&m.Run, "Run", "Target launch config", string(f.LaunchConfig))
	}

	// Prefill, in context order, each also as raw keys (0.6 adds the
	// client's and the server's figures, a hardware summary).
	var rawPrefill struct {
		Prefill map[string]map[string]json.RawMessage `json:"prefill"`
	}
	_ = json.Unmarshal(b, &rawPrefill)
	ctxs := make([]string, 0, len(f.Prefill))
	for k := range f.Prefill {
		ctxs = append(ctxs, k)
	}
	sort.Slice(ctxs, func(i, j int) bool { return atoiOr(ctxs[i]) < atoiOr(ctxs[j]) })
	for _, k := range ctxs {
		p := f.Prefill[k]
		tokens, err := strconv.ParseInt(k, 10, 64)
		if err != nil {
			return nil, errorf(name, keyLine(b, k, 1), "prefill context %q is not a token count", k)
		}
		row := schema.Measurement{
			Phase: schema.PhasePrefill, ContextLabel: tokenLabel(tokens), ContextTokens: &tokens,
			Concurrency: schema.I32(1), Status: schema.StatusValid,
			TotalTokS: p.TokPerSec.ptr(), TTFTMs: p.TTFTSeconds.scaled(1000),
			PromptTokens: p.PromptTokens.int(), SourceLine: int64(keyLine(b, k, 1)),
		}
		row.CompletedRequests = schema.I64(1)
		if p.Samples.Set {
			row.CompletedRequests = p.Samples.int()
		}
		llmBenchPrefillExtras(&row, "", rawPrefill.Prefill[k])
		m.Measurements = append(m.Measurements, row)
	}

	// Decode cells, each also as raw keys: every number is kept.
	var raws struct {
		Results []map[string]json.RawMessage `json:"results"`
	}
	if err := json.Unmarshal(b, &raws); err != nil || len(raws.Results) != len(f.Results) {
		return nil, errorf(name, keyLine(b, "results", 1), "results: not a list of objects")
	}
	seen := map[[2]int64]bool{}
	warned := false
	for i := range f.Results {
		raw := raws.Results[i]
		aggregate := llmBenchAggregate(raw)
		c := f.Results[i]
		if aggregate {
			// The means stand for the keys; read the cell again.
			re, _ := json.Marshal(raw)
			c = llmBenchCell{}
			if err := json.Unmarshal(re, &c); err != nil {
				return nil, errorf(name, resultLine(b, i), "results[%d]: %v", i, err)
			}
		}
		if !c.Concurrency.Set || !c.ContextTokens.Set {
			return nil, errorf(name, resultLine(b, i), "results[%d]: concurrency and context_tokens are required", i)
		}
		if i32(c.Concurrency) == nil || *i32(c.Concurrency) < 1 || c.ContextTokens.int() == nil || *c.ContextTokens.int() < 0 {
			return nil, errorf(name, resultLine(b, i), "results[%d]: concurrency %g and context_tokens %g: want a positive concurrency and a context of 0 or more tokens", i, c.Concurrency.V, c.ContextTokens.V)
		}
		row := llmBenchRow(c)
		row.SourceLine = int64(resultLine(b, i))
		if row.Status == schema.StatusValid {
			llmBenchExtras(&row, raw)
			llmBenchCellNotes(m, &row, raw)
			llmBenchSpecRate(m, &row, c, &warned)
			if row.TotalTokS == nil && row.PerRequestTokS == nil && row.TTFTMs == nil && row.TTFTMeanMs == nil && row.TBTMs == nil {
				return nil, errorf(name, int(row.SourceLine), "results[%d]: a cell without aggregate_tps, per_request_avg_tps, ttft or inter-token latency (keys: %s)",
					i, strings.Join(slices.Sorted(maps.Keys(raw)), ", "))
			}
		}
		key := [2]int64{*row.ContextTokens, int64(*row.Concurrency)}
		if seen[key] {
			return nil, errorf(name, int(row.SourceLine), "results[%d]: duplicate cell context %d × concurrency %d", i, key[0], key[1])
		}
		seen[key] = true
		// The summary table repeats aggregate_tps; it must agree.
		if s, ok := f.SummaryTable[strconv.FormatInt(key[0], 10)][strconv.FormatInt(key[1], 10)]; ok && s.Set && row.TotalTokS != nil && !sameFigure(s.V, *row.TotalTokS) {
			return nil, errorf(name, int(row.SourceLine), "results[%d]: aggregate_tps %g disagrees with summary_table[%d][%d] = %g at line %d",
				i, *row.TotalTokS, key[0], key[1], s.V, keyLine(b, "summary_table", 1))
		}
		m.Measurements = append(m.Measurements, row)
	}
	// Cells of the grid the file left out (older versions drop skipped
	// cells): over capacity when the recorded budget says so.
	if budget.Set && budget.V > 0 && md.MaxTokens.Set {
		for _, ctx := range md.ContextLengths {
			for _, conc := range md.ConcurrencyLevels {
				key := [2]int64{int64(ctx), int64(conc)}
				if seen[key] || float64(conc)*(float64(ctx)+md.MaxTokens.V) <= budget.V {
					continue
				}
				t := int64(ctx)
				m.Measurements = append(m.Measurements, schema.Measurement{
					Phase: schema.PhaseDecode, ContextLabel: tokenLabel(t), ContextTokens: &t,
					Concurrency: schema.I32(int32(conc)), Status: schema.StatusOverCapacity,
					StatusReason: fmt.Sprintf("recomputed: %d × (%d + %d) > KV budget %d", conc, ctx, int64(md.MaxTokens.V), int64(budget.V)),
					SourceLine:   int64(keyLine(b, "concurrency_levels", 1)),
				})
				seen[key] = true
			}
		}
	}
	if len(m.Measurements) == 0 {
		return nil, errorf(name, 1, "llm-inference-bench result with no prefill and no results")
	}
	sortMeasurements(m.Measurements)
	llmBenchEnergy(m, f.HardwareRunSummary)
	foldCellNotes(&m.Run)
	return m, nil
}

// llmBenchRow maps one results[] entry to a decode row.
func llmBenchRow(c llmBenchCell) schema.Measurement {
	ctx := c.ContextTokens.int()
	row := schema.Measurement{
		Phase: schema.PhaseDecode, ContextLabel: tokenLabel(*ctx), ContextTokens: ctx,
		Concurrency: i32(c.Concurrency), Status: schema.StatusValid,
	}
	switch v := c.AggregateTPS; {
	case v.Set && v.V == llmBenchSkippedKV:
		row.Status = schema.StatusOverCapacity
		return row
	case v.Set && v.V == llmBenchSkippedUser:
		row.Status = schema.StatusSkipped
		return row
	case v.Set && v.V == llmBenchLooped || c.LoopDetected != nil && *c.LoopDetected:
		row.Status = schema.StatusLooped
		row.StatusReason = c.FailureReason
		row.CompletedRequests, row.OutputTokens = schema.I64(0), schema.I64(0)
		return row
	case v.Set && v.V == llmBenchError || v.Set && v.V < 0:
		row.Status = schema.StatusError
		row.StatusReason = firstNonEmpty(c.FailureReason, fmt.Sprintf("aggregate_tps %g", v.V))
		row.ErroredRequests = c.NumErrors.int()
		return row
	}
	row.TotalTokS = c.AggregateTPS.ptr()
	row.PerRequestTokS = c.PerRequestAvgTPS.ptr()
	// Note: ttft_ms is the median; a cell with only ttft_avg leaves it
	// empty and gives the mean to ttft_mean_ms alone (it filled ttft_ms
	// before, a mean read as a median).
	row.TTFTMs = c.TTFTP50.scaled(1000)
	row.TTFTP50Ms = c.TTFTP50.scaled(1000)
	row.TTFTMeanMs = c.TTFTAvg.scaled(1000)
	row.TTFTP99Ms = c.TTFTP99.scaled(1000)
	row.TBTMs = c.ITLP50.scaled(1000)
	row.TBTP50Ms = row.TBTMs
	row.AvgActiveRequests = c.EffectiveConcurrency.ptr()
	if row.AvgActiveRequests == nil {
		row.AvgActiveRequests = c.AvgRunningReqs.ptr()
	}
	row.ServerRunningAvg = c.AvgRunningReqs.ptr()
	// Note: from 0.4 on num_completed counts the streams of the cell,
	// completed_request_count the requests that finished inside the
	// window (0 for long outputs): the latter is the column's meaning.
	row.CompletedRequests = c.CompletedRequests.int()
	if row.CompletedRequests == nil {
		row.CompletedRequests = c.NumCompleted.int()
	} else {
		metric(&row, "num_completed", c.NumCompleted)
	}
	row.OutputTokens = c.TotalTokens.int()
	row.MeasuredS = c.MeasurementSeconds.ptr()
	row.ErroredRequests = c.NumErrors.int()
	row.PromptTokens = c.InputSeqLenAvg.int()
	metric(&row, "server_gen_tok_s", c.ServerGenThroughput)
	metric(&row, "wall_time_s", c.WallTime)
	return row
}

// resultLine finds the line of the i-th object of the "results" array by
// counting "concurrency" keys after it; good enough for error messages.
func resultLine(b []byte, i int) int {
	start := bytes.Index(b, []byte(`"results"`))
	if start < 0 {
		return 1
	}
	rest := b[start:]
	off := start
	for n := 0; ; n++ {
		j := bytes.Index(rest, []byte(`"concurrency"`))
		if j < 0 {
			return lineAt(b, int64(start))
		}
		if n == i {
			return lineAt(b, int64(off+j))
		}
		rest = rest[j+1:]
		off += j + 1
	}
}

// sortMeasurements orders rows by phase (prefill first), context tokens
// and concurrency, as the seeds print them.
func sortMeasurements(ms []schema.Measurement) {
	rank := map[schema.Phase]int{schema.PhasePrefill: 0, schema.PhaseDecode: 1, schema.PhaseServe: 2}
	sort.SliceStable(ms, func(i, j int) bool {
		a, b := &ms[i], &ms[j]
		if rank[a.Phase] != rank[b.Phase] {
			return rank[a.Phase] < rank[b.Phase]
		}
		at, bt := int64(-1), int64(-1)
		if a.ContextTokens != nil {
			at = *a.ContextTokens
		}
		if b.ContextTokens != nil {
			bt = *b.ContextTokens
		}
		if at != bt {
			return at < bt
		}
		ac, bc := int32(-1), int32(-1)
		if a.Concurrency != nil {
			ac = *a.Concurrency
		}
		if b.Concurrency != nil {
			bc = *b.Concurrency
		}
		return ac < bc
	})
}

// atoiOr parses s as an integer, or returns a large number to sort last.
func atoiOr(s string) int64 {
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return 1 << 62
	}
	return v
}

// firstNonEmpty returns the first non-empty string.
func firstNonEmpty(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}

// sameFigure reports whether two printed figures agree to 0.05%, the
// rounding the tool applies when it copies one into another table.
func sameFigure(a, b float64) bool {
	d := a - b
	if d < 0 {
		d = -d
	}
	scale := a
	if scale < 0 {
		scale = -scale
	}
	return d <= 0.0005*scale+0.05
}
