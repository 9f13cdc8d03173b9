package peers

import (
	"encoding/json"
	"fmt"
	"strings"

	"speedmatrix/schema"
)

// perPositionKeys are arrays of a figure per draft position that vLLM's
// bench serve writes for speculative decoding (fractions 0–1), with the
// extra name each position is kept under ("…_pos1", "…_pos2", …).
var perPositionKeys = map[string]string{
	"spec_decode_per_position_acceptance_rates": "spec_decode_acceptance_rate_pos",
}

// arrayExtras keeps what an array of a result object says, so that no
// array is dropped silently:
//   - a per-position array (perPositionKeys): each position in Extra;
//   - "errors" (--save-detailed: one message per request, "" for a
//     success): the number of requests with a message as errors_reported,
//     and the distinct messages for the run's metadata (flatResult.errors);
//   - any other array (--save-detailed's per-request ttfts, itls,
//     start_times, generated_texts…): its length as <key>_count.
//
// Note: per-request samples are not stored one by one: the file's
// statistics of them (median, mean, p99…) are already in the cell, and
// the archive holds figures per cell. The count says they were there and
// how many requests they cover.
func (f *flatResult) arrayExtras(m *schema.Measurement, key string, raw json.RawMessage) {
	var xs []json.RawMessage
	if json.Unmarshal(raw, &xs) != nil {
		return
	}
	f.used[key] = true
	if prefix, ok := perPositionKeys[key]; ok {
		for i, x := range xs {
			var n num
			if json.Unmarshal(x, &n) == nil {
				metric(m, fmt.Sprintf("%s%d", prefix, i+1), n)
			}
		}
		return
	}
	if key == "errors" {
		count := 0
		for _, x := range xs {
			var msg string
			if json.Unmarshal(x, &msg) != nil || strings.TrimSpace(msg) == "" {
				continue
			}
			count++
			f.addError(strings.TrimSpace(msg))
		}
		metric(m, "errors_reported", num{V: float64(count), Set: true})
		return
	}
	metric(m, strings.ReplaceAll(key, ".", "_")+"_count", num{V: float64(len(xs)), Set: true})
}

// addError counts one request's error message.
func (f *flatResult) addError(msg string) {
	for i := range f.errors {
		if f.errors[i].msg == msg {
			f.errors[i].n++
			return
		}
	}
	f.errors = append(f.errors, errorCount{msg: msg, n: 1})
}

// addErrors writes the distinct error messages of a result (its
// --save-detailed "errors") into the run's metadata, section "Errors",
// keyed by the line the result starts on: "3× Connection reset; 1× …".
func (f *flatResult) addErrors(r *schema.Run) {
	if len(f.errors) == 0 {
		return
	}
	parts := make([]string, len(f.errors))
	for i, e := range f.errors {
		msg := e.msg
		if len(msg) > 300 {
			msg = msg[:300] + "…"
		}
		parts[i] = fmt.Sprintf("%d× %s", e.n, msg)
	}
	addField(r, "Errors", fmt.Sprintf("line %d", f.line), strings.Join(parts, "; "))
}
