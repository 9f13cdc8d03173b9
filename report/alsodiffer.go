package report

import (
	"slices"
	"strconv"
	"strings"

	"speedmatrix/schema"
)

// runFields are the metadata fields AlsoDiffer compares: what could
// explain a difference in speed besides the setups a label names.
var runFields = []struct {
	name string
	get  func(*schema.Run) string
}{
	{"GPU", func(r *schema.Run) string { return r.GPU }},
	{"GPU count", func(r *schema.Run) string { return optInt32(r.GPUCount) }},
	{"quantization", func(r *schema.Run) string { return r.Quantization }},
	{"engine", func(r *schema.Run) string { return r.Engine }},
	{"engine version", func(r *schema.Run) string { return r.EngineVersion }},
	{"backend", func(r *schema.Run) string { return r.Backend }},
	{"model", func(r *schema.Run) string { return r.Model }},
	{"bench tool", func(r *schema.Run) string { return r.BenchTool }},
	{"bench tool version", func(r *schema.Run) string { return r.BenchVersion }},
	{"tensor parallel", func(r *schema.Run) string { return optInt32(r.TensorParallel) }},
	{"max model len", func(r *schema.Run) string { return optInt64(r.MaxModelLen) }},
	{"max output tokens", func(r *schema.Run) string { return optInt64(r.MaxOutputTokens) }},
	{"decode test", func(r *schema.Run) string { return r.DecodeTest }},
	{"prefill mode", func(r *schema.Run) string { return r.PrefillMode }},
	{"endpoint", func(r *schema.Run) string { return r.Endpoint }},
}

func optInt32(p *int32) string {
	if p == nil {
		return ""
	}
	return strconv.Itoa(int(*p))
}

func optInt64(p *int64) string {
	if p == nil {
		return ""
	}
	return strconv.FormatInt(*p, 10)
}

// maxDiffValues is how many distinct values of one field AlsoDiffer
// names before "…".
const maxDiffValues = 4

// AlsoDiffer returns the line "These runs also differ in: engine version
// (0.27.2rc1 vs 0.30.1rc1), …" naming the metadata fields whose values
// differ among runs beyond those the default labels (Labels) name, each
// with its values in run order ("not recorded" for an empty one); "" when
// no other field differs. A field a label names only in part (the GPU's
// first words) counts as named.
func AlsoDiffer(runs []*schema.Run) string {
	if len(runs) < 2 {
		return ""
	}
	named := map[string]bool{}
	for _, fi := range labelUse(runs) {
		for _, c := range labelFields[fi].covers {
			named[c] = true
		}
	}
	var parts []string
	for _, f := range runFields {
		if named[f.name] {
			continue
		}
		var vals []string
		for _, r := range runs {
			v := f.get(r)
			if v == "" {
				v = "not recorded"
			}
			if !slices.Contains(vals, v) {
				vals = append(vals, v)
			}
		}
		if len(vals) < 2 {
			continue
		}
		sep := ", "
		if len(runs) == 2 {
			sep = " vs "
		}
		if len(vals) > maxDiffValues {
			vals = append(vals[:maxDiffValues], "…")
		}
		parts = append(parts, f.name+" ("+strings.Join(vals, sep)+")")
	}
	if len(parts) == 0 {
		return ""
	}
	return "These runs also differ in: " + strings.Join(parts, ", ") + "."
}
