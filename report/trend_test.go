package report

import (
	"bytes"
	"strings"
	"testing"

	"speedmatrix/analysis"
	"speedmatrix/schema"
)

// TestTrends groups the seeds by model and GPU and follows the default
// cell: the most-measured decode cell at the shortest context with the
// most simultaneous requests; the report says the seeds are undated and
// draws a chart per group.
func TestTrends(t *testing.T) {
	ms := []*schema.Matrix{load(t, seedBF16), load(t, seedINT4)}
	opt := analysis.TrendOptions{Metric: analysis.TotalTokS, Order: analysis.ByDate, Threshold: 0.05}
	groups, err := analysis.GroupTrends(ms, opt)
	if err != nil {
		t.Fatal(err)
	}
	tr := NewTrends(groups, opt)
	if len(tr.Groups) != 2 || SetupText(tr.Groups[0]) != "Ling-3.0-tiny on H200 NVL" {
		t.Fatalf("%d groups, first %q", len(tr.Groups), SetupText(tr.Groups[0]))
	}
	want := analysis.Key{Phase: schema.PhaseDecode, ContextLabel: "8K", Concurrency: 128}
	if c := tr.Groups[0].Trends[0].Cell; c != want {
		t.Errorf("default cell %+v, want %+v", c, want)
	}
	var b bytes.Buffer
	if err := tr.Write(&b, FormatText); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "undated") || !strings.Contains(b.String(), "Undated runs") {
		t.Errorf("undated seeds not said so:\n%s", b.String())
	}
	if n := len(tr.Charts()); n != 2 {
		t.Errorf("%d charts, want one per group", n)
	}
}
