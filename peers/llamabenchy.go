package peers

import (
	"bytes"

	"speedmatrix/schema"
)

// FormatLlamaBenchy is the Markdown table of llama-benchy (eugr/llama-benchy),
// a llama-bench-style benchmark of an OpenAI-compatible server: pp<N> and
// tg<N> at depths, with the time to first response and to first token.
const FormatLlamaBenchy = "llama-benchy"

// llamaBenchyReader reads llama-benchy's Markdown table, its JSON and CSV
// (llamabenchy_json.go), and names its
// progress JSON Lines (--progress-file: one event per request and token,
// no summary figures).
var llamaBenchyReader = reader{
	format: FormatLlamaBenchy,
	parse: func(b []byte, name string) ([]*schema.Matrix, error) {
		switch t := trimLead(b); {
		case looksLlamaBenchyCSV(t):
			return llamaBenchyCSV(b, name)
		case len(t) > 0 && t[0] == '{':
			return llamaBenchyJSON(b, name)
		}
		ms, err := llamaBenchMarkdown(b, name)
		if err != nil {
			return nil, err
		}
		for _, m := range ms {
			m.Run.SourceFormat = FormatLlamaBenchy
		}
		return ms, nil
	},
	shapes: []shape{
		{rank: 63, text: looksLlamaBenchyMarkdown},
		{rank: 65, text: looksLlamaBenchyCSV},
		{rank: 96, keys: signature{all: []string{"version", "benchmarks"}, any: []string{"latency_mode", "prefix_caching_enabled", "max_concurrency"}}},
		{rank: 64, text: looksLlamaBenchyProgress, refuse: "llama-benchy's progress JSON Lines (schema llama-benchy-progress.v1: one event per request and per streamed token, no summary figures): speedmatrix reads the Markdown table llama-benchy prints (or saves with --save-result) for the same run"},
	},
}

// looksLlamaBenchyProgress reports whether t is llama-benchy's progress
// file: JSON Lines whose first line names the schema and its version.
func looksLlamaBenchyProgress(t []byte) bool {
	if len(t) == 0 || t[0] != '{' {
		return false
	}
	line, _, _ := bytes.Cut(t, []byte("\n"))
	return bytes.Contains(line, []byte(`"llama-benchy-progress`)) || bytes.Contains(line, []byte(`"llama_benchy_version"`))
}
