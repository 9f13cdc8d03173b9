package report

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"speedmatrix/analysis"
	"speedmatrix/plots"
	"speedmatrix/schema"
)

// This file lays out the answers per dollar and per joule: a sentence
// per compared run after its outcome, a lead table of each run's price,
// GPUs and energy, the targets' answers per dollar, and the long table
// of every cell (analysis.Costs).

// costActive reports whether the report answers per dollar and per
// joule: prices or GPU counts were given, or some run records energy.
// Without either it is the report it was before, line for line.
func (r *Report) costActive() bool {
	return r.Options.Pricing != nil || r.Options.Prices != nil || r.anyEnergy()
}

func (r *Report) anyEnergy() bool {
	for _, rc := range r.Costs {
		if rc.Energy {
			return true
		}
	}
	return false
}

// usdPerHour prints a price per hour: "2.4 $/h".
func usdPerHour(v float64) string {
	return strconv.FormatFloat(v, 'f', -1, 64) + " $/h"
}

// usd prints dollars per million tokens with three significant figures.
func usd(v float64) string {
	if math.IsNaN(v) {
		return "—"
	}
	return "$" + FormatSig(v, 3)
}

// sig3 prints a figure with three significant figures, "—" for NaN.
func sig3(v float64) string {
	if math.IsNaN(v) {
		return "—"
	}
	return FormatSig(v, 3)
}

// gpusText says how many GPUs a run ran on and where the count came from.
func gpusText(p analysis.Pricing) string {
	switch {
	case p.GPUs == 0:
		return "not recorded"
	case p.GPUsGiven:
		return strconv.Itoa(int(p.GPUs)) + " (given)"
	}
	return strconv.Itoa(int(p.GPUs))
}

// missing says in one line what a run lacks for the answers per dollar
// and per joule ("" when nothing): a price, a GPU count, energy.
func (r *Report) missing(i int) string {
	rc := r.Costs[i]
	var parts []string
	if r.Options.Prices != nil || r.Options.Pricing != nil {
		switch {
		case !rc.Priced && rc.NoPrice != nil:
			parts = append(parts, "price: "+rc.NoPrice.Error()+" (no $ figures)")
		case !rc.Priced:
			parts = append(parts, "price: none given (no $ figures)")
		}
		if rc.GPUs == 0 {
			parts = append(parts, "GPU count not recorded (no $ figures and no tok/s per GPU)")
		}
	}
	if !rc.Energy {
		parts = append(parts, "energy: not recorded")
	}
	if len(parts) == 0 {
		return ""
	}
	return r.Runs[i].Label + ": " + strings.Join(parts, "; ") + "."
}

// asOf says where the prices came from: "prices as of 2026-12-01,
// prices.toml", or "" without a file.
func (r *Report) asOf() string {
	t := r.Options.Prices
	if t == nil || t.AsOfText == "" {
		return ""
	}
	return "prices as of " + t.AsOfText + ", " + t.Name
}

// costOutcome adds to each compared run's outcome the sentence per dollar
// and per joule, beside the throughput ratio it rests on.
func (r *Report) costOutcome() {
	c := r.Comparison
	for oi := range c.Others {
		if oi >= len(r.Summary.Outcome) {
			break
		}
		var cr *analysis.CostRatio
		for _, ph := range []schema.Phase{schema.PhaseDecode, schema.PhaseServe} {
			for i := range r.CostRatios {
				if x := &r.CostRatios[i]; cr == nil && x.Other == oi && x.Phase == ph {
					cr = x
				}
			}
		}
		if cr == nil {
			continue // no throughput ratio: the outcome says why
		}
		base, other := c.Labels[0], c.Labels[oi+1]
		bc, oc := r.Costs[0], r.Costs[oi+1]
		var parts []string
		thr := fmt.Sprintf("%s the throughput", ratioText(cr.Throughput))
		if !math.IsNaN(cr.PerDollar) {
			each := fmt.Sprintf("%d and %d GPUs", oc.GPUs, bc.GPUs)
			if oc.GPUs == bc.GPUs {
				each = fmt.Sprintf("%d GPU", oc.GPUs)
				if oc.GPUs > 1 {
					each += "s"
				}
				each += " each"
			}
			if a := r.asOf(); a != "" {
				each += "; " + a
			}
			parts = append(parts, fmt.Sprintf("%s, %s the tokens per dollar at %s against %s (%s)", thr, ratioText(cr.PerDollar),
				usdPerHour(oc.USDPerHour()), usdPerHour(bc.USDPerHour()), each))
		} else if r.Options.Prices != nil || r.Options.Pricing != nil {
			var why []string
			for _, x := range []struct {
				label string
				rc    analysis.RunCost
			}{{other, oc}, {base, bc}} {
				switch {
				case !x.rc.Priced:
					why = append(why, "no price for "+x.label)
				case x.rc.GPUs == 0:
					why = append(why, "GPU count not recorded for "+x.label)
				}
			}
			if len(why) == 2 && strings.HasPrefix(why[0], "GPU count") && strings.HasPrefix(why[1], "GPU count") {
				why = []string{"GPU count recorded by neither run"}
			}
			parts = append(parts, fmt.Sprintf("%s; tokens per dollar not compared (%s)", thr, strings.Join(why, ", ")))
		} else {
			parts = append(parts, thr)
		}
		switch {
		case cr.JouleCells > 0:
			cells := "cells"
			if cr.JouleCells == 1 {
				cells = "cell"
			}
			parts = append(parts, fmt.Sprintf("%s the tokens per joule (over %d %s with energy in both)", ratioText(cr.PerJoule), cr.JouleCells, cells))
		case !bc.Energy && !oc.Energy:
			parts = append(parts, "tokens per joule not compared (energy not recorded in either run)")
		case !oc.Energy:
			parts = append(parts, "tokens per joule not compared (energy not recorded for "+other+")")
		case !bc.Energy:
			parts = append(parts, "tokens per joule not compared (energy not recorded for "+base+")")
		default:
			parts = append(parts, "tokens per joule not compared (no cell has energy in both runs)")
		}
		r.Summary.Outcome[oi] += fmt.Sprintf(" Per dollar and per joule, %s against %s: %s.", other, base, strings.Join(parts, "; "))
	}
}

// costRunsTable is each run's price, GPUs and best figures per dollar
// and per joule, with one line per run that lacks a price, a GPU count or
// energy.
func (r *Report) costRunsTable() Table {
	t := Table{
		Name:   "cost_runs",
		Lead:   true,
		Title:  "Per dollar and per joule: each run's price, GPUs and energy",
		Header: []string{"run", "GPU", "GPUs", "$/GPU-hour", "$/hour", "lowest $/1M output tokens", "most output tok/J", "W at that cell"},
		Right:  []bool{false, false, true, true, true, true, true, true},
		CSV:    [][]string{{"run", "gpu", "gpus", "gpus_given", "usd_per_gpu_hour", "price_key", "price_source", "usd_per_hour", "min_usd_per_mtok", "min_usd_cell", "max_tok_per_j", "max_tok_per_j_cell", "no_price"}},
	}
	for i, a := range r.Runs {
		rc := r.Costs[i]
		price, perHour := "—", "—"
		if rc.Priced {
			price = strconv.FormatFloat(rc.Price.USDPerHour, 'f', -1, 64)
			if k := rc.Price.GPU; k != "" && !strings.EqualFold(k, a.Cells.Run.Run.GPU) {
				price += " (" + k + ")"
			}
		}
		if v := rc.USDPerHour(); !math.IsNaN(v) {
			perHour = strconv.FormatFloat(v, 'f', -1, 64)
		}
		low, lowCell := math.NaN(), ""
		most, mostCell, watts := math.NaN(), "", math.NaN()
		for _, cc := range rc.Cells {
			if cc.Key.Phase != schema.PhaseDecode {
				continue
			}
			if !math.IsNaN(cc.USDPerMTok) && (math.IsNaN(low) || cc.USDPerMTok < low) {
				low, lowCell = cc.USDPerMTok, cellName(cc.Key.ContextLabel, cc.Key.Concurrency)
			}
			if !math.IsNaN(cc.TokPerJ) && (math.IsNaN(most) || cc.TokPerJ > most) {
				most, mostCell, watts = cc.TokPerJ, cellName(cc.Key.ContextLabel, cc.Key.Concurrency), cc.AvgPowerW
			}
		}
		lowText, mostText := usd(low), sig3(most)
		if lowCell != "" {
			lowText += " (" + lowCell + ")"
		}
		if mostCell != "" {
			mostText += " (" + mostCell + ")"
		}
		t.add(a.Label, a.Cells.Run.Run.GPU, gpusText(rc.Pricing), price, perHour, lowText, mostText, sig3(watts))
		t.CSV = append(t.CSV, []string{a.Label, a.Cells.Run.Run.GPU, rawGPUs(rc.GPUs), strconv.FormatBool(rc.GPUsGiven), rawPrice(rc), rc.Price.GPU, rc.Price.Source,
			Raw(rc.USDPerHour()), Raw(low), lowCell, Raw(most), mostCell, errText(rc.NoPrice)})
	}
	t.dropDashColumns(4, 5, 6, 7)
	if a := r.asOf(); a != "" {
		t.Title += " (" + a + ")"
	}
	for i := range r.Runs {
		if m := r.missing(i); m != "" {
			t.Notes = append(t.Notes, m)
		}
	}
	t.Notes = append(t.Notes, "$/1M output tokens = $/GPU-hour × GPUs ÷ (total output tok/s × 3,600 s) × 10⁶, per decode cell; tok/J = output tokens ÷ energy of all the server's GPUs over the cell's window.")
	return t
}

func rawGPUs(n int32) string {
	if n == 0 {
		return ""
	}
	return strconv.Itoa(int(n))
}

func rawPrice(rc analysis.RunCost) string {
	if !rc.Priced {
		return ""
	}
	return Raw(rc.Price.USDPerHour)
}

// costAnswersTable gives each decode answer of the summary (the targets
// and the best per context) per dollar: the cell each run answers with,
// its $/1M output tokens, and each other run's tokens per dollar over the
// baseline's; with tok/J where energy is recorded. Within a run the cost
// per hour is one figure, so its answer per dollar is its answer per
// second: the runs differ by their price.
func (r *Report) costAnswersTable() (Table, bool) {
	t := Table{Name: "answers_cost", Lead: true, Title: "Targets and best configurations per dollar (ratio = tokens per dollar / baseline's)", Header: []string{"question", "context"}, Right: []bool{false, false}}
	for _, l := range r.Comparison.Labels {
		t.Header = append(t.Header, l+" $/1M tok")
		t.Right = append(t.Right, true)
	}
	for _, l := range r.Comparison.Labels[1:] {
		t.Header = append(t.Header, "ratio "+l)
		t.Right = append(t.Right, true)
	}
	energy := r.anyEnergy()
	if energy {
		for _, l := range r.Comparison.Labels {
			t.Header = append(t.Header, l+" tok/J")
			t.Right = append(t.Right, true)
		}
	}
	t.CSV = [][]string{{"question", "context", "run", "cell", "usd_per_mtok", "tok_per_j", "per_dollar_ratio"}}
	anyUSD := false
	for _, ans := range append(append([]Answer{}, r.Summary.Answers...), r.Summary.Best...) {
		if ans.Phase != schema.PhaseDecode {
			continue
		}
		row := []string{ans.Question, ans.Context}
		var usds, js []string
		var ratios []string
		base := math.NaN()
		for i, p := range ans.Runs {
			cc, ok := r.pickCost(i, p)
			u, j := math.NaN(), math.NaN()
			if ok {
				u, j = cc.USDPerMTok, cc.TokPerJ
			}
			cellText := ""
			if p.Found {
				cellText = " (" + p.Cell + ")"
			}
			switch {
			case !p.Found:
				usds = append(usds, "none")
			case math.IsNaN(u):
				usds = append(usds, "—"+cellText)
			default:
				anyUSD = true
				b := ""
				if p.LowerBound {
					b = "≤ " // a lower bound on throughput is an upper bound on cost
				}
				usds = append(usds, b+usd(u)+cellText)
			}
			js = append(js, sig3(j))
			ratio := math.NaN()
			if i == 0 {
				base = u
			} else if !math.IsNaN(u) && !math.IsNaN(base) {
				ratio = base / u
				ratios = append(ratios, boundRatio(fp(ratio), ans.Runs[0], p))
			} else {
				ratios = append(ratios, "—")
			}
			t.CSV = append(t.CSV, []string{ans.Question, ans.Context, p.Run, p.Cell, Raw(u), Raw(j), Raw(ratio)})
		}
		row = append(row, usds...)
		row = append(row, ratios...)
		if energy {
			row = append(row, js...)
		}
		t.add(row...)
	}
	if len(t.Rows) == 0 || !anyUSD && !energy {
		return t, false
	}
	t.Notes = append(t.Notes, "Each run answers with the cell of its answer per second: within a run the cost per hour is one figure, so the cell with the most tokens per second has the most per dollar.",
		"≤ before a cost: the run's answer is a lower bound on its throughput (cells beyond it could not be measured), so its cost per token may be lower still.", ratioBoundNote)
	if energy {
		t.Notes = append(t.Notes, "tok/J: output tokens per joule of the cell each run answers with.")
	}
	return t, true
}

// pickCost returns the figures of the decode cell a pick names ("8K×128").
func (r *Report) pickCost(run int, p Pick) (analysis.CellCost, bool) {
	if !p.Found {
		return analysis.CellCost{}, false
	}
	ctx, _, ok := strings.Cut(p.Cell, "×")
	if !ok {
		return analysis.CellCost{}, false
	}
	return r.Costs[run].Cell(analysis.Key{Phase: schema.PhaseDecode, ContextLabel: ctx, Concurrency: p.Concurrency})
}

// costTable is every valid decode and serve cell of every run per dollar
// and per joule.
func (r *Report) costTable() Table {
	t := Table{
		Name:   "cost",
		Title:  "Per dollar, per joule and per GPU, every cell",
		Header: []string{"run", "phase", "context", "N", "total tok/s", "per-request tok/s", "tok/s per GPU", "$/1M output tokens", "M tokens per $", "output tok/J", "avg power W"},
		Right:  []bool{false, false, false, true, true, true, true, true, true, true, true},
		CSV:    [][]string{{"run", "phase", "context", "concurrency", "request_rate", "total_tok_s", "per_request_tok_s", "tok_s_per_gpu", "usd_per_mtok", "tok_per_usd", "tok_per_j", "avg_power_w"}},
	}
	for i, a := range r.Runs {
		for _, cc := range r.Costs[i].Cells {
			t.add(a.Label, string(cc.Key.Phase), cc.Key.ContextLabel, LoadText(cc.Key), num(cc.TotalTokS), num(cc.PerRequestTokS), num(cc.PerGPUTokS),
				usd(cc.USDPerMTok), sig3(cc.TokPerUSD/1e6), sig3(cc.TokPerJ), sig3(cc.AvgPowerW))
			rate := ""
			if cc.Key.RequestRate != 0 {
				rate = Raw(cc.Key.RequestRate)
			}
			t.CSV = append(t.CSV, []string{a.Label, string(cc.Key.Phase), cc.Key.ContextLabel, rawInt(cc.Key.Concurrency), rate, Raw(cc.TotalTokS), Raw(cc.PerRequestTokS),
				Raw(cc.PerGPUTokS), Raw(cc.USDPerMTok), Raw(cc.TokPerUSD), Raw(cc.TokPerJ), Raw(cc.AvgPowerW)})
		}
	}
	if t.dropDashColumns(6, 7, 8, 9, 10) {
		if len(t.Header) == 6 {
			t.Rows = nil // no figure beyond the throughput tables' own: no table
			return t
		}
		t.Notes = append(t.Notes, "Columns without a figure in any run are left out (the lines under the summary's per-dollar table say what each run lacks).")
	}
	return t
}

// costFrontier adds $/1M output tokens and tok/J to a run's frontier
// table (the Pareto cells, rows context and N first): the per-dollar
// frontier of a run is its throughput frontier, each cell at its cost.
func (r *Report) costFrontier(t Table) Table {
	ai := -1
	for i, a := range r.Runs {
		if strings.HasSuffix(t.Title, ": "+a.Label+" (cells no other cell beats on both)") {
			ai = i
		}
	}
	if ai < 0 || len(t.Rows) != len(r.Runs[ai].Frontier.Pareto) {
		return t
	}
	rc := &r.Costs[ai]
	t.Header = append(slices.Clone(t.Header), "$/1M output tokens", "output tok/J")
	t.Right = append(slices.Clone(t.Right), true, true)
	if len(t.CSV) > 0 {
		t.CSV = append([][]string{append(slices.Clone(t.CSV[0]), "usd_per_mtok", "tok_per_j")}, t.CSV[1:]...)
	}
	for i, p := range r.Runs[ai].Frontier.Pareto {
		cc, ok := rc.Cell(analysis.Key{Phase: schema.PhaseDecode, ContextLabel: p.ContextLabel, Concurrency: p.Concurrency})
		if !ok {
			cc = analysis.CellCost{USDPerMTok: math.NaN(), TokPerJ: math.NaN()}
		}
		t.Rows[i] = append(slices.Clone(t.Rows[i]), usd(cc.USDPerMTok), sig3(cc.TokPerJ))
		if i+1 < len(t.CSV) {
			t.CSV[i+1] = append(slices.Clone(t.CSV[i+1]), Raw(cc.USDPerMTok), Raw(cc.TokPerJ))
		}
	}
	t.dropDashColumns(len(t.Header)-2, len(t.Header)-1)
	return t
}

// costPicks sets the figures per dollar and per joule of the summary's
// decode picks.
func (r *Report) costPicks() {
	for _, as := range [][]Answer{r.Summary.Answers, r.Summary.Best} {
		for ai := range as {
			if as[ai].Phase != schema.PhaseDecode {
				continue
			}
			for i := range as[ai].Runs {
				p := &as[ai].Runs[i]
				if cc, ok := r.pickCost(i, *p); ok {
					p.USDPerMTok, p.TokPerJ = fp(cc.USDPerMTok), fp(cc.TokPerJ)
				}
			}
		}
	}
}

// JSONCost is what the report says per dollar and per joule
// (docs/compare-json.md): present when prices or GPU counts were given
// or some run records energy.
type JSONCost struct {
	PricesAsOf string          `json:"prices_as_of,omitempty"`
	PricesFile string          `json:"prices_file,omitempty"`
	Runs       []JSONRunCost   `json:"runs"`
	Ratios     []JSONCostRatio `json:"ratios"`
}

// JSONRunCost is one run's price, GPUs, energy and cells.
type JSONRunCost struct {
	Run           string         `json:"run"`
	GPU           string         `json:"gpu"`
	GPUs          *int32         `json:"gpus"`
	GPUsGiven     bool           `json:"gpus_given"`
	USDPerGPUHour *float64       `json:"usd_per_gpu_hour"`
	PriceKey      string         `json:"price_key,omitempty"`
	PriceSource   string         `json:"price_source,omitempty"`
	NoPrice       string         `json:"no_price,omitempty"`
	USDPerHour    *float64       `json:"usd_per_hour"`
	Energy        bool           `json:"energy"`
	Missing       string         `json:"missing,omitempty"`
	Cells         []JSONCellCost `json:"cells"`
}

// JSONCellCost is one valid decode or serve cell per dollar, per joule
// and per GPU.
type JSONCellCost struct {
	Phase          schema.Phase `json:"phase"`
	Context        string       `json:"context"`
	N              int32        `json:"n"`
	RequestRate    *float64     `json:"request_rate,omitempty"`
	TotalTokS      float64      `json:"total_tok_s"`
	PerRequestTokS *float64     `json:"per_request_tok_s"`
	TokSPerGPU     *float64     `json:"tok_s_per_gpu"`
	USDPerMTok     *float64     `json:"usd_per_mtok"`
	TokPerUSD      *float64     `json:"tok_per_usd"`
	TokPerJ        *float64     `json:"tok_per_j"`
	AvgPowerW      *float64     `json:"avg_power_w"`
}

// JSONCostRatio is one other run against the baseline in one phase.
type JSONCostRatio struct {
	Run        string       `json:"run"`
	Phase      schema.Phase `json:"phase"`
	Throughput *float64     `json:"throughput"`
	Cells      int          `json:"cells"`
	PerDollar  *float64     `json:"per_dollar"`
	PerJoule   *float64     `json:"per_joule"`
	JouleCells int          `json:"joule_cells"`
}

// costJSON is the JSON form of the answers per dollar and per joule, nil
// when the report has none.
func (r *Report) costJSON() *JSONCost {
	if !r.costActive() {
		return nil
	}
	out := &JSONCost{Runs: []JSONRunCost{}, Ratios: []JSONCostRatio{}}
	if t := r.Options.Prices; t != nil {
		out.PricesAsOf, out.PricesFile = t.AsOfText, t.Name
	}
	for i, a := range r.Runs {
		rc := r.Costs[i]
		jr := JSONRunCost{Run: a.Label, GPU: a.Cells.Run.Run.GPU, GPUsGiven: rc.GPUsGiven, NoPrice: errText(rc.NoPrice),
			USDPerHour: fp(rc.USDPerHour()), Energy: rc.Energy, Missing: r.missing(i), Cells: []JSONCellCost{}}
		if rc.GPUs > 0 {
			jr.GPUs = &rc.GPUs
		}
		if rc.Priced {
			jr.USDPerGPUHour, jr.PriceKey, jr.PriceSource = fp(rc.Price.USDPerHour), rc.Price.GPU, rc.Price.Source
		}
		for _, cc := range rc.Cells {
			jc := JSONCellCost{Phase: cc.Key.Phase, Context: cc.Key.ContextLabel, N: cc.Key.Concurrency, TotalTokS: cc.TotalTokS, PerRequestTokS: fp(cc.PerRequestTokS),
				TokSPerGPU: fp(cc.PerGPUTokS), USDPerMTok: fp(cc.USDPerMTok), TokPerUSD: fp(cc.TokPerUSD), TokPerJ: fp(cc.TokPerJ), AvgPowerW: fp(cc.AvgPowerW)}
			if cc.Key.RequestRate != 0 {
				jc.RequestRate = fp(cc.Key.RequestRate)
			}
			jr.Cells = append(jr.Cells, jc)
		}
		out.Runs = append(out.Runs, jr)
	}
	for _, cr := range r.CostRatios {
		out.Ratios = append(out.Ratios, JSONCostRatio{Run: r.Comparison.Labels[cr.Other+1], Phase: cr.Phase, Throughput: fp(cr.Throughput), Cells: cr.Cells,
			PerDollar: fp(cr.PerDollar), PerJoule: fp(cr.PerJoule), JouleCells: cr.JouleCells})
	}
	return out
}

// costCharts draws output tokens per dollar and per joule against the
// speed each request sees (the interactivity frontier per dollar and per
// joule): a line per run and context through its decode cells, from one
// request to the most. A chart whose figure no run has is not drawn.
func (r *Report) costCharts() []plots.Named {
	if !r.costActive() {
		return nil
	}
	var out []plots.Named
	for _, ch := range []struct {
		name, caption, title, ylabel string
		y                            func(analysis.CellCost) float64
	}{
		{"per_dollar", "Output tokens per dollar against the speed each request sees, a line per run and context (price × GPUs per hour over throughput)",
			"Tokens per dollar against interactivity (decode)", "Output tokens per dollar (millions)", func(c analysis.CellCost) float64 { return c.TokPerUSD / 1e6 }},
		{"per_joule", "Output tokens per joule against the speed each request sees, a line per run and context (energy of all the server's GPUs)",
			"Tokens per joule against interactivity (decode)", "Output tokens per joule", func(c analysis.CellCost) float64 { return c.TokPerJ }},
	} {
		var series []plots.Series
		any := false
		for i, a := range r.Runs {
			var byCtx []plots.Series
			for _, cc := range r.Costs[i].Cells {
				y := ch.y(cc)
				if cc.Key.Phase != schema.PhaseDecode || math.IsNaN(y) || math.IsNaN(cc.PerRequestTokS) || !(y > 0) {
					continue
				}
				if len(byCtx) == 0 || byCtx[len(byCtx)-1].Group != cc.Key.ContextLabel {
					byCtx = append(byCtx, plots.Series{Name: a.Label + " " + cc.Key.ContextLabel, Group: cc.Key.ContextLabel, Run: a.Label})
				}
				s := &byCtx[len(byCtx)-1]
				s.Points = append(s.Points, plots.Point{X: cc.PerRequestTokS, Y: y, Cell: chartCell(cc.Key)})
				any = true
			}
			series = append(series, byCtx...)
		}
		if !any {
			continue
		}
		out = append(out, plots.Named{Name: ch.name, Caption: ch.caption, Chart: plots.LineChart{
			Title: ch.title, XLabel: "Output per request (tok/s)", YLabel: ch.ylabel,
			LogY: true, GroupTitle: "Context", RunTitle: "Run", Series: series,
		}})
	}
	return out
}

// jouleAnswersTable answers per joule per decode context: each run's
// cell with the most output tokens per joule, at any speed and, when
// asked (-min-user-tps), with every request at least that fast; ratio =
// tok/J over the baseline's. Nil rows without energy.
func (r *Report) jouleAnswersTable() Table {
	t := Table{Name: "answers_joule", Lead: true, Title: "Most output tokens per joule per context (ratio = tok/J / baseline's)", Header: []string{"question", "context"}, Right: []bool{false, false}}
	for _, l := range r.Comparison.Labels {
		t.Header = append(t.Header, l+" tok/J")
		t.Right = append(t.Right, true)
	}
	for _, l := range r.Comparison.Labels[1:] {
		t.Header = append(t.Header, "ratio "+l)
		t.Right = append(t.Right, true)
	}
	t.CSV = [][]string{{"question", "context", "run", "found", "cell", "tok_per_j", "per_request_tok_s", "total_tok_s", "ratio"}}
	if !r.anyEnergy() {
		return t
	}
	mins := []float64{0}
	if r.MinUserTokS > 0 {
		mins = append(mins, r.MinUserTokS)
	}
	for _, min := range mins {
		q := "most output tok/J"
		if min > 0 {
			q += fmt.Sprintf(" with ≥ %s tok/s per request", strconv.FormatFloat(min, 'g', -1, 64))
		}
		byRun := make([][]analysis.JouleBest, len(r.Runs))
		var ctxs []string
		for i := range r.Runs {
			byRun[i] = analysis.MostPerJoule(&r.Costs[i], min)
			for _, b := range byRun[i] {
				if !slices.Contains(ctxs, b.ContextLabel) {
					ctxs = append(ctxs, b.ContextLabel)
				}
			}
		}
		for _, ctx := range ctxs {
			row := []string{q, ctx}
			var ratios []string
			var base analysis.JouleBest
			any := false
			for i, a := range r.Runs {
				b := analysis.JouleBest{ContextLabel: ctx}
				for _, x := range byRun[i] {
					if x.ContextLabel == ctx {
						b = x
					}
				}
				if i == 0 {
					base = b
				}
				text, ratio := "none", math.NaN()
				if b.Found {
					any = true
					text = sig3(b.Cell.TokPerJ) + " (" + cellName(ctx, b.Cell.Key.Concurrency) + ")"
					if i > 0 && base.Found {
						ratio = b.Cell.TokPerJ / base.Cell.TokPerJ
					}
				}
				row = append(row, text)
				if i > 0 {
					if math.IsNaN(ratio) {
						ratios = append(ratios, "—")
					} else {
						ratios = append(ratios, ratioText(ratio))
					}
				}
				cell := ""
				if b.Found {
					cell = cellName(ctx, b.Cell.Key.Concurrency)
				}
				t.CSV = append(t.CSV, []string{q, ctx, a.Label, strconv.FormatBool(b.Found), cell, Raw(b.Cell.TokPerJ), Raw(b.Cell.PerRequestTokS), Raw(b.Cell.TotalTokS), Raw(ratio)})
			}
			if any {
				t.add(append(row, ratios...)...)
			}
		}
	}
	t.Notes = append(t.Notes, "Power rises with load, so the cell with the most tokens per joule need not be the one with the most tokens per second; none: no cell with energy qualifies. Cells a run could not measure (looped, over capacity) have no figure and are not candidates.")
	return t
}
