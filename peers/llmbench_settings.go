package peers

import (
	"encoding/json"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"speedmatrix/schema"
)

// llmBenchMetaRead are the metadata keys of llm_decode_bench.py that
// land in columns or fields of their own (llmBenchMeta); the lists of
// the grid are in the cells.
var llmBenchMetaRead = []string{"version", "engine", "model", "server", "timestamp", "duration_per_test", "max_tokens",
	"max_total_tokens", "kv_budget", "concurrency_levels", "context_lengths", "gpu", "quantization", "engine_version"}

// llmBenchEngineLine finds the engine and its version in the tool's
// event log ("08:28:27 startup engine vLLM 0.1.dev1+g57a80980b models=[…]").
var llmBenchEngineLine = regexp.MustCompile(`\bstartup engine (\S+) (\S+)`)

// llmBenchSettings keeps what an llm_decode_bench.py file says of its
// run beside the columns, so that nothing it records is dropped:
//   - every other scalar of metadata (decode_mode, prefill_mode,
//     ignore_eos, temperature, dcp_size, the burst and warm-up settings…)
//     and the scalars of its objects (loop_detection.enabled…) → run
//     metadata, section "Settings";
//   - a harness's object of scalars at the top level (run_metadata:
//     campaign, variant, repetition, image…) → a section of its own name;
//   - the engine version the event log names at start-up, when metadata
//     has none (0.4.x) → engine_version.
func llmBenchSettings(r *schema.Run, b []byte) {
	var top map[string]json.RawMessage
	if json.Unmarshal(b, &top) != nil {
		return
	}
	var md map[string]json.RawMessage
	if json.Unmarshal(top["metadata"], &md) == nil {
		for _, k := range slices.Sorted(maps.Keys(md)) {
			if slices.Contains(llmBenchMetaRead, k) {
				continue
			}
			if v, ok := scalarText(md[k]); ok {
				addField(r, "Settings", k, v)
				continue
			}
			// An object of settings (0.7's loop_detection): its scalars,
			// named key.sub.
			var sub map[string]json.RawMessage
			if json.Unmarshal(md[k], &sub) == nil {
				for _, sk := range slices.Sorted(maps.Keys(sub)) {
					if v, ok := scalarText(sub[sk]); ok {
						addField(r, "Settings", k+"."+sk, v)
					}
				}
			}
		}
	}
	for _, sec := range slices.Sorted(maps.Keys(top)) {
		var obj map[string]json.RawMessage
		if sec == "metadata" || json.Unmarshal(top[sec], &obj) != nil || len(obj) == 0 {
			continue
		}
		scalars := true
		for _, v := range obj {
			if _, ok := scalarText(v); !ok {
				scalars = false
				break
			}
		}
		if !scalars || sec == "hardware_run_summary" || sec == "summary_table" || sec == "burst_summary_table" {
			continue
		}
		for _, k := range slices.Sorted(maps.Keys(obj)) {
			v, _ := scalarText(obj[k])
			addField(r, sec, k, v)
		}
	}
	var log []string
	if r.EngineVersion == "" && json.Unmarshal(top["event_log"], &log) == nil {
		for _, l := range log {
			if m := llmBenchEngineLine.FindStringSubmatch(l); m != nil {
				r.EngineVersion = m[2]
				if r.Engine == "" {
					r.Engine = strings.ToLower(m[1])
				}
				break
			}
		}
	}
}

// scalarText returns a JSON scalar as text ("" for null, strings
// unquoted); ok is false for objects and arrays.
func scalarText(raw json.RawMessage) (string, bool) {
	t := strings.TrimSpace(string(raw))
	if t == "" || t[0] == '{' || t[0] == '[' {
		return "", false
	}
	if t == "null" {
		return "", true
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s, true
	}
	return t, true
}

// llmBenchCellNotes keeps what a cell says besides its numbers: each
// flag (capacity_limited, underfilled, warmup_timed_out, loop_detected…)
// as extra <key>_flag, 1 for true and 0 for false; each non-empty text
// (aggregate_source, ready_reason, timeout_reason…) in the run's metadata,
// section "Cells", keyed by the text's name and the cell ("aggregate_source
// C=4 ctx=16384").
func llmBenchCellNotes(m *schema.Matrix, row *schema.Measurement, raw map[string]json.RawMessage) {
	cell := ""
	if row.Concurrency != nil && row.ContextTokens != nil {
		cell = " C=" + strconv.Itoa(int(*row.Concurrency)) + " ctx=" + strconv.FormatInt(*row.ContextTokens, 10)
	}
	for _, k := range slices.Sorted(maps.Keys(raw)) {
		switch t := strings.TrimSpace(string(raw[k])); {
		case t == "true" || t == "false":
			v := 0.0
			if t == "true" {
				v = 1
			}
			row.Extra = append(row.Extra, schema.Metric{Name: k + "_flag", Value: v})
		case strings.HasPrefix(t, `"`) && k != "failure_reason":
			if v, _ := scalarText(raw[k]); v != "" {
				addField(&m.Run, "Cells", k+cell, v)
			}
		}
	}
}

// foldCellNotes writes a cell text that every noted cell shares once,
// under the text's name (section "Cells", "aggregate_source" =
// "openai_continuous_usage"), instead of once per cell.
func foldCellNotes(r *schema.Run) {
	values := map[string]map[string]int{}
	for _, f := range r.Metadata {
		if f.Section != "Cells" {
			continue
		}
		name, _, _ := strings.Cut(f.Key, " C=")
		if values[name] == nil {
			values[name] = map[string]int{}
		}
		values[name][f.Value]++
	}
	kept := r.Metadata[:0]
	done := map[string]bool{}
	for _, f := range r.Metadata {
		name, _, _ := strings.Cut(f.Key, " C=")
		if f.Section != "Cells" || len(values[name]) != 1 {
			kept = append(kept, f)
			continue
		}
		if !done[name] {
			done[name] = true
			kept = append(kept, schema.Field{Section: "Cells", Key: name, Value: f.Value})
		}
	}
	r.Metadata = kept
}
