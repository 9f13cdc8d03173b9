package peers

import (
	"bytes"
	"encoding/json"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"speedmatrix/schema"
)

// aiperfStats is one metric block of AIPerf's profile_export_aiperf.json
// or GenAI-Perf's profile_export_genai_perf.json (or a row of their CSV
// exports): a unit and statistics by name (avg, min, max, std, sum, p1 …
// p99). get marks a statistic as read; the others go to Extra.
type aiperfStats struct {
	Unit string
	Stat map[string]num
	used map[string]bool
}

// UnmarshalJSON reads a block: "unit" and every numeric statistic.
func (s *aiperfStats) UnmarshalJSON(b []byte) error {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil {
		return err
	}
	s.Stat, s.used = map[string]num{}, map[string]bool{}
	for k, v := range raw {
		if k == "unit" {
			_ = json.Unmarshal(v, &s.Unit)
			continue
		}
		var n num
		if json.Unmarshal(v, &n) == nil && n.Set {
			s.Stat[k] = n
		}
	}
	return nil
}

// get returns a statistic (unset when the block or the statistic is
// absent) and marks it read.
func (s *aiperfStats) get(stat string) num {
	if s == nil {
		return num{}
	}
	s.used[stat] = true
	return s.Stat[stat]
}

// firstAvg returns the average of the first of keys the stats hold,
// marking only that one read (the others stay for Extra).
func firstAvg(stats map[string]*aiperfStats, keys ...string) num {
	for _, k := range keys {
		if s := stats[k]; s != nil {
			if n := s.get("avg"); n.Set {
				return n
			}
		}
	}
	return num{}
}

// skip marks every statistic of the block read without using it.
func (s *aiperfStats) skip() {
	if s != nil {
		for k := range s.Stat {
			s.used[k] = true
		}
	}
}

// Formats of AIPerf's profile export JSON and of GenAI-Perf's, its
// predecessor's, read alike.
const (
	FormatAIPerf    = "aiperf"
	FormatGenAIPerf = "genai-perf"
)

// aiperfStatsKeys are the metrics one of which an AIPerf or GenAI-Perf
// export holds as a statistics block.
var aiperfStatsKeys = []string{"time_to_first_token", "request_throughput", "output_token_throughput"}

// aiperfReader recognises an export by a statistics block (AIPerf 0.1's
// under records, with its header), and an aggregate of a sweep or of
// repeated runs; the sweep's CSV is named and refused (no units or
// percentiles).
var aiperfReader = reader{
	format: FormatAIPerf,
	parse:  one(parseAIPerfJSON),
	shapes: []shape{
		{rank: 30, text: func(t []byte) bool {
			return containsAfter(t, "\n", []byte("Best Configurations")) && bytes.Contains(t, []byte("\nPareto Optimal Points"))
		}, refuse: "AIPerf's sweep aggregate CSV (profile_export_aiperf_sweep.csv): each metric's mean, std, min, max and cv rounded to two decimals, without units or percentiles; ingest profile_export_aiperf_sweep.json beside it"},
		{rank: 160, keys: signature{match: func(keys map[string]json.RawMessage, _ []byte) bool { return isAIPerfAggregate(keys) }}},
		{rank: 170, keys: signature{stats: []string{"records"}, holds: map[string][]string{"records": {`"header"`}}}}, // AIPerf 0.1.x
		{rank: 181, keys: signature{stats: aiperfStatsKeys}},
	},
}

// genAIPerfReader recognises GenAI-Perf's export as AIPerf's whose
// input_config names GenAI-Perf's settings; it is tried first.
var genAIPerfReader = reader{
	format: FormatGenAIPerf,
	parse:  one(parseAIPerfJSON),
	shapes: []shape{{rank: 180, keys: signature{stats: aiperfStatsKeys, holds: map[string][]string{"input_config": {`"genai_perf`, `"service_kind"`}}}}},
}

// parseAIPerfJSON reads AIPerf's profile_export_aiperf.json and
// GenAI-Perf's profile_export_genai_perf.json: top-level metric blocks
// with a unit and statistics, plus input_config. AIPerf and GenAI-Perf
// call (e2e − ttft)/(tokens − 1) "inter_token_latency": it maps to tbt_*;
// "inter_chunk_latency" (gaps between chunks) maps to chunk_gap_*.
// time_to_first_token → ttft_*; request_latency → e2e_*;
// output_token_throughput → total_tok_s; output_token_throughput_per_user
// (p50, else avg) → per_request_tok_s; request_throughput;
// input_sequence_length avg → prompt_tokens; request_count → completed;
// error_request_count → errored. Units other than ms for latencies
// (s, us, ns) are converted.
func parseAIPerfJSON(b []byte, name string) (*schema.Matrix, error) {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil {
		return nil, jsonError(name, b, 1, err)
	}
	if isAIPerfAggregate(raw) {
		return parseAIPerfAggregate(b, name)
	}
	format := FormatAIPerf
	tool := "aiperf"
	if cfg := raw["input_config"]; bytes.Contains(cfg, []byte(`"genai_perf`)) || bytes.Contains(cfg, []byte(`"service_kind"`)) {
		format, tool = FormatGenAIPerf, "genai-perf"
	}
	blocks := raw
	if recs, ok := raw["records"]; ok && isStatsBlock(recs) {
		// AIPerf 0.1.x wraps the metric blocks in "records" and tags
		// some by short names (ttft, ttst).
		if err := json.Unmarshal(recs, &blocks); err != nil {
			return nil, errorf(name, keyLine(b, "records", 1), "records: %v", err)
		}
	}
	stats := map[string]*aiperfStats{}
	for k, v := range blocks {
		if !isStatsBlock(v) {
			continue
		}
		s := &aiperfStats{}
		if err := json.Unmarshal(v, s); err != nil {
			return nil, errorf(name, keyLine(b, k, 1), "%s: %v", k, err)
		}
		if long, ok := aiperfShortTags[k]; ok {
			k = long
		}
		stats[k] = s
	}
	var cfg aiperfConfig
	var ep aiperfEndpoint
	if c, ok := raw["input_config"]; ok {
		if err := json.Unmarshal(c, &cfg); err != nil {
			return nil, errorf(name, keyLine(b, "input_config", 1), "input_config: %v", err)
		}
		// An object in AIPerf and newer GenAI-Perf; older GenAI-Perf puts
		// the endpoint's path there as a string.
		if e := bytes.TrimSpace(cfg.Endpoint); len(e) > 0 && e[0] == '{' {
			if err := json.Unmarshal(e, &ep); err != nil {
				return nil, errorf(name, keyLine(b, "endpoint", 1), "input_config.endpoint: %v", err)
			}
		}
	}
	model := cfg.model(ep)
	conc, rate := cfg.load()
	m := peerMatrix(tool, "")
	m.Run.SourceFormat = format
	m.Run.ModelID, m.Run.Model = model, modelBase(model)
	m.Run.Title = tool + ": " + firstNonEmpty(m.Run.Model, "model not recorded")
	m.Run.ServerURL = firstNonEmpty(ep.URL, cfg.U)
	if m.Run.ServerURL == "" && len(ep.URLs) > 0 {
		m.Run.ServerURL = ep.URLs[0]
	}
	if v, ok := raw["aiperf_version"]; ok {
		_ = json.Unmarshal(v, &m.Run.BenchVersion)
	}
	// AIPerf 0.10 records when the benchmark ran.
	for key, dst := range map[string]**time.Time{"start_time": &m.Run.StartedAt, "end_time": &m.Run.FinishedAt} {
		var s string
		if v, ok := raw[key]; ok && json.Unmarshal(v, &s) == nil && s != "" {
			*dst = vllmDate(s)
		}
	}
	streaming := true
	for _, s := range []*bool{ep.Streaming, cfg.Streaming} {
		if s != nil {
			streaming = *s
			break
		}
	}
	c, err := aiperfCell(name, stats, i32(conc), rate.ptr(), streaming, max(keyLine(b, "time_to_first_token", 1), keyLine(b, "request_latency", 1)))
	if err != nil {
		return nil, err
	}
	req := cfg.Input.Prompt.InputTokens.Mean
	if len(cfg.Datasets) > 0 {
		req = firstSet(req, cfg.Datasets[0].Prompts.ISL.Mean)
	}
	if req.Set && req.V > 0 {
		// The requested length names the context; the measured mean
		// stays in prompt_tokens.
		inputContext(&c, req.V)
		metric(&c, "requested_input_tokens", req)
	}
	// AIPerf 0.10 names the benchmark and its trial: trials of one
	// configuration are repeats, told apart here. 0.11 adds the sweep
	// variation this run was and the command line.
	var info struct {
		BenchmarkID    string `json:"benchmark_id"`
		Trial          num    `json:"trial"`
		SweepID        string `json:"sweep_id"`
		VariationLabel string `json:"variation_label"`
		CLICommand     string `json:"cli_command"`
	}
	if v, ok := raw["run_info"]; ok && json.Unmarshal(v, &info) == nil {
		addField(&m.Run, "Run", "Benchmark id", info.BenchmarkID)
		if info.Trial.Set {
			addField(&m.Run, "Run", "Trial", strconv.FormatFloat(info.Trial.V, 'f', -1, 64))
		}
		addField(&m.Run, "Run", "Sweep id", info.SweepID)
		addField(&m.Run, "Run", "Variation", info.VariationLabel)
	}
	addField(&m.Run, "Run", "Command", firstNonEmpty(info.CLICommand, cfg.Artifacts.CLICommand))
	aiperfSLOs(&m.Run, cfg)
	aiperfErrors(&m.Run, raw["error_summary"])
	var gpus []telemetryGPU
	if t, ok := raw["telemetry_data"]; ok {
		gpus = gpuTelemetry(&c, t)
	}
	if t, ok := raw["telemetry_stats"]; ok {
		gpus = genaiTelemetry(&c, t)
	}
	telemetryEnergy(&m.Run, &c, tool, stats, gpus)
	m.Measurements = []schema.Measurement{c}
	return m, nil
}

// aiperfShortTags are the metric tags of AIPerf 0.1.x that later
// versions spell out.
var aiperfShortTags = map[string]string{"ttft": "time_to_first_token", "ttst": "time_to_second_token"}

// genAIPerfOldLengths maps GenAI-Perf's first names of the sequence
// lengths to the later ones.
var genAIPerfOldLengths = map[string]string{
	"num_input_token":  "input_sequence_length",
	"num_output_token": "output_sequence_length",
}

// aiperfCell maps AIPerf metric blocks (from JSON or CSV) to a serve
// cell. streaming is false when the run did not stream (GenAI-Perf then
// writes the request latency where time to first token goes): its token
// timing figures are left out.
func aiperfCell(name string, stats map[string]*aiperfStats, conc *int32, rate *float64, streaming bool, line int) (schema.Measurement, error) {
	c := schema.Measurement{Phase: schema.PhaseServe, Status: schema.StatusValid, SourceLine: int64(line), Concurrency: conc, RequestRate: rate}
	ms := func(key, stat string) *float64 {
		s := stats[key]
		if s == nil {
			return nil
		}
		return s.get(stat).scaled(unitToMs(s.Unit))
	}
	family := func(key string, p50, mean, p90, p99 **float64) {
		*p50, *mean, *p90, *p99 = ms(key, "p50"), ms(key, "avg"), ms(key, "p90"), ms(key, "p99")
	}
	if streaming {
		family("time_to_first_token", &c.TTFTMs, &c.TTFTMeanMs, &c.TTFTP90Ms, &c.TTFTP99Ms)
		family("inter_token_latency", &c.TBTMs, &c.TBTMeanMs, &c.TBTP90Ms, &c.TBTP99Ms)
		family("inter_chunk_latency", &c.ChunkGapP50Ms, &c.ChunkGapMeanMs, &c.ChunkGapP90Ms, &c.ChunkGapP99Ms)
		// AIPerf's first non-reasoning token: time to first content.
		c.TTFCMs = ms("time_to_first_output_token", "p50")
		c.TTFTP50Ms, c.TBTP50Ms = c.TTFTMs, c.TBTMs
		if u := stats["output_token_throughput_per_user"]; u != nil {
			c.PerRequestTokS = u.get("p50").ptr()
			if c.PerRequestTokS == nil {
				c.PerRequestTokS = u.get("avg").ptr()
			}
		}
	} else {
		for _, k := range []string{"time_to_first_token", "time_to_second_token", "time_to_first_output_token",
			"inter_token_latency", "inter_chunk_latency", "output_token_throughput_per_user"} {
			stats[k].skip()
		}
	}
	family("request_latency", &c.E2EP50Ms, &c.E2EMeanMs, &c.E2EP90Ms, &c.E2EP99Ms)
	// GenAI-Perf's older output_token_throughput_per_request is output
	// tokens / request latency, first token included: not a decode rate.
	// It is kept by formula, as llmperf's is.
	if s, ok := stats["output_token_throughput_per_request"]; ok {
		delete(stats, "output_token_throughput_per_request")
		stats["request_output_tok_s"] = s
	}
	// GenAI-Perf's first exports (2024: ns units, "request per sec")
	// named the sequence lengths num_input_token and num_output_token
	// (CSV "Num Input Token"): the same figures as the later names.
	for old, cur := range genAIPerfOldLengths {
		if s, ok := stats[old]; ok && stats[cur] == nil {
			delete(stats, old)
			stats[cur] = s
		}
	}
	c.TotalTokS = stats["output_token_throughput"].get("avg").ptr()
	c.RequestThroughput = stats["request_throughput"].get("avg").ptr()
	// --goodput: requests meeting every SLO ÷ duration (the SLOs are in
	// the run's metadata, section "SLO").
	if g := stats["goodput"]; g != nil && unitIsPerSecond(g.Unit) {
		c.GoodputReqS = g.get("avg").ptr()
	}
	c.PromptTokens = stats["input_sequence_length"].get("avg").int()
	if p := c.PromptTokens; p != nil {
		inputContext(&c, float64(*p))
	} else {
		c.ContextLabel = UnknownContext
	}
	// total_osl counts reasoning tokens too (total_output_tokens does not):
	// it is what output_token_throughput divides.
	c.OutputTokens = firstAvg(stats, "total_osl", "total_output_sequence_length", "total_output_tokens").int()
	c.InputTokensTotal = firstAvg(stats, "total_isl", "total_input_sequence_length").int()
	c.CompletedRequests = stats["request_count"].get("avg").int()
	c.ErroredRequests = stats["error_request_count"].get("avg").int()
	metric(&c, "output_len_mean", stats["output_sequence_length"].get("avg"))
	if s := stats["benchmark_duration"]; s != nil {
		c.MeasuredS = s.get("avg").scaled(unitToMs(s.Unit) / 1000)
	}
	// Every statistic not in a column (p25, p95, std, max, energy,
	// goodput, …) by the tool's metric and statistic name; durations in
	// milliseconds with the unit in the name ("request_latency_p95_ms"),
	// so that the JSON (ns, s) and the CSV (ms) give one name and one
	// value.
	for _, k := range slices.Sorted(maps.Keys(stats)) {
		s := stats[k]
		for _, st := range slices.Sorted(maps.Keys(s.Stat)) {
			if s.used[st] {
				continue
			}
			if isTimeUnit(s.Unit) && st != "count" {
				metric(&c, k+"_"+st+"_ms", num{V: s.Stat[st].V * unitToMs(s.Unit), Set: s.Stat[st].Set})
			} else if u := sizeUnit(s.Unit); u != "" && st != "count" {
				metric(&c, k+"_"+st+"_"+u, s.Stat[st])
			} else {
				metric(&c, k+"_"+st, s.Stat[st])
			}
		}
	}
	if c.TotalTokS == nil && c.E2EP50Ms == nil && c.E2EMeanMs == nil && c.RequestThroughput == nil {
		return c, errorf(name, line, "no output throughput, request latency or request throughput: not a serving benchmark summary")
	}
	if noneCompleted(c) {
		return nothingCompleted(c, c.ErroredRequests), nil
	}
	return c, nil
}

// noneCompleted reports whether a cell says no request completed: a
// request count of 0, or no count and every throughput 0 (a failed AIPerf
// run writes zeros for every statistic).
func noneCompleted(c schema.Measurement) bool {
	if c.CompletedRequests != nil {
		return *c.CompletedRequests == 0
	}
	zero := func(p *float64) bool { return p == nil || *p == 0 }
	return (c.TotalTokS != nil || c.RequestThroughput != nil) && zero(c.TotalTokS) && zero(c.RequestThroughput)
}

// isTimeUnit reports whether unit is a duration unit unitToMs converts.
func isTimeUnit(unit string) bool {
	switch strings.ToLower(strings.TrimSpace(unit)) {
	case "ms", "milliseconds", "s", "sec", "second", "seconds", "us", "µs", "microseconds", "ns", "nanoseconds":
		return true
	}
	return false
}

// sizeUnit returns the name suffix of a data size unit ("kb" for AIPerf's
// HTTP Data Sent in KB), or "" when unit is not one: a size keeps its unit
// in its name, as a duration does.
func sizeUnit(unit string) string {
	switch u := strings.ToLower(strings.TrimSpace(unit)); u {
	case "b", "bytes", "kb", "kib", "mb", "mib", "gb", "gib":
		if u == "b" {
			return "bytes"
		}
		return u
	}
	return ""
}

// unitToMs returns the factor that converts a duration unit to
// milliseconds (1 for anything that is not a time unit).
func unitToMs(unit string) float64 {
	switch strings.ToLower(strings.TrimSpace(unit)) {
	case "s", "sec", "second", "seconds":
		return 1000
	case "us", "µs", "microseconds":
		return 1e-3
	case "ns", "nanoseconds":
		return 1e-6
	}
	return 1
}

// gpuTelemetry keeps AIPerf's GPU telemetry (telemetry_data: per endpoint,
// per GPU, metric blocks) as the average of each metric per GPU, named as
// the CSV export's rows are: gpu<index>_<metric>_<unit>_avg
// ("gpu0_gpu_power_usage_w_avg"). The GPUs are found wherever they sit in
// the block: an object with a gpu_index and metrics. A GPU whose index a
// GPU of an earlier endpoint (in key order) already named is named with
// its endpoint's ordinal, endpoint<k>_gpu<index>_… (a second node, or
// a second exporter of the same GPU), so that no name is written twice.
// It returns the GPUs, in the block's key order, for telemetryEnergy.
func gpuTelemetry(c *schema.Measurement, raw json.RawMessage) []telemetryGPU {
	var gpus []telemetryGPU
	names := gpuNames{}
	var walk func(raw json.RawMessage, endpoint string)
	walk = func(raw json.RawMessage, endpoint string) {
		var obj map[string]json.RawMessage
		if json.Unmarshal(raw, &obj) != nil {
			return
		}
		var idx num
		if json.Unmarshal(obj["gpu_index"], &idx) == nil && idx.Set {
			var metrics map[string]*aiperfStats
			if json.Unmarshal(obj["metrics"], &metrics) == nil {
				prefix := names.prefix(endpoint, strconv.Itoa(int(idx.V)))
				for _, k := range slices.Sorted(maps.Keys(metrics)) {
					if s := metrics[k]; s != nil {
						name := strings.TrimSuffix(prefix+"_"+metricKey(k+" "+s.Unit), "_")
						metric(c, name+"_avg", s.Stat["avg"])
					}
				}
			}
			g := telemetryGPU{Endpoint: endpoint, Index: strconv.Itoa(int(idx.V)), Metrics: metrics}
			_ = json.Unmarshal(obj["gpu_uuid"], &g.UUID)
			_ = json.Unmarshal(obj["hostname"], &g.Host)
			gpus = append(gpus, g)
			return
		}
		for _, k := range slices.Sorted(maps.Keys(obj)) {
			if v := obj[k]; len(v) > 0 && v[0] == '{' {
				ep := endpoint
				if ep == "" && k != "endpoints" && k != "summary" && k != "gpus" {
					ep = k // telemetry_data.endpoints.<endpoint>
				}
				walk(v, ep)
			}
		}
	}
	walk(raw, "")
	return gpus
}

// genaiTelemetry keeps GenAI-Perf's GPU telemetry (telemetry_stats:
// {metric: {unit, gpu0: {avg, …}, …}}) as each GPU's average, named as
// AIPerf's are: gpu<index>_<metric>_<unit>_avg. It returns the GPUs, each
// with its metric blocks, for telemetryEnergy.
func genaiTelemetry(c *schema.Measurement, raw json.RawMessage) []telemetryGPU {
	var metrics map[string]map[string]json.RawMessage
	if json.Unmarshal(raw, &metrics) != nil {
		return nil
	}
	byIndex := map[string]*telemetryGPU{}
	var order []string
	for _, k := range slices.Sorted(maps.Keys(metrics)) {
		var unit string
		_ = json.Unmarshal(metrics[k]["unit"], &unit)
		for _, g := range slices.Sorted(maps.Keys(metrics[k])) {
			idx, ok := strings.CutPrefix(g, "gpu")
			if !ok {
				continue
			}
			st := &aiperfStats{}
			if json.Unmarshal(metrics[k][g], st) == nil {
				metric(c, strings.TrimSuffix("gpu"+idx+"_"+metricKey(k+" "+unit), "_")+"_avg", st.Stat["avg"])
				st.Unit = unit
				if byIndex[idx] == nil {
					byIndex[idx] = &telemetryGPU{Index: idx, Metrics: map[string]*aiperfStats{}}
					order = append(order, idx)
				}
				byIndex[idx].Metrics[k] = st
			}
		}
	}
	gpus := make([]telemetryGPU, 0, len(order))
	for _, idx := range order {
		gpus = append(gpus, *byIndex[idx])
	}
	return gpus
}

// aiperfSLOs writes --goodput's bounds into the run's metadata (section
// "SLO", one field per metric: "time_to_first_token" = "1500"), since a
// goodput figure means nothing without them.
func aiperfSLOs(r *schema.Run, cfg aiperfConfig) {
	for _, slos := range []map[string]num{cfg.SLOs, cfg.Goodput} {
		for _, k := range slices.Sorted(maps.Keys(slos)) {
			if v := slos[k]; v.Set {
				addField(r, "SLO", k, strconv.FormatFloat(v.V, 'f', -1, 64))
			}
		}
	}
}

// unitIsPerSecond reports whether a throughput unit is a count per
// second ("requests/sec", "requests/s"), or absent.
func unitIsPerSecond(unit string) bool {
	u := strings.ToLower(strings.TrimSpace(unit))
	return u == "" || strings.HasSuffix(u, "/sec") || strings.HasSuffix(u, "/s") || strings.HasSuffix(u, "per sec")
}

// aiperfErrors writes AIPerf's error_summary ([{error_details: {code,
// type, message}, count}]) into the run's metadata, section "Errors":
// "400 Bad Request" = "5× maximum context length exceeded".
func aiperfErrors(r *schema.Run, raw json.RawMessage) {
	var errs []struct {
		Details struct {
			Code    num    `json:"code"`
			Type    string `json:"type"`
			Message string `json:"message"`
		} `json:"error_details"`
		Count num `json:"count"`
	}
	if json.Unmarshal(raw, &errs) != nil {
		return
	}
	for _, e := range errs {
		key := strings.TrimSpace(e.Details.Type)
		if e.Details.Code.Set {
			key = strings.TrimSpace(strconv.FormatFloat(e.Details.Code.V, 'f', -1, 64) + " " + key)
		}
		msg := e.Details.Message
		if len(msg) > 300 {
			msg = msg[:300] + "…"
		}
		if e.Count.Set {
			msg = strconv.FormatFloat(e.Count.V, 'f', -1, 64) + "× " + msg
		}
		addField(r, "Errors", firstNonEmpty(key, "error"), msg)
	}
}
