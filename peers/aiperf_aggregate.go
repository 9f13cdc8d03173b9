package peers

import (
	"bytes"
	"encoding/json"
	"maps"
	"slices"
	"strings"

	"speedmatrix/schema"
)

// isAIPerfAggregate reports whether the top-level keys are those of an
// AIPerf aggregate across runs: a sweep (profile_export_aiperf_sweep.json,
// per_combination_metrics) or the confidence report of repeated runs
// (profile_export_aiperf_aggregate.json, metadata.aggregation_type and
// metrics).
func isAIPerfAggregate(keys map[string]json.RawMessage) bool {
	if _, ok := keys["per_combination_metrics"]; ok {
		return true
	}
	_, metrics := keys["metrics"]
	return metrics && bytes.Contains(keys["metadata"], []byte(`"aggregation_type"`))
}

// aiperfAggregate is what speedmatrix reads of an AIPerf aggregate file.
type aiperfAggregate struct {
	AggregationType   string          `json:"aggregation_type"`
	AIPerfVersion     string          `json:"aiperf_version"`
	NumProfileRuns    num             `json:"num_profile_runs"`
	NumSuccessfulRuns num             `json:"num_successful_runs"`
	FailedRuns        json.RawMessage `json:"failed_runs"`
	Metadata          struct {
		AggregationType   string          `json:"aggregation_type"`
		NumProfileRuns    num             `json:"num_profile_runs"`
		NumSuccessfulRuns num             `json:"num_successful_runs"`
		FailedRuns        json.RawMessage `json:"failed_runs"`
		ConfidenceLevel   num             `json:"confidence_level"`
		TrialsPerValue    num             `json:"num_trials_per_value"`
		SweepMode         string          `json:"sweep_mode"`
		VariationLabel    string          `json:"variation_label"`
		VariationValues   map[string]num  `json:"variation_values"`
		RunLabels         []string        `json:"run_labels"`
	} `json:"metadata"`
	Combinations []struct {
		Parameters map[string]num                        `json:"parameters"`
		Metrics    map[string]map[string]json.RawMessage `json:"metrics"`
	} `json:"per_combination_metrics"`
	Metrics map[string]map[string]json.RawMessage `json:"metrics"`
}

// parseAIPerfAggregate reads an AIPerf aggregate across runs into one
// serve cell per combination (a sweep) or one cell (the confidence report
// of --num-profile-runs). Each figure is the mean across the runs:
//   - a sweep of one trial per value holds each metric block whole
//     (avg, p1…p99, min, max, count, sum of the requests) beside the
//     statistics across runs (mean, std, cv, ci_low, ci_high): the block
//     is read as a single run's, the statistics across runs go to extra
//     as <metric>_trials_<stat> (durations with _ms);
//   - a confidence report or a sweep of several trials holds flat
//     "<metric>_<stat>" keys ("time_to_first_token_p99", older
//     "ttft_p99_ms") each with {mean, std, min, max, cv, se, ci_low,
//     ci_high, t_critical}: the mean is the statistic's value, the rest go
//     to extra as <metric>_<stat>_trials_<x>.
//
// The load comes from the combination's parameters (concurrency,
// request_rate; dotted paths such as phases.profiling.concurrency); other
// numeric parameters go to extra as sweep_<name>. The files name no
// model: the run says "model not recorded" and the per-run exports
// (profile_export_aiperf.json of each combination) carry it.
func parseAIPerfAggregate(b []byte, name string) (*schema.Matrix, error) {
	var agg aiperfAggregate
	if err := json.Unmarshal(b, &agg); err != nil {
		return nil, jsonError(name, b, 1, err)
	}
	md := agg.Metadata
	kind := firstNonEmpty(agg.AggregationType, md.AggregationType)
	m := peerMatrix("aiperf", agg.AIPerfVersion)
	m.Run.SourceFormat = FormatAIPerf
	m.Run.Title = "aiperf: model not recorded (" + firstNonEmpty(kind, "aggregate") + " aggregate)"
	addField(&m.Run, "Aggregate", "Type", kind)
	addField(&m.Run, "Aggregate", "Sweep mode", md.SweepMode)
	addField(&m.Run, "Aggregate", "Variation", md.VariationLabel)
	addField(&m.Run, "Aggregate", "Runs", strings.Join(md.RunLabels, ", "))
	if fr := firstNonEmptyRaw(agg.FailedRuns, md.FailedRuns); len(fr) > 0 && !bytes.Equal(bytes.TrimSpace(fr), []byte("[]")) {
		addField(&m.Run, "Aggregate", "Failed runs", string(bytes.TrimSpace(fr)))
	}
	runs := firstSet(agg.NumProfileRuns, md.NumProfileRuns)
	ok := firstSet(agg.NumSuccessfulRuns, md.NumSuccessfulRuns)
	type combo struct {
		params  map[string]num
		metrics map[string]map[string]json.RawMessage
	}
	var combos []combo
	for _, c := range agg.Combinations {
		combos = append(combos, combo{c.Parameters, c.Metrics})
	}
	if len(agg.Combinations) == 0 {
		combos = append(combos, combo{md.VariationValues, agg.Metrics})
	}
	lines := occurrenceLines(b, `"metrics"`)
	if len(agg.Combinations) == 0 && len(lines) > 0 {
		lines = lines[len(lines)-1:]
	}
	for i, co := range combos {
		if len(co.metrics) == 0 {
			return nil, errorf(name, 1, "AIPerf %s aggregate without metrics", firstNonEmpty(kind, ""))
		}
		line := 1
		if i < len(lines) {
			line = lines[i]
		}
		var conc, rate num
		var other []schema.Metric
		for _, k := range slices.Sorted(maps.Keys(co.params)) {
			switch leaf := k[strings.LastIndex(k, ".")+1:]; leaf {
			case "concurrency":
				conc = co.params[k]
			case "request_rate", "rate":
				rate = co.params[k]
			default:
				if v := co.params[k]; v.Set {
					other = append(other, schema.Metric{Name: "sweep_" + metricKey(leaf), Value: v.V})
				}
			}
		}
		stats, trials := aggregateStats(co.metrics)
		c, err := aiperfCell(name, stats, i32(conc), rate.ptr(), true, line)
		if err != nil {
			return nil, err
		}
		c.Extra = append(c.Extra, other...)
		c.Extra = append(c.Extra, trials...)
		metric(&c, "aggregate_runs", runs)
		metric(&c, "aggregate_successful_runs", ok)
		metric(&c, "aggregate_trials_per_value", md.TrialsPerValue)
		metric(&c, "aggregate_confidence_level", md.ConfidenceLevel)
		m.Measurements = append(m.Measurements, c)
	}
	if err := numberRepeats(name, m.Measurements); err != nil {
		return nil, err
	}
	return m, nil
}

// trialStats are the statistics an AIPerf aggregate computes across runs
// (never across the requests of one run).
var trialStats = []string{"mean", "std", "cv", "se", "ci_low", "ci_high", "t_critical", "min", "max"}

// aggregateStats turns an aggregate's metric blocks into the per-run
// metric blocks aiperfCell reads (each statistic's value the mean across
// runs) and the statistics across runs, kept as extra figures.
func aggregateStats(metrics map[string]map[string]json.RawMessage) (map[string]*aiperfStats, []schema.Metric) {
	stats := map[string]*aiperfStats{}
	var trials []schema.Metric
	get := func(blk map[string]json.RawMessage, k string) num {
		var n num
		_ = json.Unmarshal(blk[k], &n)
		return n
	}
	block := func(tag, unit string) *aiperfStats {
		if long, ok := aiperfShortTags[tag]; ok {
			tag = long
		}
		s := stats[tag]
		if s == nil {
			s = &aiperfStats{Unit: unit, Stat: map[string]num{}, used: map[string]bool{}}
			stats[tag] = s
		}
		return s
	}
	for _, key := range slices.Sorted(maps.Keys(metrics)) {
		blk := metrics[key]
		var unit string
		_ = json.Unmarshal(blk["unit"], &unit)
		suffix := func(stat string) string {
			if isTimeUnit(unit) && stat != "cv" && stat != "t_critical" {
				return stat + "_ms"
			}
			return stat
		}
		scale := unitToMs(unit)
		_, whole := blk["avg"]
		if tag, stat, ok := splitStatKey(key); ok && !whole {
			// Flat "<metric>_<stat>": the mean across runs is the value.
			if strings.HasSuffix(key, "_ms") {
				unit = firstNonEmpty(unit, "ms")
			}
			s := block(tag, unit)
			s.Stat[stat] = get(blk, "mean")
			for _, ts := range trialStats[1:] {
				if v := get(blk, ts); v.Set {
					if ts != "cv" && ts != "t_critical" && isTimeUnit(unit) {
						v.V *= unitToMs(unit)
					}
					trials = append(trials, schema.Metric{Name: metricKeyOf(tag) + "_" + stat + "_trials_" + suffix(ts), Value: v.V})
				}
			}
			continue
		}
		// A whole block of one run (a sweep of one trial per value). Its
		// min and max are the requests' when the block has a distribution
		// (percentiles, count), else the runs' (a throughput has one value
		// per run).
		_, perRequest := blk["count"]
		across := []string{"std", "cv", "se", "ci_low", "ci_high", "t_critical"}
		if !perRequest {
			across = append(across, "min", "max")
		}
		s := block(key, unit)
		for st, raw := range blk {
			if st == "unit" || st == "mean" || slices.Contains(across, st) {
				continue
			}
			var n num
			if json.Unmarshal(raw, &n) == nil && n.Set {
				s.Stat[st] = n
			}
		}
		for _, ts := range across {
			if v := get(blk, ts); v.Set {
				if ts != "cv" && ts != "t_critical" {
					v.V *= scale
				}
				trials = append(trials, schema.Metric{Name: metricKeyOf(key) + "_trials_" + suffix(ts), Value: v.V})
			}
		}
	}
	return stats, trials
}

// metricKeyOf returns the long name of an AIPerf metric tag.
func metricKeyOf(tag string) string {
	if long, ok := aiperfShortTags[tag]; ok {
		return long
	}
	return tag
}

// splitStatKey splits a flat aggregate key into its metric and statistic:
// "time_to_first_token_p99" → ("time_to_first_token", "p99"),
// "request_throughput_avg" → ("request_throughput", "avg"), the older
// "ttft_p99_ms" → ("ttft", "p99").
func splitStatKey(key string) (tag, stat string, ok bool) {
	k := strings.TrimSuffix(key, "_ms")
	i := strings.LastIndex(k, "_")
	if i <= 0 {
		return "", "", false
	}
	tag, stat = k[:i], k[i+1:]
	switch {
	case stat == "avg" || stat == "min" || stat == "max" || stat == "std" || stat == "sum" || stat == "count":
	case len(stat) > 1 && stat[0] == 'p' && strings.Trim(stat[1:], "0123456789") == "":
	default:
		return "", "", false
	}
	return tag, stat, true
}

// occurrenceLines returns the line of each occurrence of s in b.
func occurrenceLines(b []byte, s string) []int {
	var out []int
	for off := 0; ; {
		i := bytes.Index(b[off:], []byte(s))
		if i < 0 {
			return out
		}
		out = append(out, lineAt(b, int64(off+i)))
		off += i + len(s)
	}
}

// firstNonEmptyRaw returns the first of raws that holds something.
func firstNonEmptyRaw(raws ...json.RawMessage) json.RawMessage {
	for _, r := range raws {
		if len(bytes.TrimSpace(r)) > 0 && string(bytes.TrimSpace(r)) != "null" {
			return r
		}
	}
	return nil
}
