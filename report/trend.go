package report

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"

	"speedmatrix/analysis"
	"speedmatrix/plots"
	"speedmatrix/schema"
)

// Trends is every group a trend report follows: what
// analysis.GroupTrends found, and how.
type Trends struct {
	Groups  []*analysis.TrendGroup
	Options analysis.TrendOptions
}

// NewTrends is the trend report of groups, followed as opt says.
func NewTrends(groups []*analysis.TrendGroup, opt analysis.TrendOptions) *Trends {
	return &Trends{Groups: groups, Options: opt}
}

func (t *Trends) all() []analysis.Trend {
	var out []analysis.Trend
	for _, g := range t.Groups {
		out = append(out, g.Trends...)
	}
	return out
}

// Write prints the trends: per group a heading and a table per cell
// (text, Markdown), or every point's row (CSV, JSON).
func (t *Trends) Write(w io.Writer, f Format) error {
	if f == FormatCSV || f == FormatJSON {
		return WriteTrends(w, t.all(), f)
	}
	for _, g := range t.Groups {
		head := fmt.Sprintf("%s: %d runs", SetupText(g), len(g.Runs))
		if len(g.Runs) == 1 {
			head = SetupText(g) + ": 1 run"
		}
		if f == FormatMarkdown {
			head = "## " + head
		}
		if _, err := fmt.Fprintf(w, "%s\n\n", head); err != nil {
			return err
		}
		if err := WriteTrends(w, g.Trends, f); err != nil {
			return err
		}
	}
	return nil
}

// Charts returns one chart per followed cell of each group.
func (t *Trends) Charts() []Chart {
	var out []Chart
	for _, g := range t.Groups {
		out = append(out, trendCharts(g, t.Options.Order)...)
	}
	return out
}

// WriteHTML writes the trend page: the tables open, then the charts.
func (t *Trends) WriteHTML(w io.Writer, charts []Chart) error {
	return WritePage(w, t.Page(charts))
}

// Page is the content of the trend page with charts, as plain data.
func (t *Trends) Page(charts []Chart) Page {
	o := t.Options
	page := Page{Title: "Speed-test trend", Charts: charts,
		Subtitle: fmt.Sprintf("%s ordered by %s; changes beyond %g%% flagged", o.Metric.Name, orderName(o.Order), o.Threshold*100)}
	page.LeadTables = append(page.LeadTables, TrendTables(t.all())...)
	page.Runs = Table{Title: "Runs", Header: []string{"setup", "runs"}}
	for _, g := range t.Groups {
		page.Runs.Rows = append(page.Runs.Rows, []string{SetupText(g), fmt.Sprint(len(g.Runs))})
	}
	return page
}

func orderName(o analysis.TrendOrder) string {
	if o == analysis.ByDate {
		return "date"
	}
	return "engine version"
}

// trendCharts draws one chart per followed cell of a group.
func trendCharts(g *analysis.TrendGroup, order analysis.TrendOrder) []plots.Named {
	var out []plots.Named
	for _, tr := range g.Trends {
		versions := make([]string, len(tr.Points))
		for i, p := range tr.Points {
			v := p.EngineVersion
			if order == analysis.ByDate || v == "" {
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
			s.Points = append(s.Points, plots.Point{X: float64(i), Y: p.Value, Status: SchemaStatus(p.State)})
		}
		xl := "Engine version"
		if order == analysis.ByDate {
			xl = "Run date"
		}
		out = append(out, plots.Named{
			Name:    "trend_" + slug(SetupText(g)) + "_" + slug(cell) + "_" + slug(tr.Metric.Name),
			Caption: fmt.Sprintf("%s of %s at %s across %d runs", MetricLabel(tr.Metric, tr.Cell.Phase), SetupText(g), cell, len(tr.Points)),
			Chart: plots.Trend{
				Title:  fmt.Sprintf("%s: %s at %s", SetupText(g), MetricLabel(tr.Metric, tr.Cell.Phase), cell),
				XLabel: xl, YLabel: MetricLabel(tr.Metric, tr.Cell.Phase),
				Versions: versions, Series: []plots.Series{s}, Threshold: tr.Threshold, HigherIsBetter: tr.Metric.HigherIsBetter,
			},
		})
	}
	return out
}

// TrendRow is one point of a trend as printed in CSV and JSON.
type TrendRow struct {
	Phase         schema.Phase `json:"phase"`
	ContextLabel  string       `json:"context_label"`
	Concurrency   int32        `json:"concurrency"`
	Metric        string       `json:"metric"`
	RunID         string       `json:"run_id"`
	Engine        string       `json:"engine"`
	EngineVersion string       `json:"engine_version"`
	Date          string       `json:"date"`
	Status        string       `json:"status"`
	Value         *float64     `json:"value"`
	ChangePct     *float64     `json:"change_pct"`
	Better        string       `json:"better"`
	Flagged       bool         `json:"flagged"`
}

// trendRows returns the trend's points as printed rows.
func trendRows(tr analysis.Trend) []TrendRow {
	out := make([]TrendRow, len(tr.Points))
	for i, p := range tr.Points {
		r := TrendRow{Phase: tr.Cell.Phase, ContextLabel: tr.Cell.ContextLabel, Concurrency: tr.Cell.Concurrency, Metric: tr.Metric.Name,
			RunID: p.RunID, Engine: p.Engine, EngineVersion: p.EngineVersion, Date: analysis.DateText(p.Date), Status: StateText(p.State),
			Better: VerdictText(p.Verdict), Flagged: p.Flagged}
		if !math.IsNaN(p.Value) {
			v := p.Value
			r.Value = &v
		}
		if !math.IsNaN(p.ChangePct) {
			c := p.ChangePct
			r.ChangePct = &c
		}
		out[i] = r
	}
	return out
}

// WriteTrends writes trends: a table per trend (text, Markdown), or all
// their rows (CSV, JSON array of TrendRow).
func WriteTrends(w io.Writer, trs []analysis.Trend, f Format) error {
	if f == FormatJSON {
		rows := []TrendRow{}
		for _, tr := range trs {
			rows = append(rows, trendRows(tr)...)
		}
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(rows)
	}
	if f == FormatCSV {
		t := Table{Header: []string{"phase", "context_label", "concurrency", "metric", "run_id", "engine", "engine_version", "date", "status", "value", "change_pct", "better", "flagged"}}
		t.Right = make([]bool, len(t.Header))
		for _, tr := range trs {
			for _, r := range trendRows(tr) {
				v, c := "", ""
				if r.Value != nil {
					v = Raw(*r.Value)
				}
				if r.ChangePct != nil {
					c = Raw(*r.ChangePct)
				}
				t.add(string(r.Phase), r.ContextLabel, strconv.Itoa(int(r.Concurrency)), r.Metric, r.RunID, r.Engine, r.EngineVersion, r.Date, r.Status, v, c, r.Better, strconv.FormatBool(r.Flagged))
			}
		}
		return t.Write(w, FormatCSV)
	}
	for _, t := range TrendTables(trs) {
		if err := t.Write(w, f); err != nil {
			return err
		}
	}
	return nil
}

// TrendTables returns the tables WriteTrends prints in text and
// Markdown: one per trend.
func TrendTables(trs []analysis.Trend) []Table {
	var out []Table
	for _, tr := range trs {
		t := Table{
			Title:  fmt.Sprintf("Trend of %s at %s:%s:%s (changes beyond %s flagged)", MetricLabel(tr.Metric, tr.Cell.Phase), tr.Cell.Phase, tr.Cell.ContextLabel, concurrency(tr.Cell.Concurrency), strconv.FormatFloat(tr.Threshold*100, 'g', -1, 64)+"%"),
			Header: []string{"run id", "date", "engine", "version", "value", "change", "verdict", "flag"},
			Right:  []bool{false, false, false, false, true, true, false, false},
		}
		for _, p := range tr.Points {
			v := num(p.Value)
			if p.State != analysis.StateValue {
				v = StateText(p.State)
			}
			flag, class := "", ""
			if p.Flagged {
				flag, class = "◀ beyond threshold", "flag"
			}
			t.add(p.RunID, analysis.DateText(p.Date), p.Engine, p.EngineVersion, v, pct(p.ChangePct), VerdictText(p.Verdict), flag)
			t.Class = append(t.Class, class)
		}
		for _, p := range tr.Points {
			if p.Date.IsZero() {
				t.Notes = append(t.Notes, "Undated runs (their documents give no date) sort "+map[analysis.TrendOrder]string{analysis.ByDate: "last", analysis.ByVersion: "after the dated runs of their version"}[tr.Order]+".")
				break
			}
		}
		out = append(out, t)
	}
	return out
}
