package report

import (
	"cmp"
	"context"
	"slices"
	"strconv"
	"strings"
	"time"

	"speedmatrix/schema"
)

// Filling a listing's blank columns: many result files of other tools
// name no GPU, engine or quantization in the fields the parsers map to
// columns, but their metadata or the model's name does (vLLM's bench
// serve writes the engine as "backend"; a model named …-FP8 is FP8). The
// archive keeps the run as read (its run id hashes its columns); the
// listing fills its cells at read time.

// Blank reports whether the GPU, engine or quantization is blank: the
// columns worth reading a run's metadata for (the GPU count is filled
// when it is read, never the reason to read it: few sources give it).
func (l *RunListing) Blank() bool {
	return l.GPU == "" || l.Engine == "" || l.Quantization == ""
}

// Complete fills the blank GPU, engine, quantization and GPU count of l
// from the run's metadata (keys such as GPU, Backend, Quantization,
// gpu_count) and, for the quantization, from a token of the model's
// name (FP8, INT4, NVFP4, AWQ, …). A column the run fills is kept.
func (l *RunListing) Complete(meta []schema.Field) {
	for _, f := range meta {
		v := strings.TrimSpace(f.Value)
		if v == "" {
			continue
		}
		switch normKey(f.Key) {
		case "gpu", "gpu_name", "gpu_model", "gpu_type", "accelerator":
			if l.GPU == "" {
				l.GPU = v
			}
		case "engine", "backend", "inference_engine", "server_engine":
			if l.Engine == "" {
				l.Engine = engineName(v)
			}
		case "quantization", "quant":
			if l.Quantization == "" {
				l.Quantization = v
			}
		case "gpu_count", "num_gpus", "gpus":
			if n, err := strconv.ParseInt(v, 10, 32); err == nil && n > 0 && l.GPUCount == nil {
				c := int32(n)
				l.GPUCount = &c
			}
		}
	}
	if l.Quantization == "" {
		l.Quantization = quantOfName(l.Model)
	}
}

// MetadataLister is what FillListings needs of an archive: the metadata
// of the runs with the given ids (ids not held are absent). The
// archive's stores (archive/store.Store) and the dashboard's Source have
// it; report imports no archive.
type MetadataLister interface {
	ListMetadata(ctx context.Context, ids ...string) (map[string][]schema.Field, error)
}

// FillListings completes the blank columns of runs (Complete) as
// compare -list and the dashboard's Runs view list them: a run whose
// model's name completes it is completed from the name alone; the
// metadata of the others, read in one call, is preferred to their
// name (Complete reads the metadata first).
//
// Note: the metadata column is read only for the runs with a blank left
// after the name: few runs of an archive (BenchmarkList100000 in
// cmd/compare, the 100,000-run listing of docs/serve.md).
func FillListings(ctx context.Context, src MetadataLister, runs []RunListing) error {
	var blank []int
	for i := range runs {
		named := runs[i]
		if named.Complete(nil); !named.Blank() {
			runs[i] = named
			continue
		}
		blank = append(blank, i)
	}
	if len(blank) == 0 {
		return nil
	}
	ids := make([]string, len(blank))
	for j, i := range blank {
		ids[j] = runs[i].RunID
	}
	meta, err := src.ListMetadata(ctx, ids...)
	if err != nil {
		return err
	}
	for _, i := range blank {
		runs[i].Complete(meta[runs[i].RunID])
	}
	return nil
}

func normKey(k string) string {
	return strings.ReplaceAll(strings.ToLower(strings.TrimSpace(k)), " ", "_")
}

// engineName returns the inference engine a backend value names ("" for
// a protocol such as openai-chat, which any engine serves).
func engineName(v string) string {
	s := strings.ToLower(v)
	for _, e := range []struct{ prefix, name string }{
		{"vllm", "vllm"}, {"sglang", "sglang"}, {"tgi", "tgi"}, {"text-generation-inference", "tgi"},
		{"tensorrt", "tensorrt-llm"}, {"trt", "tensorrt-llm"}, {"lmdeploy", "lmdeploy"},
		{"llama.cpp", "llama.cpp"}, {"llamacpp", "llama.cpp"}, {"llama-cpp", "llama.cpp"}, {"ollama", "ollama"},
	} {
		if strings.HasPrefix(s, e.prefix) {
			return e.name
		}
	}
	return ""
}

// quantTokens are the quantizations a model's name may end in, as
// listings print them.
var quantTokens = map[string]string{
	"fp8": "FP8", "fp4": "FP4", "nvfp4": "NVFP4", "mxfp4": "MXFP4", "int4": "INT4", "int8": "INT8",
	"awq": "AWQ", "gptq": "GPTQ", "bf16": "BF16", "fp16": "FP16", "w4a16": "W4A16", "w8a8": "W8A8", "w4a8": "W4A8",
}

// quantOfName returns the quantization a model name carries as one of
// its dash-, underscore-, dot- or slash-separated tokens, "" when none.
func quantOfName(model string) string {
	toks := strings.FieldsFunc(strings.ToLower(model), func(r rune) bool { return r == '-' || r == '_' || r == '.' || r == '/' })
	for i := len(toks) - 1; i >= 0; i-- {
		if q, ok := quantTokens[toks[i]]; ok {
			return q
		}
	}
	return ""
}

// MeasuredAt is when the run was measured: its start (a measuring run's,
// or the date its document or result file gives) and true, else its
// ingest time and false.
func (l *RunListing) MeasuredAt() (time.Time, bool) {
	if l.StartedAt != nil && !l.StartedAt.IsZero() {
		return l.StartedAt.UTC(), true
	}
	return l.IngestedAt.UTC(), false
}

// SortByMeasured orders runs by MeasuredAt, oldest first, then by run
// id: the order -list prints.
func SortByMeasured(runs []RunListing) {
	slices.SortStableFunc(runs, func(x, y RunListing) int {
		tx, _ := x.MeasuredAt()
		ty, _ := y.MeasuredAt()
		return cmp.Or(tx.Compare(ty), cmp.Compare(x.RunID, y.RunID))
	})
}
