package peers

import (
	"bytes"
	"encoding/csv"
	"errors"
	"io"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"speedmatrix/schema"
)

// aiperfCSVNames maps the display names of AIPerf's and GenAI-Perf's CSV
// export to their JSON metric keys.
var aiperfCSVNames = map[string]string{
	"time to first token":              "time_to_first_token",
	"inter token latency":              "inter_token_latency",
	"inter chunk latency":              "inter_chunk_latency",
	"request latency":                  "request_latency",
	"output sequence length":           "output_sequence_length",
	"input sequence length":            "input_sequence_length",
	"output token throughput":          "output_token_throughput",
	"output token throughput per user": "output_token_throughput_per_user",
	"request throughput":               "request_throughput",
	"request count":                    "request_count",
	"error request count":              "error_request_count",
	"benchmark duration":               "benchmark_duration",
	// Labels whose JSON tag is not the label in snake case: one name per
	// metric in extra, whichever export was read.
	"total input sequence length":  "total_isl",
	"total output sequence length": "total_osl",
	"minimum request timestamp":    "min_request_timestamp",
	"maximum response timestamp":   "max_response_timestamp",
	"http blocked":                 "http_req_blocked",
	"http connecting":              "http_req_connecting",
	"http dns lookup":              "http_req_dns_lookup",
	"http sending":                 "http_req_sending",
	"http waiting (ttfb)":          "http_req_waiting",
	"http receiving":               "http_req_receiving",
	"http duration (excl. conn)":   "http_req_duration",
	"http data sent":               "http_req_data_sent",
	"http data received":           "http_req_data_received",
	"http chunks sent":             "http_req_chunks_sent",
	"http chunks received":         "http_req_chunks_received",
	"http connection reused":       "http_req_connection_reused",
	"http connection overhead":     "http_req_connection_overhead",
	"http total time":              "http_req_total",
	// Newer AIPerf metrics (issue 27). "Completed Requests (Success +
	// Error)" reaches here as the label "Completed Requests" (its last
	// parentheses read as the unit); the CO-aware effective latency
	// keeps "(CO-aware)" in its label, its unit (ms) after it.
	"completed requests":           "completed_request_count",
	"effective latency (co-aware)": "effective_latency",
}

// aiperfCSVKey gives the figure name of a CSV label that
// aiperfCSVNames does not list: the label in snake case ("OSL Mismatch
// Diff %" → osl_mismatch_diff_pct), an error-adjusted metric ("Output
// Token Throughput Error Adjusted", "Error-Adjusted Goodput") under the
// JSON's adj_ tag (adj_output_token_throughput, adj_goodput).
func aiperfCSVKey(label string) string {
	key := metricKey(strings.ReplaceAll(label, "%", " pct "))
	if base, ok := strings.CutSuffix(key, "_error_adjusted"); ok && base != "" {
		return "adj_" + base
	}
	if base, ok := strings.CutPrefix(key, "error_adjusted_"); ok && base != "" {
		return "adj_" + base
	}
	return key
}

// Formats of the profile export CSV of AIPerf and of GenAI-Perf.
const (
	FormatAIPerfCSV    = "aiperf-csv"
	FormatGenAIPerfCSV = "genai-perf-csv"
)

// statsCSV reports whether t is a profile export CSV: its first row
// starts "Metric,".
func statsCSV(t []byte) bool { return bytes.HasPrefix(t, []byte("Metric,")) }

// aiperfCSVReader and genAIPerfCSVReader tell the two apart by their
// rates: GenAI-Perf writes "(per sec)", AIPerf, its successor,
// "(tokens/sec)" and "(requests/sec)".
var (
	aiperfCSVReader = reader{
		format: FormatAIPerfCSV,
		parse:  one(parseAIPerfCSV),
		shapes: []shape{{rank: 11, text: statsCSV}},
	}
	genAIPerfCSVReader = reader{
		format: FormatGenAIPerfCSV,
		parse:  one(parseGenAIPerfCSV),
		shapes: []shape{{rank: 10, text: func(t []byte) bool { return statsCSV(t) && bytes.Contains(t, []byte("(per sec)")) }}},
	}
)

// parseAIPerfCSV reads profile_export_aiperf.csv (or GenAI-Perf's
// profile_export_genai_perf.csv): sections that each start with a header
// row "Metric,avg,min,max,p99,…" or "Metric,Value", metric names with the
// unit in parentheses ("Time to First Token (ms)"). A section whose
// header has columns before "Metric" (AIPerf's GPU telemetry:
// "Endpoint,GPU_Index,GPU_Name,GPU_UUID,Metric,avg,…") holds a row per
// GPU and metric; its averages are kept as extra figures named
// gpu<index>_<metric>_<unit>_avg.
func parseAIPerfCSV(b []byte, name string) (*schema.Matrix, error) {
	return parseStatsCSV(b, name, FormatAIPerfCSV)
}

// parseGenAIPerfCSV reads GenAI-Perf's profile_export_genai_perf.csv,
// the same layout as AIPerf's with "(per sec)" units.
func parseGenAIPerfCSV(b []byte, name string) (*schema.Matrix, error) {
	return parseStatsCSV(b, name, FormatGenAIPerfCSV)
}

// parseStatsCSV reads the CSV export of AIPerf or GenAI-Perf (format).
func parseStatsCSV(b []byte, name, format string) (*schema.Matrix, error) {
	r := csv.NewReader(bytes.NewReader(b))
	r.FieldsPerRecord = -1
	r.TrimLeadingSpace = true
	stats := map[string]*aiperfStats{}
	var gpus []telemetryGPU
	names := gpuNames{}
	prefixes := map[string]string{} // endpoint, UUID and index → prefix
	gpuPrefix := func(n *gpuNames, header, rec []string, metricCol, gpuCol int) string {
		g := csvGPU(header, rec, metricCol)
		id := g.Endpoint + "\x00" + g.UUID + "\x00" + g.Index
		if p, ok := prefixes[id]; ok {
			return p
		}
		p := n.prefix(g.Endpoint, rec[gpuCol])
		prefixes[id] = p
		return p
	}
	var header []string
	metricCol, gpuCol := 0, -1
	firstLine := 0
	for {
		rec, err := r.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			// Note: FieldPos panics after a failed Read; the error
			// carries its own line.
			line := 0
			var pe *csv.ParseError
			if errors.As(err, &pe) {
				line = pe.StartLine
			}
			return nil, errorf(name, line, "CSV: %v", err)
		}
		line, _ := r.FieldPos(0)
		if len(rec) == 0 || len(rec) == 1 && strings.TrimSpace(rec[0]) == "" {
			continue
		}
		if i := slices.IndexFunc(rec, func(s string) bool { return strings.EqualFold(strings.TrimSpace(s), "metric") }); i >= 0 {
			header, metricCol, gpuCol = rec, i, slices.IndexFunc(rec, func(s string) bool { return strings.EqualFold(strings.TrimSpace(s), "gpu_index") })
			continue
		}
		if header == nil {
			return nil, errorf(name, line, "CSV row before any \"Metric,…\" header")
		}
		if len(rec) <= metricCol {
			return nil, errorf(name, line, "CSV row has %d cells, the header has its Metric column at %d", len(rec), metricCol+1)
		}
		label, unit := splitUnit(rec[metricCol])
		key, ok := aiperfCSVNames[strings.ToLower(label)]
		if !ok {
			key = aiperfCSVKey(label)
		}
		gpu := gpuCol >= 0 && gpuCol < len(rec)
		if gpu {
			key = gpuPrefix(&names, header, rec, metricCol, gpuCol) + "_" + metricKey(label+" "+unit)
		}
		s := &aiperfStats{Unit: unit, Stat: map[string]num{}, used: map[string]bool{}}
		for i := metricCol + 1; i < len(rec) && i < len(header); i++ {
			txt := strings.ReplaceAll(strings.TrimSpace(rec[i]), ",", "")
			if txt == "" || txt == "N/A" {
				continue
			}
			v, err := strconv.ParseFloat(txt, 64)
			if err != nil {
				return nil, errorf(name, line, "%s: %s %q is not a number", label, header[i], rec[i])
			}
			stat := strings.ToLower(strings.TrimSpace(header[i]))
			switch stat {
			case "value", "mean":
				stat = "avg"
			case "median":
				stat = "p50"
			}
			s.Stat[stat] = num{V: v, Set: true}
		}
		if gpu {
			// GPU telemetry: the average per GPU and metric (all fifteen
			// statistics of eight GPUs would outnumber the benchmark's
			// own figures); every statistic is kept for telemetryEnergy.
			gpus = csvTelemetryGPU(gpus, header, rec, metricCol, label, s)
			s = &aiperfStats{Unit: unit, Stat: map[string]num{"avg": s.Stat["avg"]}, used: map[string]bool{}}
		}
		if firstLine == 0 {
			firstLine = line
		}
		stats[key] = s
	}
	if len(stats) == 0 {
		return nil, errorf(name, 1, "AIPerf CSV with no metric rows")
	}
	tool := "aiperf"
	if format == FormatGenAIPerfCSV {
		tool = "genai-perf"
	}
	m := peerMatrix(tool, "")
	m.Run.SourceFormat = format
	m.Run.Title = tool + ": model not recorded in the CSV export"
	c, err := aiperfCell(name, stats, nil, nil, true, firstLine)
	if err != nil {
		return nil, err
	}
	telemetryEnergy(&m.Run, &c, tool, stats, gpus)
	m.Measurements = []schema.Measurement{c}
	return m, nil
}

// metricKey turns a display name into a figure name: lower case, each
// run of other characters than letters and digits one underscore
// ("HTTP Duration (excl. conn)" → "http_duration_excl_conn").
func metricKey(s string) string {
	var b strings.Builder
	sep := false
	for _, r := range strings.ToLower(s) {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			if sep && b.Len() > 0 {
				b.WriteByte('_')
			}
			b.WriteRune(r)
			sep = false
		} else {
			sep = true
		}
	}
	return b.String()
}

// splitUnit splits "Time to First Token (ms)" into the name and "ms".
func splitUnit(s string) (label, unit string) {
	s = strings.TrimSpace(s)
	if i := strings.LastIndexByte(s, '('); i > 0 && strings.HasSuffix(s, ")") {
		return strings.TrimSpace(s[:i]), strings.TrimSpace(s[i+1 : len(s)-1])
	}
	return s, ""
}

// csvTelemetryGPU adds a row of the CSV's GPU telemetry section (the
// statistics s of metric label of one GPU) to gpus, the GPU found by its
// Endpoint, GPU_UUID and GPU_Index cells.
func csvTelemetryGPU(gpus []telemetryGPU, header, rec []string, metricCol int, label string, s *aiperfStats) []telemetryGPU {
	g := csvGPU(header, rec, metricCol)
	i := slices.IndexFunc(gpus, func(o telemetryGPU) bool { return o.Endpoint == g.Endpoint && o.UUID == g.UUID && o.Index == g.Index })
	if i < 0 {
		g.Metrics = map[string]*aiperfStats{}
		gpus = append(gpus, g)
		i = len(gpus) - 1
	}
	gpus[i].Metrics[metricKey(label)] = s
	return gpus
}

// csvGPU returns the GPU a row of the CSV's telemetry section is of, by
// its Endpoint, GPU_UUID and GPU_Index cells.
func csvGPU(header, rec []string, metricCol int) telemetryGPU {
	cell := func(name string) string {
		i := slices.IndexFunc(header[:metricCol], func(h string) bool { return strings.EqualFold(strings.TrimSpace(h), name) })
		if i < 0 || i >= len(rec) {
			return ""
		}
		return strings.TrimSpace(rec[i])
	}
	return telemetryGPU{Endpoint: cell("endpoint"), UUID: cell("gpu_uuid"), Index: cell("gpu_index")}
}
