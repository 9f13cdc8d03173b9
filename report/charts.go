package main

import (
	"fmt"
	"io"
	"math"
	"regexp"
	"strconv"
	"strings"

	"gonum.org/v1/plot"

	"speedmatrix/analysis"
	"speedmatrix/plots"
	"speedmatrix/schema"
)

// This file copies analysis results into the plain chart specs of
// package plots: plots imports neither analysis nor schema loaders, so
// the two packages meet only here.

// reportCharts returns every chart of a comparison: decode throughput and
// per-request speed against concurrency, a ratio heatmap per compared run,
// prefill speed and TTFT against context, decode throughput against
// context, and the throughput–interactivity frontier.
func reportCharts(r *analysis.Report) []plots.Named {
	c := r.Comparison
	out := []plots.Named{
		{Name: "decode_total", Caption: "Decode total throughput against simultaneous requests, a line per context", Chart: plots.LineChart{
			Title: "Sustained decode: total throughput", XLabel: "Simultaneous requests", YLabel: "Total output (tok/s)",
			LogX2: true, LogY: true, GroupTitle: "Context", RunTitle: "Run",
			Series: decodeSeries(r.Runs, analysis.TotalTokS),
		}},
		{Name: "decode_per_request", Caption: "Speed each request sees against simultaneous requests", Chart: plots.LineChart{
			Title: "Sustained decode: speed per request", XLabel: "Simultaneous requests", YLabel: "Output per request (tok/s)",
			LogX2: true, GroupTitle: "Context", RunTitle: "Run",
			Series: decodeSeries(r.Runs, analysis.PerRequestTokS),
		}},
	}
	for i, a := range r.Runs {
		fits := uslFits(a)
		if len(fits) == 0 {
			continue
		}
		out = append(out, plots.Named{
			Name:    "usl_" + strconv.Itoa(i),
			Caption: "Decode throughput of " + a.Label + " with its Universal Scalability Law fit per context (σ, κ, N* and R² in the scaling table)",
			Chart: plots.LineChart{
				Title:  "Decode scaling with a Universal Scalability Law fit: " + a.Label,
				XLabel: "Simultaneous requests", YLabel: "Total output (tok/s)",
				LogX2: true, GroupTitle: "Context", FitLabel: "USL fit",
				Series: decodeSeries([]analysis.RunAnalysis{a}, analysis.TotalTokS),
				Fits:   fits,
			},
		})
	}
	for oi := range c.Others {
		name := "ratio_total"
		if len(c.Others) > 1 {
			name += "_" + strconv.Itoa(oi+1)
		}
		if h, ok := ratioHeatmap(c, oi); ok {
			out = append(out, plots.Named{Name: name, Caption: fmt.Sprintf("Decode total tok/s ratio, %s / %s, per context and concurrency", c.Labels[oi+1], c.Labels[0]), Chart: h})
		}
	}
	if ticks, series := prefillSeries(r, analysis.TotalTokS); len(series) > 0 {
		out = append(out,
			plots.Named{Name: "prefill_tok_s", Caption: "Prompt processing speed against context length", Chart: plots.LineChart{
				Title: "Prefill: prompt processing speed", XLabel: "Context length (tokens)", YLabel: "Prompt (tok/s)",
				LogX2: true, XTicks: ticks, RunTitle: "Run", Series: series,
			}})
		_, ttft := prefillSeries(r, analysis.TTFTMs)
		out = append(out,
			plots.Named{Name: "prefill_ttft", Caption: "Prefill time to first token against context length", Chart: plots.LineChart{
				Title: "Prefill: time to first token", XLabel: "Context length (tokens)", YLabel: "TTFT (ms)",
				LogX2: true, LogY: true, XTicks: ticks, RunTitle: "Run", Series: ttft,
			}})
	}
	if ticks, series := contextSeries(r); len(series) > 0 {
		out = append(out, plots.Named{Name: "decode_context", Caption: "Decode total throughput against context length, a line per concurrency", Chart: plots.LineChart{
			Title: "Sustained decode: throughput against context", XLabel: "Context length (tokens)", YLabel: "Total output (tok/s)",
			LogX2: true, LogY: true, XTicks: ticks, GroupTitle: "Requests", RunTitle: "Run", Series: series,
		}})
	}
	out = append(out, plots.Named{Name: "frontier", Caption: "Throughput against interactivity: every decode cell, the Pareto front as a line", Chart: plots.Frontier{
		Title: "Throughput–interactivity frontier (decode, all contexts)", XLabel: "Output per request (tok/s)", YLabel: "Total output (tok/s)",
		LogY: true, MinX: r.MinUserTokS, Series: frontierSeries(r),
	}})
	return out
}

// uslFits is the fitted curve of each context of a run, over the
// concurrencies it was fitted on.
func uslFits(a analysis.RunAnalysis) []plots.Fit {
	var out []plots.Fit
	for _, s := range a.Scaling {
		if s.Fit == nil || s.Phase != schema.PhaseDecode || len(s.Points) == 0 {
			continue
		}
		f := *s.Fit
		out = append(out, plots.Fit{Group: s.ContextLabel, Run: a.Label, F: f.Predict,
			Min: float64(s.Points[0].N), Max: float64(s.Points[len(s.Points)-1].N)})
	}
	return out
}

// decodeSeries is one series per run and decode context: mt against
// concurrency, non-valid cells kept as status markers.
func decodeSeries(runs []analysis.RunAnalysis, mt analysis.Metric) []plots.Series {
	var out []plots.Series
	for _, a := range runs {
		var cur *plots.Series
		for _, cell := range a.Cells.Phase(schema.PhaseDecode) {
			if cell.Key.Concurrency <= 0 {
				continue
			}
			if cur == nil || cur.Group != cell.Key.ContextLabel {
				out = append(out, plots.Series{Name: a.Label + " " + cell.Key.ContextLabel, Group: cell.Key.ContextLabel, Run: a.Label})
				cur = &out[len(out)-1]
			}
			cur.Points = append(cur.Points, point(float64(cell.Key.Concurrency), cell, mt))
		}
	}
	return out
}

func point(x float64, cell *analysis.Cell, mt analysis.Metric) plots.Point {
	p := plots.Point{X: x, Y: math.NaN(), Status: cell.Status}
	if v, ok := cell.Value(mt); ok {
		p.Y = v
	} else if cell.Status == schema.StatusValid {
		p.Status = schema.StatusSkipped // valid, but without this figure
	}
	return p
}

// prefillSeries is one series per run of a prefill metric against
// context, with ticks labelled as the documents print contexts.
func prefillSeries(r *analysis.Report, mt analysis.Metric) ([]plot.Tick, []plots.Series) {
	var out []plots.Series
	ticks := map[int64]string{}
	for _, a := range r.Runs {
		s := plots.Series{Name: a.Label, Run: a.Label}
		for _, cell := range a.Cells.Phase(schema.PhasePrefill) {
			if cell.ContextTokens <= 0 {
				continue
			}
			ticks[cell.ContextTokens] = cell.Key.ContextLabel
			s.Points = append(s.Points, point(float64(cell.ContextTokens), cell, mt))
		}
		if len(s.Points) > 0 {
			out = append(out, s)
		}
	}
	return sortedTicks(ticks), out
}

// contextSeries is decode total tok/s against context, one series per
// run and concurrency.
func contextSeries(r *analysis.Report) ([]plot.Tick, []plots.Series) {
	var out []plots.Series
	ticks := map[int64]string{}
	for _, a := range r.Runs {
		for _, cs := range a.Context {
			if cs.Phase != schema.PhaseDecode || len(cs.Points) < 2 {
				continue
			}
			g := "N=" + strconv.Itoa(int(cs.Concurrency))
			s := plots.Series{Name: a.Label + " " + g, Group: g, Run: a.Label}
			for _, p := range cs.Points {
				if p.ContextTokens <= 0 {
					continue
				}
				ticks[p.ContextTokens] = p.ContextLabel
				s.Points = append(s.Points, plots.Point{X: float64(p.ContextTokens), Y: p.Value, Status: status(p.State)})
			}
			out = append(out, s)
		}
	}
	return sortedTicks(ticks), out
}

func status(s analysis.State) schema.Status {
	switch s {
	case analysis.StateValue:
		return schema.StatusValid
	case analysis.StateLooped:
		return schema.StatusLooped
	case analysis.StateOverCapacity:
		return schema.StatusOverCapacity
	case analysis.StateError:
		return schema.StatusError
	}
	return schema.StatusSkipped
}

func sortedTicks(m map[int64]string) []plot.Tick {
	var out []plot.Tick
	for v, l := range m {
		out = append(out, plot.Tick{Value: float64(v), Label: l})
	}
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && out[j].Value < out[j-1].Value; j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}

// ratioHeatmap is other/baseline total tok/s over the decode cells
// (context × concurrency); cells without a ratio carry the reason.
func ratioHeatmap(c *analysis.Comparison, oi int) (plots.Heatmap, bool) {
	h := plots.Heatmap{
		Title:  fmt.Sprintf("Decode total tok/s: %s / %s", c.Labels[oi+1], c.Labels[0]),
		XLabel: "Simultaneous requests", YLabel: "Context length",
		Ratio: true, ScaleLabel: "ratio (higher is better)",
	}
	rows, cols := map[string]int{}, map[int32]int{}
	var ns []int32
	for _, cell := range c.Cells {
		if cell.Key.Phase != schema.PhaseDecode || cell.Key.Concurrency <= 0 {
			continue
		}
		if _, ok := rows[cell.Key.ContextLabel]; !ok {
			rows[cell.Key.ContextLabel] = len(h.Rows)
			h.Rows = append(h.Rows, cell.Key.ContextLabel)
		}
		if _, ok := cols[cell.Key.Concurrency]; !ok {
			cols[cell.Key.Concurrency] = 0
			ns = append(ns, cell.Key.Concurrency)
		}
	}
	if len(h.Rows) == 0 {
		return h, false
	}
	for i := 1; i < len(ns); i++ {
		for j := i; j > 0 && ns[j] < ns[j-1]; j-- {
			ns[j], ns[j-1] = ns[j-1], ns[j]
		}
	}
	for i, n := range ns {
		cols[n] = i
		h.Cols = append(h.Cols, strconv.Itoa(int(n)))
	}
	h.Values = make([][]float64, len(h.Rows))
	h.Notes = make([][]string, len(h.Rows))
	for i := range h.Rows {
		h.Values[i] = make([]float64, len(ns))
		h.Notes[i] = make([]string, len(ns))
		for j := range ns {
			h.Values[i][j] = math.NaN()
			h.Notes[i][j] = "missing\n(both)"
		}
	}
	short := shortLabels(c)
	ds := c.Deltas[oi]
	for i := range ds {
		d := &ds[i]
		cell := c.Cells[d.Cell]
		if c.Metrics[d.Metric].Name != analysis.TotalTokS.Name || cell.Key.Phase != schema.PhaseDecode || cell.Key.Concurrency <= 0 {
			continue
		}
		ri, ci := rows[cell.Key.ContextLabel], cols[cell.Key.Concurrency]
		h.Notes[ri][ci] = ""
		if v, ok := d.Ratio(); ok {
			h.Values[ri][ci] = v
			continue
		}
		h.Notes[ri][ci] = cellNote(d, short[0], short[oi+1])
	}
	return h, true
}

// cellNote says in a few characters why a heatmap cell has no ratio:
// "looped\n(INT4)", "over cap.\n(both)".
func cellNote(d *analysis.Delta, base, other string) string {
	st := func(s analysis.State) string {
		if s == analysis.StateOverCapacity {
			return "over cap."
		}
		return s.String()
	}
	switch {
	case d.BaseState == analysis.StateValue && d.ValueState == analysis.StateValue:
		return "baseline 0"
	case d.BaseState == analysis.StateValue:
		return st(d.ValueState) + "\n(" + other + ")"
	case d.ValueState == analysis.StateValue:
		return st(d.BaseState) + "\n(" + base + ")"
	case st(d.BaseState) == st(d.ValueState):
		return st(d.BaseState) + "\n(both)"
	}
	return st(d.BaseState) + " (" + base + ")\n" + st(d.ValueState) + " (" + other + ")"
}

// shortLabels names runs in a word, to fit a heatmap cell: the
// quantization or the GPU's first word when they tell the runs apart,
// else "baseline", "run 1", "run 2" ….
func shortLabels(c *analysis.Comparison) []string {
	runs := []*schema.Run{&c.Baseline.Run.Run}
	for _, o := range c.Others {
		runs = append(runs, &o.Run.Run)
	}
	for _, f := range []func(*schema.Run) string{
		func(r *schema.Run) string { return r.Quantization },
		func(r *schema.Run) string {
			if w := strings.Fields(r.GPU); len(w) > 0 {
				return w[0]
			}
			return ""
		},
	} {
		out := make([]string, len(runs))
		ok := true
		for i, r := range runs {
			out[i] = f(r)
			ok = ok && out[i] != "" && len(out[i]) <= 10
		}
		if ok && distinctStrings(out) {
			return out
		}
	}
	out := []string{"baseline"}
	for i := range c.Others {
		out = append(out, "run "+strconv.Itoa(i+1))
	}
	return out
}

// frontierSeries is one series per run: every decode cell as
// (per-request tok/s, total tok/s), labelled "context×N".
func frontierSeries(r *analysis.Report) []plots.Series {
	var out []plots.Series
	for _, a := range r.Runs {
		s := plots.Series{Name: a.Label, Run: a.Label}
		for _, cell := range a.Cells.Phase(schema.PhaseDecode) {
			p := plots.Point{X: math.NaN(), Y: math.NaN(), Status: cell.Status, Label: fmt.Sprintf("%s×%d", cell.Key.ContextLabel, cell.Key.Concurrency)}
			x, okx := cell.Value(analysis.PerRequestTokS)
			y, oky := cell.Value(analysis.TotalTokS)
			if okx && oky {
				p.X, p.Y = x, y
			} else if cell.Status == schema.StatusValid {
				continue
			}
			s.Points = append(s.Points, p)
		}
		out = append(out, s)
	}
	return out
}

// writePlots writes every chart as PNG and SVG into dir.
func writePlots(dir string, charts []plots.Named) error {
	return plots.WriteAll(dir, charts)
}

// writeHTML writes the self-contained report page of a comparison.
func writeHTML(w io.Writer, r *analysis.Report, charts []plots.Named) error {
	c := r.Comparison
	page := plots.Report{
		Title:    "Speed-test comparison: " + strings.Join(c.Labels[1:], ", ") + " against " + c.Labels[0],
		Subtitle: "Baseline " + c.Labels[0] + " (" + c.Baseline.Run.Run.RunID + "); ratio = value / baseline",
		Runs:     runsTable(c),
		Charts:   charts,
	}
	if !c.Spread {
		page.Notes = append(page.Notes, analysis.NoSpreadNote)
	}
	for i, t := range r.Tables() {
		if i == 0 {
			continue // the runs table: Runs shows more, side by side
		}
		page.Tables = append(page.Tables, htmlTable(t))
	}
	return plots.WriteReport(w, page)
}

func htmlTable(t analysis.Table) plots.Table {
	return plots.Table{Caption: t.Title, Header: t.Header, Rows: t.Rows, RowClass: t.Class, Note: strings.Join(t.Notes, " ")}
}

// runsTable lays the runs' metadata side by side.
func runsTable(c *analysis.Comparison) plots.Table {
	cells := append([]*analysis.Cells{c.Baseline}, c.Others...)
	t := plots.Table{Caption: "Runs", Header: append([]string{"field"}, c.Labels...)}
	f64 := func(p *float64) string {
		if p == nil {
			return ""
		}
		return strconv.FormatFloat(*p, 'g', -1, 64)
	}
	i64 := func(p *int64) string {
		if p == nil {
			return ""
		}
		return strconv.FormatInt(*p, 10)
	}
	i32 := func(p *int32) string {
		if p == nil {
			return ""
		}
		return strconv.Itoa(int(*p))
	}
	fields := []struct {
		name string
		get  func(r *schema.Run) string
	}{
		{"run id", func(r *schema.Run) string { return r.RunID }},
		{"title", func(r *schema.Run) string { return r.Title }},
		{"model", func(r *schema.Run) string { return r.Model }},
		{"GPU", func(r *schema.Run) string { return r.GPU }},
		{"GPU count", func(r *schema.Run) string { return i32(r.GPUCount) }},
		{"VRAM GB", func(r *schema.Run) string { return f64(r.VRAMGB) }},
		{"engine", func(r *schema.Run) string { return r.Engine }},
		{"engine version", func(r *schema.Run) string { return r.EngineVersion }},
		{"quantization", func(r *schema.Run) string { return r.Quantization }},
		{"backend", func(r *schema.Run) string { return r.Backend }},
		{"build", func(r *schema.Run) string { return r.Build }},
		{"engine commit", func(r *schema.Run) string { return r.EngineCommit }},
		{"bench tool", func(r *schema.Run) string { return strings.TrimSpace(r.BenchTool + " " + r.BenchVersion) }},
		{"decode test", func(r *schema.Run) string { return r.DecodeTest }},
		{"prefill mode", func(r *schema.Run) string { return r.PrefillMode }},
		{"measure seconds", func(r *schema.Run) string { return f64(r.MeasureSeconds) }},
		{"max output tokens", func(r *schema.Run) string { return i64(r.MaxOutputTokens) }},
		{"max model len", func(r *schema.Run) string { return i64(r.MaxModelLen) }},
		{"GPU memory utilization", func(r *schema.Run) string { return f64(r.GPUMemoryUtilization) }},
		{"tensor parallel", func(r *schema.Run) string { return i32(r.TensorParallel) }},
		{"launch command", func(r *schema.Run) string { return r.LaunchCommand }},
		{"cells", nil},
		{"source", func(r *schema.Run) string { return r.SourcePath }},
	}
	for _, f := range fields {
		row := []string{f.name}
		same, empty := true, true
		for _, cs := range cells {
			v := ""
			if f.get == nil {
				v = strconv.Itoa(len(cs.List))
			} else {
				v = f.get(&cs.Run.Run)
			}
			row = append(row, v)
			empty = empty && v == ""
			same = same && v == row[1]
		}
		if empty {
			continue
		}
		t.Rows = append(t.Rows, row)
		if same {
			t.RowClass = append(t.RowClass, "")
		} else {
			t.RowClass = append(t.RowClass, "differs")
		}
	}
	return t
}

var nonName = regexp.MustCompile(`[^A-Za-z0-9]+`)

// slug turns text into a chart file name part.
func slug(s string) string {
	return strings.Trim(strings.ToLower(nonName.ReplaceAllString(s, "_")), "_")
}
