package report

import (
	"strings"
	"testing"
	"time"

	"speedmatrix/analysis"
	"speedmatrix/schema"
)

// TestListingUndated: a run that does not say when it was measured is
// listed "undated", never with its ingest date as if measured then (the
// ingest date, by which -list sorts it, is labelled as such).
func TestListingUndated(t *testing.T) {
	r := schema.Run{RunID: "f", Model: "m", EngineVersion: "0.26.0", IngestedAt: time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC)}
	var b strings.Builder
	if err := WriteRuns(&b, []RunListing{ListingOf(&r, 1)}, FormatText); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), analysis.Undated+" (ingested 2026-02-01)") || strings.Count(b.String(), "2026-02-01") != 1 {
		t.Errorf("listing shows the ingest date:\n%s", b.String())
	}
}
