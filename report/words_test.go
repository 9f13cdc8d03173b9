package report

import (
	"slices"
	"testing"

	"speedmatrix/analysis"
	"speedmatrix/schema"
)

// TestDeltaNote: a delta without a ratio names the run or runs
// responsible, by label; its statuses and verdict read as the delta rows
// print them.
func TestDeltaNote(t *testing.T) {
	c := &analysis.Comparison{Labels: []string{"A", "B"}}
	v, missing := analysis.StateValue, analysis.StateMissing
	looped, over, failed := analysis.StateLooped, analysis.StateOverCapacity, analysis.StateError
	tests := []struct {
		name             string
		d                analysis.Delta
		note, bs, vs, vd string
	}{
		{"both valid", analysis.Delta{BaseState: v, ValueState: v, Baseline: 100, Value: 120, Verdict: analysis.VerdictBetter}, "", "valid", "valid", "better"},
		{"same", analysis.Delta{BaseState: v, ValueState: v, Baseline: 100, Value: 100, Verdict: analysis.VerdictSame}, "", "valid", "valid", "same"},
		{"missing in other", analysis.Delta{BaseState: v, ValueState: missing, Baseline: 100}, "missing in B", "valid", "missing", ""},
		{"no value in baseline", analysis.Delta{BaseState: analysis.StateNoValue, ValueState: v, Value: 100}, "missing in A", "missing", "valid", ""},
		{"looped baseline", analysis.Delta{BaseState: looped, ValueState: v, Value: 1}, "looped in A", "looped", "valid", ""},
		{"mixed", analysis.Delta{BaseState: looped, ValueState: over}, "looped in A and over capacity in B", "looped", "over capacity", ""},
		{"over capacity in both", analysis.Delta{BaseState: over, ValueState: over}, "over capacity in both", "over capacity", "over capacity", ""},
		{"missing and no value read alike", analysis.Delta{BaseState: missing, ValueState: analysis.StateNoValue}, "missing in both", "missing", "missing", ""},
		{"error", analysis.Delta{BaseState: v, ValueState: failed, Baseline: 1}, "error in B", "valid", "error", ""},
		{"skipped and unknown", analysis.Delta{BaseState: analysis.StateSkipped, ValueState: analysis.StateOther}, "skipped in A and not valid in B", "skipped", "not valid", ""},
		{"zero baseline", analysis.Delta{BaseState: v, ValueState: v, Value: 1}, "baseline is zero", "valid", "valid", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := []string{DeltaNote(c, 0, &tt.d), StateText(tt.d.BaseState), StateText(tt.d.ValueState), VerdictText(tt.d.Verdict)}
			if want := []string{tt.note, tt.bs, tt.vs, tt.vd}; !slices.Equal(got, want) {
				t.Errorf("note, statuses, verdict = %q; want %q", got, want)
			}
		})
	}
}

// TestUnmeasuredText: the cells past an answer read as the archive
// records their status, "missing" where the run lacks the cell.
func TestUnmeasuredText(t *testing.T) {
	got := unmeasuredText([]analysis.Unmeasured{{Concurrency: 16, Status: schema.StatusLooped}, {Concurrency: 64}})
	if want := []string{"N=16 looped", "N=64 missing"}; !slices.Equal(got, want) {
		t.Errorf("%q, want %q", got, want)
	}
}
