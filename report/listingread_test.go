package report

import (
	"context"
	"errors"
	"slices"
	"testing"

	"speedmatrix/schema"
)

// lister is a MetadataLister over a map that records the ids asked.
type lister struct {
	meta  map[string][]schema.Field
	asked [][]string
	err   error
}

func (l *lister) ListMetadata(_ context.Context, ids ...string) (map[string][]schema.Field, error) {
	l.asked = append(l.asked, ids)
	out := map[string][]schema.Field{}
	for _, id := range ids {
		if m, ok := l.meta[id]; ok {
			out[id] = m
		}
	}
	return out, l.err
}

// TestFillListings: a run its model's name completes is filled from the
// name and its metadata never read; the others' metadata is read in one
// call and preferred to the name; a run without metadata keeps what the
// name gives.
func TestFillListings(t *testing.T) {
	meta := map[string][]schema.Field{
		"b": {{Key: "GPU", Value: "H100"}, {Key: "Quantization", Value: "FP8-dynamic"}, {Key: "Backend", Value: "vllm"}},
		"c": {{Key: "GPU", Value: "H200"}, {Key: "gpu_count", Value: "8"}},
	}
	tests := []struct {
		name            string
		in              RunListing
		gpu, eng, quant string
		gpus            int32
		metadataRead    bool
	}{
		{"name completes it", RunListing{RunID: "a", Model: "m-INT4", GPU: "L40S", Engine: "sglang"}, "L40S", "sglang", "INT4", 0, false},
		{"metadata preferred to the name", RunListing{RunID: "b", Model: "m-FP8", Engine: "vllm"}, "H100", "vllm", "FP8-dynamic", 0, true},
		{"metadata and name", RunListing{RunID: "c", Model: "m-AWQ", Engine: "tgi"}, "H200", "tgi", "AWQ", 8, true},
		{"no metadata", RunListing{RunID: "d", Model: "m-BF16"}, "", "", "BF16", 0, true},
		{"columns kept", RunListing{RunID: "b", Model: "m", GPU: "B200", Engine: "sglang", Quantization: "NVFP4"}, "B200", "sglang", "NVFP4", 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := &lister{meta: meta}
			runs := []RunListing{tt.in}
			if err := FillListings(context.Background(), src, runs); err != nil {
				t.Fatal(err)
			}
			l := runs[0]
			var n int32
			if l.GPUCount != nil {
				n = *l.GPUCount
			}
			if l.GPU != tt.gpu || l.Engine != tt.eng || l.Quantization != tt.quant || n != tt.gpus {
				t.Errorf("got %q %q %q %d, want %q %q %q %d", l.GPU, l.Engine, l.Quantization, n, tt.gpu, tt.eng, tt.quant, tt.gpus)
			}
			if read := slices.ContainsFunc(src.asked, func(ids []string) bool { return slices.Contains(ids, tt.in.RunID) }); read != tt.metadataRead {
				t.Errorf("metadata read %v, want %v (asked %q)", read, tt.metadataRead, src.asked)
			}
		})
	}
	// All at once: one call, for the runs left blank only.
	src := &lister{meta: meta}
	var runs []RunListing
	for _, tt := range tests[:4] {
		runs = append(runs, tt.in)
	}
	if err := FillListings(context.Background(), src, runs); err != nil {
		t.Fatal(err)
	}
	if len(src.asked) != 1 || !slices.Equal(src.asked[0], []string{"b", "c", "d"}) {
		t.Errorf("asked %q, want one call for b, c and d", src.asked)
	}
	// An error reading the metadata is the listing's.
	boom := errors.New("boom")
	if err := FillListings(context.Background(), &lister{err: boom}, []RunListing{{RunID: "x"}}); !errors.Is(err, boom) {
		t.Errorf("error %v, want %v", err, boom)
	}
}
