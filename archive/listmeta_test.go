package archive

import (
	"context"
	"reflect"
	"testing"
	"time"

	"speedmatrix/schema"
)

// TestListMetadata: the metadata of the asked runs only, as Runs gives
// it, from a run held twice (the earlier ingest wins).
func TestListMetadata(t *testing.T) {
	ctx := context.Background()
	a := openTest(t)
	ms := testMatrices(0, 3)
	ms[1].Run.Metadata = append(ms[1].Run.Metadata, schema.Field{Section: "Run", Key: "Backend", Value: "vllm"})
	ms[1].Run.RunID = schema.ComputeRunID(ms[1])
	if _, err := a.Append(ctx, ms); err != nil {
		t.Fatal(err)
	}
	// The same run again, later, with other metadata: not the one listed.
	again := *ms[1]
	again.Run.IngestedAt = again.Run.IngestedAt.Add(time.Hour)
	again.Run.Metadata = []schema.Field{{Key: "Backend", Value: "other"}}
	if _, err := a.Append(ctx, []*schema.Matrix{&again}); err != nil {
		t.Fatal(err)
	}
	runs, err := a.Runs(ctx)
	if err != nil {
		t.Fatal(err)
	}
	got, err := a.ListMetadata(ctx, ms[1].Run.RunID, ms[2].Run.RunID, "0000000000000000")
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 {
		t.Fatalf("metadata of %d runs, want 2: %v", len(got), got)
	}
	for _, r := range runs {
		if r.RunID == ms[0].Run.RunID {
			continue
		}
		if !reflect.DeepEqual(got[r.RunID], r.Metadata) {
			t.Errorf("run %s: metadata %v, Runs gives %v", r.RunID, got[r.RunID], r.Metadata)
		}
	}
	if m := got[ms[1].Run.RunID]; len(m) != 2 || m[1].Value != "vllm" {
		t.Errorf("run held twice: %v", m)
	}
}

func TestMeasuredAt(t *testing.T) {
	ingested := time.Date(2026, 12, 7, 5, 0, 0, 0, time.UTC)
	started := time.Date(2026, 3, 2, 10, 0, 0, 0, time.FixedZone("", -4*3600))
	for _, tt := range []struct {
		l      Listing
		want   time.Time
		column string
	}{
		{Listing{IngestedAt: ingested}, ingested, "ingested_at"},
		{Listing{IngestedAt: ingested, StartedAt: &time.Time{}}, ingested, "ingested_at"},
		{Listing{IngestedAt: ingested, StartedAt: &started}, started.UTC(), "started_at"},
	} {
		got, col := tt.l.MeasuredAt()
		if !got.Equal(tt.want) || got.Location() != time.UTC || col != tt.column {
			t.Errorf("MeasuredAt = %v %s, want %v %s", got, col, tt.want, tt.column)
		}
	}
}
