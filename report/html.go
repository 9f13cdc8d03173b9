package report

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"speedmatrix/analysis"
	"speedmatrix/plots"
	"speedmatrix/schema"
)

// Chart is one chart of a report: a plots spec with its file name and
// caption.
type Chart = plots.Named

// Charts returns every chart of the report that can be drawn, and a
// note for each that cannot (a chart whose series hold no figure is left
// out, never drawn empty): decode throughput and per-request speed
// against concurrency, the USL fits, a ratio heatmap per compared run,
// prefill against context, decode against context, the frontier per
// context, and for serving runs throughput, latency percentiles, latency
// against throughput and per-request against total.
func (r *Report) Charts() (charts []Chart, notes []string) {
	for _, ch := range append(append(r.charts(), r.serveCharts()...), r.costCharts()...) {
		ch = r.nameLoneRun(ch)
		// Drawn once here: a chart that cannot be drawn is noted and left
		// out, so the page and the files never fail on a valid comparison.
		f, err := ch.Chart.Figure()
		if err == nil {
			err = plots.SaveSVG(f, io.Discard, plots.DefaultWidthPx, plots.DefaultHeightPx)
		}
		if err != nil {
			notes = append(notes, fmt.Sprintf("chart %s not drawn: %v", ch.Name, err))
			continue
		}
		charts = append(charts, ch)
	}
	return charts, notes
}

// nameLoneRun names the run of a line chart drawn from one run of
// several in its title and caption: its legend tells contexts apart, not
// runs, so nothing said whose line it was (a serving chart by
// concurrency when the other runs' loads are request rates).
func (r *Report) nameLoneRun(ch Chart) Chart {
	lc, ok := ch.Chart.(plots.LineChart)
	if !ok || len(r.Runs) < 2 || len(lc.Series) == 0 {
		return ch
	}
	run := lc.Series[0].Run
	for _, s := range lc.Series {
		if s.Run != run || run == "" {
			return ch
		}
	}
	if strings.Contains(lc.Title, run) {
		return ch // a chart of one run by design (the USL fits)
	}
	lc.Title += ": " + run
	ch.Chart = lc
	ch.Caption += " (" + run + " only: the other runs have no such cells)"
	return ch
}

// WriteHTML writes the self-contained report page (Page): the outcome
// beside the ratio heatmaps (the first screen at 1366×768), the summary
// tables, then the other charts, then the long tables folded.
func (r *Report) WriteHTML(w io.Writer, charts []Chart) error {
	return WritePage(w, r.Page(charts))
}

// Page is the content of the report page with charts: the runs side by
// side, the lead tables open and the long ones folded, as plain data a
// caller may lay out itself.
func (r *Report) Page(charts []Chart) Page {
	c := r.Comparison
	page := Page{
		Title:    "Speed-test comparison: " + strings.Join(c.Labels[1:], ", ") + " against " + c.Labels[0],
		Subtitle: "Baseline " + c.Labels[0] + " (" + c.Baseline.Run.Run.RunID + "); ratio = value / baseline",
		Lead:     r.Summary.Outcome,
		Runs:     runsTable(c),
	}
	// The ratio heatmaps answer "where" at a glance: beside the lead, on
	// the first screen, not four screens down among the charts.
	for _, ch := range charts {
		if strings.HasPrefix(ch.Name, "ratio_total") {
			page.LeadCharts = append(page.LeadCharts, ch)
		} else {
			page.Charts = append(page.Charts, ch)
		}
	}
	for _, t := range r.Tables() {
		if t.Name == "runs" {
			continue // Runs shows more, side by side
		}
		if t.Lead {
			page.LeadTables = append(page.LeadTables, t)
		} else {
			page.Tables = append(page.Tables, t)
		}
	}
	return page
}

// runsTable lays the runs' metadata side by side.
func runsTable(c *analysis.Comparison) Table {
	cells := append([]*analysis.Cells{c.Baseline}, c.Others...)
	t := Table{Name: "runs", Title: "Runs", Header: append([]string{"field"}, c.Labels...)}
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
			t.Class = append(t.Class, "")
		} else {
			t.Class = append(t.Class, "differs")
		}
	}
	return t
}
