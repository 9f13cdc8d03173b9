package peers

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"regexp"
	"slices"
	"strconv"
	"time"

	"speedmatrix/schema"
)

// FormatGuideLLM is guidellm's report (benchmarks.json, or the same
// object as YAML).
const FormatGuideLLM = "guidellm"

// guideLLMReader recognises the JSON report by its benchmarks and the
// YAML report by its top-level keys; the CSV export is named and
// refused (its rows lack the strategy's rate or streams).
var guideLLMReader = reader{
	format: FormatGuideLLM,
	parse:  one(parseGuideLLM),
	shapes: []shape{
		{rank: 20, text: func(t []byte) bool { return bytes.HasPrefix(t, []byte("Run Info,")) },
			// Three header rows: group, field, unit or statistic.
			refuse: "guidellm's CSV export (benchmarks.csv): its rows give each benchmark's strategy type, not the strategy's rate or streams beside the figures; ingest the JSON or YAML report of the same run (--outputs json or yaml)"},
		{rank: 50, text: looksGuideLLMYAML},
		{rank: 110, keys: signature{all: []string{"benchmarks"}}},
	},
}

// guidellmFile is guidellm's benchmarks.json: one entry per benchmark (a
// concurrency level or a rate of a sweep). From 0.5 on, the file also
// holds metadata and the args it ran with, and each benchmark its config;
// before (0.2 to 0.4) each benchmark carries its own args.strategy,
// worker (backend model and target) and request_totals.
type guidellmFile struct {
	Metadata struct {
		Version         num    `json:"version"` // report layout: 2 from 0.6
		GuidellmVersion string `json:"guidellm_version"`
		Platform        string `json:"platform"`
	} `json:"metadata"`
	// Config is where reports of metadata.version 2 (0.6 to 0.8) keep
	// what 0.5 kept in args.
	Config struct {
		Spec struct {
			Backend struct {
				Model  string `json:"model"`
				Target string `json:"target"`
				Kind   string `json:"kind"`
			} `json:"backend"`
			Profile struct {
				Kind string `json:"kind"`
			} `json:"profile"`
			// Data holds the synthetic data's requested lengths.
			Data []struct {
				PromptTokens num `json:"prompt_tokens"`
				OutputTokens num `json:"output_tokens"`
			} `json:"data"`
		} `json:"spec"`
	} `json:"config"`
	Args struct {
		Target  string `json:"target"`
		Model   string `json:"model"`
		Profile string `json:"profile"`
		Backend string `json:"backend"`
		// Data is --data: files, or synthetic settings such as
		// "prompt_tokens=1000,output_tokens=200" (0.5).
		Data json.RawMessage `json:"data"`
	} `json:"args"`
	Benchmarks []guidellmBenchmark `json:"benchmarks"`
}

// guidellmStrategy is how a benchmark sent its requests.
type guidellmStrategy struct {
	Type           string `json:"type_"`
	Streams        num    `json:"streams"`
	MaxConcurrency num    `json:"max_concurrency"`
	Rate           num    `json:"rate"`
}

// guidellmBenchmark is one benchmark of a guidellm run.
type guidellmBenchmark struct {
	Config struct {
		Strategy guidellmStrategy `json:"strategy"`
		Backend  struct {
			Model  string `json:"model"`
			Target string `json:"target"`
		} `json:"backend"`
	} `json:"config"`
	// Args, Worker and RequestTotals are where guidellm before 0.5 kept
	// the strategy, the backend and the request counts.
	Args struct {
		Strategy guidellmStrategy `json:"strategy"`
	} `json:"args"`
	Worker struct {
		BackendModel  string `json:"backend_model"`
		BackendTarget string `json:"backend_target"`
	} `json:"worker"`
	RequestTotals *struct {
		Successful num `json:"successful"`
		Errored    num `json:"errored"`
		Incomplete num `json:"incomplete"`
		Total      num `json:"total"`
	} `json:"request_totals"`
	StartTime num                       `json:"start_time"`
	Duration  num                       `json:"duration"`
	Metrics   map[string]guidellmMetric `json:"metrics"`
}

// strategy returns the benchmark's strategy wherever its version keeps it.
func (b *guidellmBenchmark) strategy() guidellmStrategy {
	if b.Config.Strategy.Type != "" {
		return b.Config.Strategy
	}
	return b.Args.Strategy
}

// guidellmMetric holds one metric's distributions by request outcome.
type guidellmMetric struct {
	Successful *guidellmDist `json:"successful"`
	Errored    *guidellmDist `json:"errored"`
	Incomplete *guidellmDist `json:"incomplete"`
	Total      *guidellmDist `json:"total"`
}

// guidellmDist is a guidellm distribution summary.
type guidellmDist struct {
	Mean        num            `json:"mean"`
	Median      num            `json:"median"`
	Count       num            `json:"count"`
	StdDev      num            `json:"std_dev"`
	Min         num            `json:"min"`
	Max         num            `json:"max"`
	TotalSum    num            `json:"total_sum"`
	Percentiles map[string]num `json:"percentiles"`
}

// UnmarshalJSON accepts a distribution object, or a bare number (the
// request_totals metric holds plain counts), taken as its total.
func (d *guidellmDist) UnmarshalJSON(b []byte) error {
	t := bytes.TrimSpace(b)
	if len(t) > 0 && t[0] != '{' {
		var n num
		if err := json.Unmarshal(t, &n); err != nil {
			return err
		}
		*d = guidellmDist{Mean: n, Median: n, Count: n, TotalSum: n}
		return nil
	}
	type plain guidellmDist
	var p plain
	if err := json.Unmarshal(t, &p); err != nil {
		return err
	}
	*d = guidellmDist(p)
	return nil
}

// stat returns the successful requests' distribution of a metric.
func (b *guidellmBenchmark) stat(key string) *guidellmDist {
	if m, ok := b.Metrics[key]; ok && m.Successful != nil {
		return m.Successful
	}
	return &guidellmDist{}
}

// parseGuideLLM reads guidellm's benchmarks.json. Each benchmark becomes
// a serve cell. guidellm names by its own formulas, mapped here by
// formula: inter_token_latency_ms (per request (e2e − ttft)/(tokens − 1))
// → tbt_*; time_per_output_token_ms (e2e / tokens, first token included)
// → extra e2e_per_token_ms; time_to_first_token_ms → ttft_*;
// request_latency (seconds) × 1000 → e2e_*; output_token_count total /
// duration → total_tok_s; 1000 / median ITL → per_request_tok_s;
// request_concurrency mean → avg_active_requests; requests_per_second →
// request_throughput; request_totals successful/errored →
// completed/errored requests; prompt_token_count mean → prompt_tokens.
func parseGuideLLM(b []byte, name string) (*schema.Matrix, error) {
	if looksGuideLLMYAML(bytes.TrimLeft(b, "\ufeff \t\r\n")) {
		// The YAML report holds the JSON report's object.
		j, err := yamlToJSON(name, b)
		if err != nil {
			err.Msg = "guidellm YAML report: " + err.Msg
			return nil, err
		}
		b = sanitizeJSON(j)
	}
	if isGuideLLM01(b) {
		return nil, errorf(name, keyLine(b, "benchmarks", 1), "guidellm 0.1's report (a GuidanceReport: benchmarks[] of reports, each with its args and its benchmarks[] of mode, rate, every request's result and summaries under 0.1's names): not read; speedmatrix reads the benchmarks.json of guidellm 0.2 and later")
	}
	var f guidellmFile
	if err := json.NewDecoder(bytes.NewReader(b)).Decode(&f); err != nil {
		return nil, jsonError(name, b, 1, err)
	}
	// The metrics again as raw JSON: every distribution, nested groups
	// included, is kept (guidellmExtras).
	var raws struct {
		Benchmarks []struct {
			Metrics map[string]json.RawMessage `json:"metrics"`
		} `json:"benchmarks"`
	}
	_ = json.Unmarshal(b, &raws)
	if len(f.Benchmarks) == 0 {
		return nil, errorf(name, keyLine(b, "benchmarks", 1), "guidellm file with no benchmarks")
	}
	m := peerMatrix("guidellm", f.Metadata.GuidellmVersion)
	m.Run.SourceFormat = FormatGuideLLM
	b0 := &f.Benchmarks[0]
	spec := f.Config.Spec
	model := firstNonEmpty(f.Args.Model, spec.Backend.Model, b0.Config.Backend.Model, b0.Worker.BackendModel)
	m.Run.ModelID, m.Run.Model = model, modelBase(model)
	m.Run.Title = "guidellm: " + firstNonEmpty(m.Run.Model, "model not recorded")
	m.Run.ServerURL = firstNonEmpty(f.Args.Target, spec.Backend.Target, b0.Config.Backend.Target, b0.Worker.BackendTarget)
	addField(&m.Run, "Run", "Profile", firstNonEmpty(f.Args.Profile, spec.Profile.Kind))
	addField(&m.Run, "Run", "Backend", firstNonEmpty(f.Args.Backend, spec.Backend.Kind))
	addField(&m.Run, "Run", "Platform", f.Metadata.Platform)
	if v := f.Metadata.Version; v.Set {
		addField(&m.Run, "Run", "Report version", fmt.Sprint(v.V))
	}
	if st := f.Benchmarks[0].StartTime; st.Set {
		t := time.Unix(0, int64(st.V*1e9)).UTC()
		m.Run.StartedAt = &t
	}
	// Benchmarks appear in order; find each one's line by its "type_" key
	// occurrences under "benchmarks".
	lines := objectLines(b, "benchmarks", `"type_": "generative_benchmark"`, len(f.Benchmarks))
	for i := range f.Benchmarks {
		bm := &f.Benchmarks[i]
		c := schema.Measurement{Phase: schema.PhaseServe, Status: schema.StatusValid, SourceLine: int64(lines[i])}
		st := bm.strategy()
		// The load is the strategy's: streams of a concurrent run, one
		// of a synchronous one, the rate of a constant or Poisson one.
		// Note: a rate strategy records max_concurrency too (10240 by
		// default in 0.8), a cap on requests in flight and not the load:
		// it is kept in extra; what was in flight is request_concurrency.
		// The throughput strategy keeps max_concurrency requests in
		// flight, so there it is the load.
		switch {
		case st.Streams.Set:
			c.Concurrency = i32(st.Streams)
		case st.Type == "synchronous":
			c.Concurrency = schema.I32(1)
		case st.MaxConcurrency.Set && st.Type == "throughput":
			c.Concurrency = i32(st.MaxConcurrency)
		case st.MaxConcurrency.Set:
			metric(&c, "max_concurrency_cap", st.MaxConcurrency)
		}
		if st.Rate.Set {
			c.RequestRate = st.Rate.ptr()
		} else if st.Type == "throughput" {
			c.RequestRate = schema.F64(math.Inf(1))
		}
		if i == 0 {
			addField(&m.Run, "Run", "Strategy", st.Type)
		}
		prompt := bm.stat("prompt_token_count")
		// The context is the requested prompt length when the report
		// records one (synthetic data) and the prompts sent were about
		// that long, else the measured mean. Note: multi-turn data with
		// shared prefixes sends longer prompts than prompt_tokens (the
		// 0.8 fixture asks 32 and sends 66–72): there the measured mean
		// names the context.
		req := requestedPrompt(&f)
		metric(&c, "requested_prompt_tokens", req)
		if req.Set && (!prompt.Mean.Set || math.Abs(prompt.Mean.V-req.V) <= 0.25*req.V) {
			inputContext(&c, req.V)
		} else {
			inputContext(&c, prompt.Mean.V)
		}
		c.PromptTokens = prompt.Mean.int()
		c.InputTokensTotal = prompt.TotalSum.int()
		out := bm.stat("output_token_count")
		c.OutputTokens = out.TotalSum.int()
		c.MeasuredS = bm.Duration.ptr()
		if out.TotalSum.Set && bm.Duration.Set && bm.Duration.V > 0 {
			v := out.TotalSum.V / bm.Duration.V
			c.TotalTokS = &v
		}
		if prompt.TotalSum.Set && bm.Duration.Set && bm.Duration.V > 0 {
			v := prompt.TotalSum.V / bm.Duration.V
			c.InputTokS = &v
		}
		ttft := bm.stat("time_to_first_token_ms")
		c.TTFTMs, c.TTFTMeanMs = ttft.Median.ptr(), ttft.Mean.ptr()
		c.TTFTP50Ms, c.TTFTP90Ms, c.TTFTP99Ms = ttft.p50(), ttft.pct("p90"), ttft.pct("p99")
		itl := bm.stat("inter_token_latency_ms")
		c.TBTMs, c.TBTMeanMs = itl.Median.ptr(), itl.Mean.ptr()
		c.TBTP50Ms, c.TBTP90Ms, c.TBTP99Ms = itl.p50(), itl.pct("p90"), itl.pct("p99")
		if c.TBTMs != nil && *c.TBTMs > 0 {
			v := 1000 / *c.TBTMs
			c.PerRequestTokS = &v
		}
		e2e := bm.stat("request_latency")
		c.E2EP50Ms, c.E2EMeanMs = e2e.Median.scaled(1000), e2e.Mean.scaled(1000)
		c.E2EP90Ms, c.E2EP99Ms = scale(e2e.pct("p90"), 1000), scale(e2e.pct("p99"), 1000)
		// 0.8's first token that is not reasoning: time to first content.
		c.TTFCMs = bm.stat("time_to_first_output_token_ms").Median.ptr()
		tpot := bm.stat("time_per_output_token_ms")
		metric(&c, "e2e_per_token_ms", tpot.Median)
		c.AvgActiveRequests = bm.stat("request_concurrency").Mean.ptr()
		c.RequestThroughput = bm.stat("requests_per_second").Mean.ptr()
		if tot, ok := bm.Metrics["request_totals"]; ok {
			if tot.Successful != nil {
				c.CompletedRequests = tot.Successful.TotalSum.int()
				if c.CompletedRequests == nil {
					c.CompletedRequests = tot.Successful.Count.int()
				}
			}
			if tot.Errored != nil {
				c.ErroredRequests = tot.Errored.TotalSum.int()
			}
			if tot.Incomplete != nil {
				metric(&c, "incomplete_requests", tot.Incomplete.TotalSum)
			}
			if tot.Total != nil {
				metric(&c, "total_requests", tot.Total.TotalSum)
			}
		} else if tot := bm.RequestTotals; tot != nil {
			c.CompletedRequests, c.ErroredRequests = tot.Successful.int(), tot.Errored.int()
			metric(&c, "incomplete_requests", tot.Incomplete)
			metric(&c, "total_requests", tot.Total)
		}
		if i < len(raws.Benchmarks) {
			guidellmExtras(&c, "", raws.Benchmarks[i].Metrics)
		}
		if c.TotalTokS == nil && c.TTFTMs == nil {
			return nil, errorf(name, lines[i], "guidellm benchmark %d has no output tokens and no TTFT", i)
		}
		m.Measurements = append(m.Measurements, c)
	}
	if err := checkPeerCells(name, m.Measurements); err != nil {
		return nil, err
	}
	return m, nil
}

// pct returns a named percentile ("p90") as an optional column.
func (d *guidellmDist) pct(p string) *float64 {
	if d.Percentiles == nil {
		return nil
	}
	return d.Percentiles[p].ptr()
}

// p50 returns the p50 percentile, else the median (guidellm before 0.5
// lists no p50 among its percentiles).
func (d *guidellmDist) p50() *float64 {
	if p := d.pct("p50"); p != nil {
		return p
	}
	return d.Median.ptr()
}

// scale multiplies an optional value.
func scale(p *float64, k float64) *float64 {
	if p == nil {
		return nil
	}
	v := *p * k
	return &v
}

// objectLines returns the lines of the first n occurrences of marker
// after the key's position, or the key's line for each when absent.
func objectLines(b []byte, key, marker string, n int) []int {
	out := make([]int, n)
	start := bytes.Index(b, []byte(fmt.Sprintf("%q", key)))
	if start < 0 {
		start = 0
	}
	base := lineAt(b, int64(start))
	off := start
	for i := 0; i < n; i++ {
		out[i] = base
		if off < 0 {
			continue
		}
		j := bytes.Index(b[off:], []byte(marker))
		if j < 0 {
			off = -1
			continue
		}
		out[i] = lineAt(b, int64(off+j))
		off += j + 1
	}
	return out
}

// guidellmColumns lists, per metric, the statistics of its successful
// requests that parseGuideLLM puts in columns.
var guidellmColumns = map[string][]string{
	"prompt_token_count":            {"mean", "total_sum"},
	"output_token_count":            {"total_sum"},
	"time_to_first_token_ms":        {"mean", "median", "p50", "p90", "p99"},
	"inter_token_latency_ms":        {"mean", "median", "p50", "p90", "p99"},
	"request_latency":               {"mean", "median", "p50", "p90", "p99"},
	"time_per_output_token_ms":      {"median"},
	"time_to_first_output_token_ms": {"median"},
	"request_concurrency":           {"mean"},
	"requests_per_second":           {"mean"},
}

// guidellmKept are the statistics of a distribution kept in extra when no
// column holds them (mode, variance, count and the lowest percentiles
// repeat or add nothing a reader compares).
var guidellmKept = []string{"mean", "median", "std_dev", "min", "max", "p90", "p95", "p99", "p999"}

// guidellmExtras keeps every other statistic of the successful requests'
// distributions in extra as <metric>_<stat>, nested groups joined by "_"
// (0.5's text/characters/input → text_characters_input_mean);
// request_latency, in seconds, as request_latency_ms_<stat> in
// milliseconds, so no duration is stored without its unit.
func guidellmExtras(c *schema.Measurement, prefix string, metrics map[string]json.RawMessage) {
	for _, k := range slices.Sorted(maps.Keys(metrics)) {
		if prefix == "" && k == "request_totals" {
			continue
		}
		var group map[string]json.RawMessage
		if json.Unmarshal(metrics[k], &group) != nil {
			continue
		}
		succ, ok := group["successful"]
		if !ok {
			guidellmExtras(c, prefix+k+"_", group)
			continue
		}
		var d guidellmDist
		if json.Unmarshal(succ, &d) != nil {
			continue
		}
		name, scale := prefix+k, 1.0
		if name == "request_latency" {
			name, scale = "request_latency_ms", 1000
		}
		for _, st := range guidellmKept {
			if prefix == "" && slices.Contains(guidellmColumns[k], st) {
				continue
			}
			var v num
			switch st {
			case "mean":
				v = d.Mean
			case "median":
				v = d.Median
			case "std_dev":
				v = d.StdDev
			case "min":
				v = d.Min
			case "max":
				v = d.Max
			default:
				v = d.Percentiles[st]
			}
			if p := v.scaled(scale); p != nil {
				c.Extra = append(c.Extra, schema.Metric{Name: name + "_" + st, Value: *p})
			}
		}
	}
}

// requestedPrompt returns the prompt length the synthetic data was asked
// for, when the file names exactly one: config.spec.data of a report of
// metadata.version 2, or 0.5's --data settings ("prompt_tokens=1000,…" or
// the same as JSON).
func requestedPrompt(f *guidellmFile) num {
	if d := f.Config.Spec.Data; len(d) == 1 && d[0].PromptTokens.Set && d[0].PromptTokens.V > 0 {
		return d[0].PromptTokens
	}
	var data []string
	if json.Unmarshal(f.Args.Data, &data) != nil {
		var one string
		if json.Unmarshal(f.Args.Data, &one) != nil {
			return num{}
		}
		data = []string{one}
	}
	if len(data) != 1 {
		return num{}
	}
	m := guidellmPromptTokens.FindStringSubmatch(data[0])
	if m == nil {
		return num{}
	}
	v, err := strconv.ParseFloat(m[1], 64)
	if err != nil || v <= 0 {
		return num{}
	}
	return num{V: v, Set: true}
}

// guidellmPromptTokens finds prompt_tokens in guidellm's --data settings.
var guidellmPromptTokens = regexp.MustCompile(`(?:^|[,{\s"])prompt_tokens"?\s*[:=]\s*([0-9]+)`)

// isGuideLLM01 reports whether b is guidellm 0.1's GuidanceReport, whose
// benchmarks are reports that each hold benchmarks of their own.
func isGuideLLM01(b []byte) bool {
	var r struct {
		Benchmarks []struct {
			Benchmarks []json.RawMessage `json:"benchmarks"`
		} `json:"benchmarks"`
	}
	return json.Unmarshal(b, &r) == nil && len(r.Benchmarks) > 0 && len(r.Benchmarks[0].Benchmarks) > 0
}
