package peers

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
)

// containsAfter is bytes.Contains(b, pre+rest) that searches for rest
// and checks that pre precedes it: rest should begin with a byte that
// documents hold less often than pre's first.
//
// Note: bytes.Index stops wherever its needle's first byte occurs, and
// falls back to a slower scan when those stops fail too often: a needle
// beginning with "\n", "r" or "S" costs a seed document 1–3 µs, the same
// from "B" or "_" 0.3–0.7 µs (one run of each). Detect reads every
// text document for four such needles ("Best Configurations",
// "benchmarks:", "request_performance:", "Serving Benchmark Result"):
// `parse.test -test.run XXX -test.bench 'DetectPeer$' -test.benchtime
// 100000x`, 5 interleaved rounds on a loaded machine, 10.9 → 2.0 µs for
// seed 000, 8.7 → 1.7 for 001.
func containsAfter(b []byte, pre string, rest []byte) bool {
	for off := 0; off <= len(b); {
		i := bytes.Index(b[off:], rest)
		if i < 0 {
			return false
		}
		at := off + i
		if at >= len(pre) && string(b[at-len(pre):at]) == pre {
			return true
		}
		off = at + 1
	}
	return false
}

// Detect tells which other tool wrote b, from its content. It returns
// "" when b is not JSON, JSON Lines or the CSV or YAML of a tool it
// reads, and an error when it is a file of a tool speedmatrix names but
// does not read, or JSON of no tool speedmatrix reads.
//
// The tools' shapes (each tool's reader lists its own; registry.go) are
// tried in rank order: first those recognised by their text, then, for
// JSON, those recognised by the keys of its first object.
func Detect(b []byte) (string, error) {
	t := bytes.TrimLeft(b, "\ufeff \t\r\n")
	for _, d := range detection {
		if d.shape.text != nil && d.shape.text(t) {
			if d.shape.refuse != "" {
				return "", errors.New(d.shape.refuse)
			}
			return d.format, nil
		}
	}
	if len(t) == 0 || (t[0] != '{' && t[0] != '[') {
		if r := benchmarkReport(t); r != "" {
			return "", errors.New(r)
		}
		if r := csvTable(t); r != "" {
			return "", errors.New(r)
		}
		if r := consoleSummary(t); r != "" {
			return "", errors.New(r)
		}
		if r := llmDecodeBenchConsole(t); r != "" {
			return "", errors.New(r)
		}
		if r := markdownTable(t); r != "" {
			return "", errors.New(r)
		}
		return "", nil
	}
	keys, err := firstObjectKeys(t)
	if err != nil {
		return "", err
	}
	for _, d := range detection {
		if d.shape.text == nil && d.shape.keys.matches(keys, t) {
			if d.shape.refuse != "" {
				return "", errors.New(d.shape.refuse)
			}
			return d.format, nil
		}
	}
	names := make([]string, 0, len(keys))
	for k := range keys {
		names = append(names, k)
	}
	sort.Strings(names)
	if len(names) > 8 {
		names = append(names[:8], "…")
	}
	if r := firstNonEmpty(resemblance(keys), keyedResemblance(t)); r != "" {
		return "", fmt.Errorf("JSON of no benchmark tool speedmatrix reads (keys: %s); %s", strings.Join(names, ", "), r)
	}
	return "", fmt.Errorf("JSON of no benchmark tool speedmatrix reads (keys: %s)", strings.Join(names, ", "))
}

// isStatsBlock reports whether raw is an AIPerf/GenAI-Perf metric block:
// an object with a unit and at least one statistic.
func isStatsBlock(raw json.RawMessage) bool {
	if len(raw) == 0 || raw[0] != '{' {
		return false
	}
	return bytes.Contains(raw, []byte(`"unit"`)) || bytes.Contains(raw, []byte(`"avg"`))
}

// firstObjectKeys decodes the first JSON object of t (the object itself,
// the first element of an array, or the first line of JSON Lines) into
// its top-level keys.
func firstObjectKeys(t []byte) (map[string]json.RawMessage, error) {
	t = sanitizeJSON(t)
	dec := json.NewDecoder(bytes.NewReader(t))
	if t[0] == '[' {
		var arr []json.RawMessage
		if err := json.Unmarshal(t, &arr); err != nil {
			return nil, err
		}
		if len(arr) == 0 {
			return nil, fmt.Errorf("an empty array")
		}
		t = arr[0]
		dec = json.NewDecoder(bytes.NewReader(t))
	}
	var keys map[string]json.RawMessage
	if err := dec.Decode(&keys); err != nil {
		return nil, err
	}
	return keys, nil
}
