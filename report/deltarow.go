package report

import (
	"math"

	"speedmatrix/analysis"
	"speedmatrix/schema"
)

// DeltaRow is one delta flattened into a record: its cell, figures, ratio,
// verdict, statuses and note, absent figures nil. It is the delta
// row of CSV and JSON, whose field names the tags give.
type DeltaRow struct {
	Phase        schema.Phase `json:"phase"`
	ContextLabel string       `json:"context_label"`
	// Concurrency is null for rows without one.
	Concurrency *int32 `json:"concurrency"`
	// RequestRate is the offered request rate of a serve row (other
	// tools' serving benchmarks); absent otherwise.
	RequestRate *float64 `json:"request_rate,omitempty"`
	// AllAtOnce marks a serve row whose requests were all sent at once
	// (request rate infinite); RequestRate is then absent.
	AllAtOnce bool     `json:"all_at_once,omitempty"`
	Metric    string   `json:"metric"`
	Baseline  *float64 `json:"baseline"`
	Value     *float64 `json:"value"`
	Ratio     *float64 `json:"ratio"`
	DeltaPct  *float64 `json:"delta_pct"`
	Better    string   `json:"better"`
	// BaselineStatus and Status say what each side holds: "valid",
	// "missing", "looped", "over capacity", "skipped", "error".
	BaselineStatus string `json:"baseline_status"`
	Status         string `json:"status"`
	Note           string `json:"note"`
	BaselineRunID  string `json:"baseline_run_id"`
	RunID          string `json:"run_id"`

	// Statistics, present only when both sides carry a spread.
	BaselineLo *float64 `json:"baseline_lo,omitempty"`
	BaselineHi *float64 `json:"baseline_hi,omitempty"`
	ValueLo    *float64 `json:"value_lo,omitempty"`
	ValueHi    *float64 `json:"value_hi,omitempty"`
	P          *float64 `json:"p,omitempty"`
	NBaseline  int      `json:"n_baseline,omitempty"`
	NValue     int      `json:"n_value,omitempty"`
}

// DeltaRows expands the deltas of c into rows, other run by other run.
func DeltaRows(c *analysis.Comparison) []DeltaRow {
	n := 0
	for _, ds := range c.Deltas {
		n += len(ds)
	}
	out := make([]DeltaRow, 0, n)
	for oi, ds := range c.Deltas {
		for i := range ds {
			out = append(out, deltaRow(c, oi, &ds[i], c.Stats(oi, i)))
		}
	}
	return out
}

func deltaRow(c *analysis.Comparison, oi int, d *analysis.Delta, s *analysis.CellStats) DeltaRow {
	cell := c.Cells[d.Cell]
	r := DeltaRow{
		Phase:          cell.Key.Phase,
		ContextLabel:   cell.Key.ContextLabel,
		Metric:         c.Metrics[d.Metric].Name,
		Better:         VerdictText(d.Verdict),
		BaselineStatus: StateText(d.BaseState),
		Status:         StateText(d.ValueState),
		Note:           DeltaNote(c, oi, d),
		BaselineRunID:  c.Baseline.Run.Run.RunID,
		RunID:          c.Others[oi].Run.Run.RunID,
	}
	if cell.Key.Concurrency != 0 {
		r.Concurrency = &cell.Key.Concurrency
	}
	switch {
	case math.IsInf(cell.Key.RequestRate, 1):
		r.AllAtOnce = true // JSON has no infinity
	case cell.Key.RequestRate != 0:
		r.RequestRate = fp(cell.Key.RequestRate)
	}
	if d.BaseState == analysis.StateValue {
		r.Baseline = fp(d.Baseline)
	}
	if d.ValueState == analysis.StateValue {
		r.Value = fp(d.Value)
	}
	if ratio, ok := d.Ratio(); ok {
		r.Ratio = fp(ratio)
		r.DeltaPct = fp((ratio - 1) * 100)
	}
	if s != nil {
		r.BaselineLo, r.BaselineHi = fp(s.Baseline.Lo), fp(s.Baseline.Hi)
		r.ValueLo, r.ValueHi = fp(s.Value.Lo), fp(s.Value.Hi)
		r.P = fp(s.Test.P)
		r.NBaseline, r.NValue = s.Test.N1, s.Test.N2
	}
	return r
}
