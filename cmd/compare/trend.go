package main

import (
	"context"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strings"

	"speedmatrix/analysis"
	"speedmatrix/plots"
	"speedmatrix/report"
	"speedmatrix/schema"
)

// trendGroup is the runs of one model on one GPU.
type trendGroup struct {
	setup  string
	runs   []*schema.Matrix
	trends []analysis.Trend
}

// trend follows the chosen cells across archived runs of one model and
// GPU: those of the one run a selector matches, the runs several
// selectors or a broad selector match, or every group in the archive.
func trend(ctx context.Context, in *inputs, o *options, stdout io.Writer) error {
	files, runs, err := in.resolveMany(ctx, o.args)
	if err != nil {
		return err
	}
	if len(files) == 0 && len(runs) == 1 && len(o.args) > 0 {
		all, err := in.archivedRuns(ctx)
		if err != nil {
			return err
		}
		runs = analysis.SameSetup(all, &runs[0])
	}
	ids := make([]string, len(runs))
	for i, r := range runs {
		ids[i] = r.RunID
	}
	ms, err := in.load(ctx, ids)
	if err != nil {
		return err
	}
	ms = append(ms, files...)
	if len(ms) == 0 {
		return fmt.Errorf("no runs to follow")
	}
	var groups []*trendGroup
	bySetup := map[string]*trendGroup{}
	for _, m := range ms {
		k := strings.ToLower(runSetup(&m.Run))
		g := bySetup[k]
		if g == nil {
			g = &trendGroup{setup: runSetup(&m.Run)}
			bySetup[k] = g
			groups = append(groups, g)
		}
		g.runs = append(g.runs, m)
	}
	var all []analysis.Trend
	kept := groups[:0]
	for _, g := range groups {
		cells := o.cells
		if len(cells) == 0 {
			if k, ok := defaultCell(g.runs); ok {
				cells = []analysis.Key{k}
			}
		}
		for _, k := range cells {
			tr := analysis.BuildTrend(g.runs, k, o.trendMetric, o.order, o.threshold)
			if hasCell(tr) {
				g.trends = append(g.trends, tr)
			}
		}
		// Over the whole archive a group none of whose runs has the
		// cells is noise; a group the user selected is shown anyway.
		if len(g.trends) == 0 && len(o.args) == 0 {
			continue
		}
		if len(g.trends) == 0 {
			return fmt.Errorf("%s: no run has %s; give -cell phase:context:N", g.setup, cellList(cells))
		}
		kept = append(kept, g)
		all = append(all, g.trends...)
	}
	groups = kept
	if len(groups) == 0 {
		return fmt.Errorf("no archived run has %s; give -cell phase:context:N", cellList(o.cells))
	}
	switch o.format {
	case analysis.FormatCSV, analysis.FormatJSON:
		if err := analysis.WriteTrends(stdout, all, o.format); err != nil {
			return err
		}
	default:
		for _, g := range groups {
			head := fmt.Sprintf("%s: %d runs", g.setup, len(g.runs))
			if len(g.runs) == 1 {
				head = g.setup + ": 1 run"
			}
			if o.format == analysis.FormatMarkdown {
				head = "## " + head
			}
			if _, err := fmt.Fprintf(stdout, "%s\n\n", head); err != nil {
				return err
			}
			if err := analysis.WriteTrends(stdout, g.trends, o.format); err != nil {
				return err
			}
		}
	}
	if o.plotsDir == "" && o.html == "" {
		return nil
	}
	var charts []plots.Named
	for _, g := range groups {
		charts = append(charts, trendCharts(g, o)...)
	}
	if o.plotsDir != "" {
		if err := plots.WriteAll(o.plotsDir, charts); err != nil {
			return err
		}
	}
	if o.html != "" {
		page := plots.Report{Title: "Speed-test trend", Charts: charts,
			Subtitle: fmt.Sprintf("%s ordered by %s; changes beyond %g%% flagged", o.trendMetric.Name, orderName(o.order), o.threshold*100)}
		for _, t := range analysis.TrendTables(all) {
			page.LeadTables = append(page.LeadTables, report.HTMLTable(t))
		}
		page.Runs = plots.Table{Caption: "Runs", Header: []string{"setup", "runs"}}
		for _, g := range groups {
			page.Runs.Rows = append(page.Runs.Rows, []string{g.setup, fmt.Sprint(len(g.runs))})
		}
		return writeFile(o.html, func(w io.Writer) error { return plots.WriteReport(w, page) })
	}
	return nil
}

// hasCell reports whether any run of a trend holds its cell (valid or
// not).
func hasCell(tr analysis.Trend) bool {
	for _, p := range tr.Points {
		if p.State != analysis.StateMissing && p.State != analysis.StateNoValue {
			return true
		}
	}
	return false
}

func cellList(cells []analysis.Key) string {
	if len(cells) == 0 {
		return "a cell to follow"
	}
	var s []string
	for _, k := range cells {
		s = append(s, fmt.Sprintf("%s:%s:%d", k.Phase, k.ContextLabel, k.Concurrency))
	}
	return strings.Join(s, ", ")
}

func orderName(o analysis.TrendOrder) string {
	if o == analysis.ByDate {
		return "date"
	}
	return "engine version"
}

// defaultCell picks the cell a trend follows when none is given: the
// decode cell (else serve cell) at the shortest context with the most
// simultaneous requests that most runs measured validly.
func defaultCell(runs []*schema.Matrix) (analysis.Key, bool) {
	count := map[analysis.Key]int{}
	tokens := map[analysis.Key]int64{}
	for _, phase := range []schema.Phase{schema.PhaseDecode, schema.PhaseServe} {
		for _, m := range runs {
			for _, c := range analysis.IndexCells(m).Phase(phase) {
				if c.Status == schema.StatusValid && c.Key.Concurrency > 0 && c.Key.RequestRate == 0 {
					count[c.Key]++
					tokens[c.Key] = c.ContextTokens
				}
			}
		}
		if len(count) > 0 {
			break
		}
	}
	var best analysis.Key
	found := false
	for k, n := range count {
		if !found {
			best, found = k, true
			continue
		}
		b := count[best]
		switch {
		case n != b:
			if n > b {
				best = k
			}
		case tokens[k] != tokens[best]:
			if tokens[k] < tokens[best] {
				best = k
			}
		case k.Concurrency != best.Concurrency:
			if k.Concurrency > best.Concurrency {
				best = k
			}
		case k.ContextLabel < best.ContextLabel:
			best = k
		}
	}
	return best, found
}

// trendCharts draws one chart per followed cell of a group.
func trendCharts(g *trendGroup, o *options) []plots.Named {
	var out []plots.Named
	for _, tr := range g.trends {
		versions := make([]string, len(tr.Points))
		for i, p := range tr.Points {
			v := p.EngineVersion
			if o.order == analysis.ByDate || v == "" {
				v = analysis.DateText(p.Date)
			}
			versions[i] = v
		}
		// Equal labels (two runs of one version) get their run id.
		for i := range versions {
			if slices.Index(versions, versions[i]) != i || slices.Index(versions[i+1:], versions[i]) >= 0 {
				versions[i] += " " + tr.Points[i].RunID[:min(6, len(tr.Points[i].RunID))]
			}
		}
		cell := fmt.Sprintf("%s:%s:%d", tr.Cell.Phase, tr.Cell.ContextLabel, tr.Cell.Concurrency)
		s := plots.Series{Name: fmt.Sprintf("%s × %d", tr.Cell.ContextLabel, tr.Cell.Concurrency)}
		for i, p := range tr.Points {
			s.Points = append(s.Points, plots.Point{X: float64(i), Y: p.Value, Status: report.SchemaStatus(p.State)})
		}
		xl := "Engine version"
		if o.order == analysis.ByDate {
			xl = "Run date"
		}
		out = append(out, plots.Named{
			Name:    "trend_" + slug(g.setup) + "_" + slug(cell) + "_" + slug(tr.Metric.Name),
			Caption: fmt.Sprintf("%s of %s at %s across %d runs", tr.Metric.Label(tr.Cell.Phase), g.setup, cell, len(tr.Points)),
			Chart: plots.Trend{
				Title:  fmt.Sprintf("%s: %s at %s", g.setup, tr.Metric.Label(tr.Cell.Phase), cell),
				XLabel: xl, YLabel: tr.Metric.Label(tr.Cell.Phase),
				Versions: versions, Series: []plots.Series{s}, Threshold: tr.Threshold, HigherIsBetter: tr.Metric.HigherIsBetter,
			},
		})
	}
	return out
}

var nonName = regexp.MustCompile(`[^A-Za-z0-9]+`)

// slug turns text into a chart file name part.
func slug(s string) string {
	return strings.Trim(strings.ToLower(nonName.ReplaceAllString(s, "_")), "_")
}
