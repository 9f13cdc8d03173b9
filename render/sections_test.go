package render

import (
	"reflect"
	"testing"

	"speedmatrix/schema"
)

// TestMetadataSections: printed pairs group by section in their order; a
// section printed twice apart stays two sections.
func TestMetadataSections(t *testing.T) {
	got := metadataSections([]schema.Field{
		{Section: "Hardware", Key: "GPU", Value: "H200"},
		{Section: "Hardware", Key: "OS", Value: "Linux"},
		{Section: "Engine", Key: "Engine", Value: "vLLM"},
		{Section: "Hardware", Key: "Note", Value: "again"},
	})
	want := []section{
		{"Hardware", []schema.KV{{Key: "GPU", Value: "H200"}, {Key: "OS", Value: "Linux"}}},
		{"Engine", []schema.KV{{Key: "Engine", Value: "vLLM"}}},
		{"Hardware", []schema.KV{{Key: "Note", Value: "again"}}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v\nwant %+v", got, want)
	}
	if got := metadataSections(nil); got != nil {
		t.Errorf("no pairs: got %+v, want none", got)
	}
}

// TestMergeSections: extra pairs join base's section of the same name
// unless base holds the key there; new sections follow; empty ones go.
func TestMergeSections(t *testing.T) {
	kv := func(k, v string) schema.KV { return schema.KV{Key: k, Value: v} }
	for _, c := range []struct {
		name              string
		base, extra, want []section
	}{
		{"printed key wins",
			[]section{{"Run", []schema.KV{kv("Dataset", "printed")}}},
			[]section{{"Run", []schema.KV{kv("Dataset", "measured"), kv("Host", "h1")}}},
			[]section{{"Run", []schema.KV{kv("Dataset", "printed"), kv("Host", "h1")}}}},
		{"same key in another section is kept",
			[]section{{"Run", []schema.KV{kv("Version", "1")}}},
			[]section{{"Engine", []schema.KV{kv("Version", "0.9")}}},
			[]section{{"Run", []schema.KV{kv("Version", "1")}}, {"Engine", []schema.KV{kv("Version", "0.9")}}}},
		{"a key repeated in extra is added once",
			nil,
			[]section{{"Server", []schema.KV{kv("Model id", "a"), kv("Model id", "b")}}},
			[]section{{"Server", []schema.KV{kv("Model id", "a")}}}},
		{"empty sections are dropped",
			[]section{{"Hardware", nil}, {"Run", []schema.KV{kv("Host", "h")}}},
			[]section{{"Engine", nil}},
			[]section{{"Run", []schema.KV{kv("Host", "h")}}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := mergeSections(c.base, c.extra); !reflect.DeepEqual(got, c.want) {
				t.Errorf("got %+v\nwant %+v", got, c.want)
			}
		})
	}
}

// TestFieldSections: a measuring run's fields print under the seeds'
// keys, empty ones are left out, and a server fact the printed launch
// command already says is not printed twice.
func TestFieldSections(t *testing.T) {
	r := &schema.Run{GPU: "H200", GPUCount: schema.I32(2), Engine: "vLLM", EngineVersion: "0.11.0",
		BenchTool: "speedmatrix", BenchVersion: "1.2", MeasureSeconds: schema.F64(30),
		LaunchCommand: "vllm serve m --tensor-parallel-size 2",
		ModelID:       "m", TensorParallel: schema.I32(2), MaxModelLen: schema.I64(32768)}
	got := fieldSections(r)
	want := []section{
		{secHardware, []schema.KV{{Key: "GPU", Value: "H200"}, {Key: "GPU count", Value: "2"}}},
		{secEngine, []schema.KV{{Key: "Engine", Value: "vLLM"}, {Key: "Version", Value: "0.11.0"}}},
		{secRun, []schema.KV{{Key: "Benchmark tool", Value: "speedmatrix v1.2"}, {Key: "Time per measurement", Value: "30 s"}}},
		{secServer, []schema.KV{{Key: "Max model length", Value: "32,768 tokens"}}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v\nwant %+v", got, want)
	}
	if got := fieldSections(&schema.Run{}); got != nil {
		t.Errorf("empty run: got %+v, want no section", got)
	}
}
