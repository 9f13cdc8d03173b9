package report

import (
	"fmt"
	"math"
	"regexp"
	"slices"
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
func (r *Report) charts() []plots.Named {
	c := r.Comparison
	var out []plots.Named
	decode := r.hasPhase(schema.PhaseDecode) // a tool's serving runs have none: serveCharts draws them
	if decode {
		out = append(out, []plots.Named{
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
		}...)
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
	if !decode {
		return out
	}
	// The frontier per context: cells of different contexts answer
	// different questions (an 8K cell that looped would let a 16K cell
	// stand in for it).
	var ctxs []string
	for _, cell := range c.Cells {
		if cell.Key.Phase == schema.PhaseDecode && !slices.Contains(ctxs, cell.Key.ContextLabel) {
			ctxs = append(ctxs, cell.Key.ContextLabel)
		}
	}
	if r.Options.AllContexts {
		ctxs = append(ctxs, "")
	}
	for _, ctx := range ctxs {
		name, what := "frontier_"+slug(ctx), ctx+" context"
		if ctx == "" {
			name, what = "frontier", "all contexts"
		}
		out = append(out, plots.Named{Name: name, Caption: "Throughput against interactivity at " + what + ": every decode cell, the Pareto front as a line", Chart: plots.Frontier{
			Title: "Throughput–interactivity frontier (decode, " + what + ")", XLabel: "Output per request (tok/s)", YLabel: "Total output (tok/s)",
			LogY: true, MinX: r.MinUserTokS, Series: frontierSeries(r, ctx),
		}})
	}
	return out
}

var nonName = regexp.MustCompile(`[^A-Za-z0-9]+`)

// slug turns text into a chart file name part ("123K" → "123k").
func slug(s string) string {
	return strings.Trim(strings.ToLower(nonName.ReplaceAllString(s, "_")), "_")
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
func prefillSeries(r *Report, mt analysis.Metric) ([]plot.Tick, []plots.Series) {
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
func contextSeries(r *Report) ([]plot.Tick, []plots.Series) {
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
				s.Points = append(s.Points, plots.Point{X: float64(p.ContextTokens), Y: p.Value, Status: SchemaStatus(p.State)})
			}
			out = append(out, s)
		}
	}
	return sortedTicks(ticks), out
}

// SchemaStatus is the cell status a chart marks for a state.
func SchemaStatus(s analysis.State) schema.Status {
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
		// The tables' rule (RatioFigs), not plots' two decimals; no
		// times sign, as in the ratio matrices: "0.972×" overlapped its
		// neighbours in the lead chart, "0.972" fits as "0.97×" did.
		Format: FormatRatio,
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
	h.Hover = make([][]string, len(h.Rows))
	for i := range h.Rows {
		h.Values[i] = make([]float64, len(ns))
		h.Notes[i] = make([]string, len(ns))
		h.Hover[i] = make([]string, len(ns))
		for j := range ns {
			h.Values[i][j] = math.NaN()
			h.Notes[i][j] = "missing\n(both)"
		}
	}
	short := ShortLabels(c)
	ds := c.Deltas[oi]
	for i := range ds {
		d := &ds[i]
		cell := c.Cells[d.Cell]
		if c.Metrics[d.Metric].Name != analysis.TotalTokS.Name || cell.Key.Phase != schema.PhaseDecode || cell.Key.Concurrency <= 0 {
			continue
		}
		ri, ci := rows[cell.Key.ContextLabel], cols[cell.Key.Concurrency]
		h.Notes[ri][ci] = ""
		h.Hover[ri][ci] = heatHover(c, oi, d)
		if v, ok := d.Ratio(); ok {
			h.Values[ri][ci] = v
			continue
		}
		h.Notes[ri][ci] = ShortNote(d, short[0], short[oi+1])
	}
	return h, true
}

// heatHover is what a ratio heatmap cell's hover title says after
// naming the cell: the ratio by the one rule (RatioFigs; or why there
// is none), then each run's figure, the compared run first:
// "0.47×\nINT4: 6,091.1 tok/s\nBF16 (baseline): 13,000 tok/s".
func heatHover(c *analysis.Comparison, oi int, d *analysis.Delta) string {
	bs, vs := c.Precision(oi, d)
	side := func(label string, st analysis.State, v float64, sig int) string {
		if st != analysis.StateValue {
			return label + ": " + StateText(st)
		}
		return label + ": " + FormatValue(v, sig) + " tok/s"
	}
	head := "no ratio"
	if r, ok := d.Ratio(); ok {
		head = ratioText(r)
	} else if d.BaseState == analysis.StateValue && d.ValueState == analysis.StateValue {
		head = "no ratio (baseline 0)"
	}
	return head + "\n" + side(c.Labels[oi+1], d.ValueState, d.Value, vs) + "\n" + side(c.Labels[0]+" (baseline)", d.BaseState, d.Baseline, bs)
}

// ShortNote says in a few characters why a heatmap cell has no ratio:
// "looped\n(INT4)", "over cap.\n(both)".
func ShortNote(d *analysis.Delta, base, other string) string {
	st := func(s analysis.State) string {
		if s == analysis.StateOverCapacity {
			return "over cap."
		}
		return StateText(s)
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

// ShortLabels names runs in a word, to fit a heatmap cell: the
// quantization or the GPU's first word when they tell the runs apart,
// else "baseline", "run 1", "run 2" ….
func ShortLabels(c *analysis.Comparison) []string {
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

// chartCell names a cell in a chart's hover title as the tables do
// (cellName): "8K×16", or "8K×4/s" for a request rate.
func chartCell(k analysis.Key) string {
	return k.ContextLabel + "×" + LoadText(k)
}

// frontierSeries is one series per run: every decode cell as
// (per-request tok/s, total tok/s) at context ctx (every context when
// ctx is empty), labelled "context×N".
func frontierSeries(r *Report, ctx string) []plots.Series {
	var out []plots.Series
	for _, a := range r.Runs {
		s := plots.Series{Name: a.Label, Run: a.Label}
		for _, cell := range a.Cells.Phase(schema.PhaseDecode) {
			if ctx != "" && cell.Key.ContextLabel != ctx {
				continue
			}
			label := fmt.Sprintf("%s×%d", cell.Key.ContextLabel, cell.Key.Concurrency)
			if ctx != "" {
				label = fmt.Sprintf("N=%d", cell.Key.Concurrency) // the title names the context
			}
			p := plots.Point{X: math.NaN(), Y: math.NaN(), Status: cell.Status, Label: label, Cell: chartCell(cell.Key)}
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
