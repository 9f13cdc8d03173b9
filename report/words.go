package report

import (
	"fmt"
	"strconv"

	"speedmatrix/analysis"
	"speedmatrix/schema"
)

// The words for what package analysis computes: it returns states,
// verdicts, metrics and cells as typed values, and this file names them
// the way every table, note, CSV and JSON of the report does.

// StateText names a delta side's state as the notes and the status
// columns print it: "valid", "missing", "looped", "over capacity",
// "skipped", "error", "not valid".
func StateText(s analysis.State) string {
	switch s {
	case analysis.StateValue:
		return "valid"
	case analysis.StateNoValue, analysis.StateMissing:
		return "missing"
	case analysis.StateLooped:
		return "looped"
	case analysis.StateOverCapacity:
		return "over capacity"
	case analysis.StateSkipped:
		return "skipped"
	case analysis.StateError:
		return "error"
	}
	return "not valid"
}

// VerdictText names a verdict: "better", "worse", "same", or "" for a
// delta without a ratio.
func VerdictText(v analysis.Verdict) string {
	switch v {
	case analysis.VerdictBetter:
		return "better"
	case analysis.VerdictWorse:
		return "worse"
	case analysis.VerdictSame:
		return "same"
	}
	return ""
}

// MetricLabel names a metric as a reader knows it in a phase: prefill's
// total_tok_s is the prompt (prefill) speed; other metrics go by their
// column name.
func MetricLabel(mt analysis.Metric, p schema.Phase) string {
	switch {
	case p == schema.PhasePrefill && mt.Name == "total_tok_s":
		return "prefill tok/s"
	case mt.Name == "total_tok_s":
		return "total tok/s"
	case mt.Name == "per_request_tok_s":
		return "per-request tok/s"
	case mt.Name == "ttft_ms":
		return "TTFT ms"
	case mt.Name == "tbt_ms":
		return "TBT ms"
	}
	return mt.Name
}

// DeltaNote explains a delta without a ratio, naming the run or runs
// responsible by their labels: "looped in <run>", "over capacity in
// both", "missing in <run>". other indexes c.Others. It is empty for a
// delta with a ratio.
func DeltaNote(c *analysis.Comparison, other int, d *analysis.Delta) string {
	if _, ok := d.Ratio(); ok {
		return ""
	}
	bl, ol := c.Labels[0], c.Labels[other+1]
	bs, vs := StateText(d.BaseState), StateText(d.ValueState)
	switch {
	case d.BaseState == analysis.StateValue && d.ValueState == analysis.StateValue:
		return "baseline is zero"
	case d.BaseState == analysis.StateValue:
		return vs + " in " + ol
	case d.ValueState == analysis.StateValue:
		return bs + " in " + bl
	case bs == vs:
		return bs + " in both"
	}
	// " and ", not "; ": summaries join their reasons with "; ", and a
	// count before this note must read as one cell with both reasons.
	return bs + " in " + bl + " and " + vs + " in " + ol
}

// unmeasuredText names the cells beyond an answer a run could not
// measure: "N=16 looped", "N=64 missing" (the status as the archive
// records it).
func unmeasuredText(us []analysis.Unmeasured) []string {
	var out []string
	for _, u := range us {
		st := string(u.Status)
		if u.Status == "" {
			st = "missing"
		}
		out = append(out, "N="+strconv.Itoa(int(u.Concurrency))+" "+st)
	}
	return out
}

// poorFitReason says why a USL fit is not trusted (analysis.USLFit.Poor):
// too few points, or a low R².
func poorFitReason(f *analysis.USLFit) string {
	switch {
	case f.Points < analysis.MinUSLPoints:
		return fmt.Sprintf("only %d points", f.Points)
	case f.R2 < analysis.PoorR2:
		return fmt.Sprintf("R² %.3f < 0.9", f.R2)
	}
	return ""
}

// spreadSourceText names where a cell's spread comes from: "repeats" or
// "samples".
func spreadSourceText(s analysis.SpreadSource) string {
	switch s {
	case analysis.FromRepeats:
		return "repeats"
	case analysis.FromSamples:
		return "samples"
	}
	return ""
}

// SetupText names the model and GPU a trend group follows: "<model> on
// <GPU>", saying so where a run gives neither.
func SetupText(g *analysis.TrendGroup) string {
	model, gpu := g.Model, g.GPU
	if model == "" {
		model = "(model not given)"
	}
	if gpu == "" {
		gpu = "(GPU not given)"
	}
	return model + " on " + gpu
}

// errText is err's message, empty for nil.
func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
