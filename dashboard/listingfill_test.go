package dashboard

import (
	"context"
	"testing"
	"time"

	"speedmatrix/archive"
	"speedmatrix/schema"
)

// listSource is a Source of listings and metadata only: the methods
// readListing calls.
type listSource struct {
	Source
	runs []archive.Listing
	meta map[string][]schema.Field
}

func (s listSource) ListRuns(context.Context) ([]archive.Listing, error) { return s.runs, nil }

func (s listSource) ListMetadata(_ context.Context, ids ...string) (map[string][]schema.Field, error) {
	out := map[string][]schema.Field{}
	for _, id := range ids {
		if m, ok := s.meta[id]; ok {
			out[id] = m
		}
	}
	return out, nil
}

// TestReadListingFill: the Runs view fills blank columns as compare
// -list does (report.FillListings): a run with a blank its model's name
// does not fill has its metadata read, and the metadata's quantization
// is preferred to the name's ("FP8-dynamic", not "FP8": the view read
// the name first and kept it, unlike -list).
func TestReadListingFill(t *testing.T) {
	cells := int32(3)
	at := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	src := listSource{
		runs: []archive.Listing{
			{RunID: "r1", Model: "m-FP8", Engine: "vllm", Cells: &cells, IngestedAt: at},
			{RunID: "r2", Model: "m-INT4", GPU: "L40S", Engine: "sglang", Cells: &cells, IngestedAt: at},
		},
		meta: map[string][]schema.Field{
			"r1": {{Key: "GPU", Value: "H100"}, {Key: "Quantization", Value: "FP8-dynamic"}},
			"r2": {{Key: "Quantization", Value: "never read"}},
		},
	}
	l, err := readListing(context.Background(), src, "k")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []runRow{
		{ID: "r1", GPU: "H100", Engine: "vllm", Quantization: "FP8-dynamic", Cells: 3},
		{ID: "r2", GPU: "L40S", Engine: "sglang", Quantization: "INT4", Cells: 3},
	} {
		got := l.rows[l.byID[want.ID]]
		if got.GPU != want.GPU || got.Engine != want.Engine || got.Quantization != want.Quantization || got.Cells != want.Cells {
			t.Errorf("%s: GPU %q engine %q quantization %q cells %d, want %q %q %q %d", want.ID,
				got.GPU, got.Engine, got.Quantization, got.Cells, want.GPU, want.Engine, want.Quantization, want.Cells)
		}
	}
}
