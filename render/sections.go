package render

import (
	"slices"
	"strconv"
	"strings"
	"time"

	"speedmatrix/docspec"
	"speedmatrix/schema"
)

// section is one key/value section (Hardware, Engine, Run, …).
type section struct {
	Name   string
	Fields []schema.KV
}

// metadataSections groups printed pairs by section, keeping their order.
func metadataSections(fs []schema.Field) []section {
	var out []section
	for _, f := range fs {
		if len(out) == 0 || out[len(out)-1].Name != f.Section {
			out = append(out, section{Name: f.Section})
		}
		s := &out[len(out)-1]
		s.Fields = append(s.Fields, schema.KV{Key: f.Key, Value: f.Value})
	}
	return out
}

// mergeSections adds the pairs of extra that base does not hold (by
// section and key) to the section of base with their section's name, or
// to a section of their own after them.
func mergeSections(base, extra []section) []section {
	has := map[[2]string]bool{}
	for _, s := range base {
		for _, f := range s.Fields {
			has[[2]string{s.Name, f.Key}] = true
		}
	}
	for _, e := range extra {
		i := slices.IndexFunc(base, func(s section) bool { return s.Name == e.Name })
		if i < 0 {
			base = append(base, section{Name: e.Name})
			i = len(base) - 1
		}
		for _, f := range e.Fields {
			if !has[[2]string{e.Name, f.Key}] {
				has[[2]string{e.Name, f.Key}] = true
				base[i].Fields = append(base[i].Fields, f)
			}
		}
	}
	return slices.DeleteFunc(base, func(s section) bool { return len(s.Fields) == 0 })
}

// fieldSections builds the Hardware, Engine and Run sections from the
// run's fields, for a matrix that has no printed pairs (one made by a
// measuring run), with the keys the seeds use and, after them, the
// measuring run's own facts.
func fieldSections(r *schema.Run) []section {
	var hw, eng, run, srv section
	hw.Name, eng.Name, run.Name, srv.Name = secHardware, secEngine, secRun, secServer
	add := func(s *section, k, v string) {
		if v != "" {
			s.Fields = append(s.Fields, schema.KV{Key: k, Value: v})
		}
	}
	add(&hw, "Type", r.HardwareType)
	add(&hw, "GPU", r.GPU)
	if r.GPUCount != nil {
		add(&hw, "GPU count", FormatCount(int64(*r.GPUCount)))
	}
	if r.VRAMGB != nil {
		add(&hw, "VRAM", FormatDecimal(*r.VRAMGB, 0)+" GB")
	}
	add(&hw, "OS", r.OS)

	add(&eng, "Engine", r.Engine)
	add(&eng, "Version", r.EngineVersion)
	add(&eng, "Quantization", r.Quantization)
	add(&eng, "Backend", r.Backend)
	add(&eng, "Repository", r.EngineRepository)
	add(&eng, "Build", r.Build)
	add(&eng, "Commit", r.EngineCommit)

	add(&run, "Served model", r.ServedModel)
	add(&run, "Revision", r.Revision)
	tool := r.BenchTool
	if r.BenchVersion != "" {
		ver := r.BenchVersion
		if ver[0] >= '0' && ver[0] <= '9' {
			ver = "v" + ver
		}
		tool = strings.TrimSpace(tool + " " + ver)
	}
	add(&run, "Benchmark tool", tool)
	add(&run, "Decode test", r.DecodeTest)
	add(&run, "Prefill mode", r.PrefillMode)
	if r.MeasureSeconds != nil {
		add(&run, "Time per measurement", FormatDecimal(*r.MeasureSeconds, 0)+" s")
	}
	if r.MaxOutputTokens != nil {
		add(&run, "Max output", FormatCount(*r.MaxOutputTokens)+" tokens")
	}
	add(&run, "Dataset", r.Dataset)
	add(&run, "Endpoint", r.Endpoint)
	add(&run, "Server URL", r.ServerURL)
	add(&run, "Host", r.Host)
	add(&run, "Client version", r.ClientVersion)
	if r.StartedAt != nil {
		add(&run, "Started", r.StartedAt.UTC().Format(time.RFC3339Nano))
	}
	if r.FinishedAt != nil {
		add(&run, "Finished", r.FinishedAt.UTC().Format(time.RFC3339Nano))
	}
	if r.KVBudgetTokens != nil {
		add(&run, "KV budget", FormatCount(*r.KVBudgetTokens)+" tokens")
	}
	add(&run, "Power source", r.PowerSource)
	if r.IdlePowerW != nil {
		add(&run, "Idle power", strconv.FormatFloat(*r.IdlePowerW, 'f', -1, 64)+" W")
	}

	// Note: a reader takes these from the launch command too, but a
	// measuring run may know them from the server itself (/v1/models
	// gives max_model_len; a command need not name the model or its
	// limits), so each is printed unless the printed launch command
	// already says the same. Package parse lets a printed pair win.
	var l docspec.Launch
	if r.LaunchCommand != "" {
		l = docspec.ParseLaunch(r.LaunchCommand)
	}
	if r.ModelID != l.ModelID {
		add(&srv, "Model id", r.ModelID)
	}
	if r.TensorParallel != nil && !samePtr(r.TensorParallel, l.TensorParallel) {
		add(&srv, "Tensor parallel", FormatCount(int64(*r.TensorParallel)))
	}
	if r.MaxModelLen != nil && !samePtr(r.MaxModelLen, l.MaxModelLen) {
		add(&srv, "Max model length", FormatCount(*r.MaxModelLen)+" tokens")
	}
	if r.GPUMemoryUtilization != nil && !samePtr(r.GPUMemoryUtilization, l.GPUMemoryUtilization) {
		add(&srv, "GPU memory utilization", strconv.FormatFloat(*r.GPUMemoryUtilization, 'f', -1, 64))
	}
	var out []section
	for _, s := range []section{hw, eng, run, srv} {
		if len(s.Fields) > 0 {
			out = append(out, s)
		}
	}
	return out
}

// samePtr reports whether two optional values are both set and equal.
func samePtr[T comparable](a, b *T) bool { return a != nil && b != nil && *a == *b }
