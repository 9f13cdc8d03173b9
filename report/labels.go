package report

import (
	"strings"

	"speedmatrix/schema"
)

// Labels names runs for notes and legends: what tells them apart among
// GPU (first three words) and quantization, then engine, model and the
// configuration a title names, else a run-id prefix.
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
		func(r *schema.Run) string { return strings.TrimSpace(r.Engine + " " + r.EngineVersion) },
		func(r *schema.Run) string { return r.Model },
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
	if len(use) > 0 && distinct(ms, use) {
		for i, m := range ms {
			out[i] = label(&m.Run, use)
		}
		return out
	}
	for i, m := range ms {
		out[i] = m.Run.RunID
		if len(out[i]) > 8 {
			out[i] = out[i][:8]
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
