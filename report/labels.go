package report

import (
	"strings"

	"speedmatrix/schema"
)

// Labels names runs for notes and legends: what tells them apart among
// GPU (first three words) and quantization, then engine, model, bench
// tool and the configuration a title names. Runs those leave alike (two
// files of one provider and model) keep that name with a run-id prefix
// after it; a run none of them names is its run-id prefix.
func Labels(ms []*schema.Matrix) []string {
	short := func(s string) string {
		f := strings.Fields(s)
		if len(f) > 3 {
			f = f[:3]
		}
		out := strings.Join(f, " ")
		// "simulated (Ling-3.0-tiny on" reads cut: keep what precedes an
		// unclosed parenthesis.
		if i := strings.LastIndex(out, "("); i > 0 && !strings.Contains(out[i:], ")") {
			out = strings.TrimSpace(out[:i])
		}
		return out
	}
	fields := []func(*schema.Run) string{
		func(r *schema.Run) string { return short(r.GPU) },
		func(r *schema.Run) string { return r.Quantization },
		func(r *schema.Run) string { return strings.TrimSpace(r.Engine + " " + shortVersion(r.EngineVersion)) },
		func(r *schema.Run) string { return r.Model },
		// The same model measured by two tools (vLLM's bench serve and
		// genai-bench) differs in nothing else.
		func(r *schema.Run) string { return r.BenchTool },
		// The whole version, when only the build shortVersion cut tells
		// runs apart.
		func(r *schema.Run) string {
			if shortVersion(r.EngineVersion) == r.EngineVersion {
				return ""
			}
			return strings.TrimSpace(r.Engine + " " + r.EngineVersion)
		},
		// A tool's file split into runs by configuration: the title ends
		// with what sets the run apart, "(deployment=kvcache)".
		func(r *schema.Run) string {
			if i := strings.LastIndex(r.Title, " ("); i >= 0 && strings.HasSuffix(r.Title, ")") {
				return r.Title[i+2 : len(r.Title)-1]
			}
			return ""
		},
	}
	var use []func(*schema.Run) string
	for i, f := range fields {
		vals := map[string]bool{}
		for _, m := range ms {
			vals[f(&m.Run)] = true
		}
		if len(vals) > 1 {
			use = append(use, f)
		}
		// GPU and quantization are always named when they differ; the
		// engine and the model only when still needed to tell runs apart.
		if i >= 1 && len(use) > 0 && distinct(ms, use) {
			break
		}
	}
	out := make([]string, len(ms))
	for i, m := range ms {
		out[i] = label(&m.Run, use)
	}
	if len(use) > 0 && distinct(ms, use) {
		return out
	}
	// Note: a name shared by several runs (or none) gets the run-id
	// prefix, the rest keep what tells them apart: "groq llama2-70b" beside
	// "replicate llama-2-70b-chat (31caec0e)", never four bare run ids.
	count := map[string]int{}
	for _, l := range out {
		count[l]++
	}
	for i, m := range ms {
		id := m.Run.RunID
		if len(id) > 8 {
			id = id[:8]
		}
		switch {
		case out[i] == "":
			out[i] = id
		case count[out[i]] > 1:
			out[i] += " (" + id + ")"
		}
	}
	if len(ms) > 0 && !distinctStrings(out) {
		for i, m := range ms {
			out[i] = m.Run.RunID
		}
	}
	return out
}

func label(r *schema.Run, use []func(*schema.Run) string) string {
	var parts []string
	for _, f := range use {
		if v := f(r); v != "" {
			parts = append(parts, v)
		}
	}
	return strings.Join(parts, " ")
}

func distinct(ms []*schema.Matrix, use []func(*schema.Run) string) bool {
	ls := make([]string, len(ms))
	for i, m := range ms {
		ls[i] = label(&m.Run, use)
		if ls[i] == "" {
			return false
		}
	}
	return distinctStrings(ls)
}

func distinctStrings(ss []string) bool {
	seen := map[string]bool{}
	for _, s := range ss {
		if seen[s] {
			return false
		}
		seen[s] = true
	}
	return true
}

// shortVersion cuts a version at its local part and development build
// ("0.27.2rc1.dev113+g5cecfc013" → "0.27.2rc1"): the full string made every
// legend and sentence naming a run three times as long. Runs told apart by
// the build alone are named with it (Labels).
func shortVersion(v string) string {
	if i := strings.IndexByte(v, '+'); i > 0 {
		v = v[:i]
	}
	if i := strings.Index(v, ".dev"); i > 0 {
		v = v[:i]
	}
	return v
}
