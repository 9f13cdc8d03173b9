package parse

import (
	"encoding/json"
	"maps"
	"regexp"
	"slices"
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
