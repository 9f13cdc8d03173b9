package report

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"html/template"
	"io"
	"regexp"
	"strings"

	"speedmatrix/plots"
)

// Page is the content of one report page (a comparison, a trend).
// Everything is plain data: cells are already formatted strings, charts
// are specs rendered to SVG inside the page.
type Page struct {
	Title    string
	Subtitle string
	// Lead is the answer in a few sentences, shown first and boxed.
	Lead []string
	// Notes are paragraphs shown under the title (caveats such as "the
	// seeds carry one median per cell and no spread").
	Notes []string
	// LeadCharts stand beside the lead, on the first screen (the ratio
	// heatmaps of a comparison), drawn at LeadChartWidthPx ×
	// LeadChartHeightPx.
	LeadCharts []Chart
	// LeadTables follow the lead, open: the summary a reader needs first.
	LeadTables []Table
	// Runs lays the runs' metadata side by side: Header is the field
	// column's name then one column per run; each row is a field then
	// its value in each run. Rows whose values differ are highlighted.
	Runs Table
	// Charts follow the lead tables, each as inline SVG.
	Charts []Chart
	// Tables come last, each folded (a <details> element) with the runs
	// table: deltas, summaries, the scaling fit.
	Tables []Table
	// ChartWidthPx and ChartHeightPx size the charts' layout (0 means
	// plots.DefaultWidthPx × plots.DefaultHeightPx); the page scales them
	// to fit.
	ChartWidthPx, ChartHeightPx int
}

// A table on the page: its Title is the caption, Class styles each row
// ("better" green, "worse" red, "muted" grey, "flag" bold, "differs"
// highlighted; other values are kept as classes but not styled), its
// Notes are printed under it as one paragraph.

// rowView is one table row as the template sees it.
type rowView struct {
	Class string
	Cells []cellView
}

type cellView struct {
	Text    string
	Numeric bool
}

type tableView struct {
	ID      string
	Class   string
	Caption string
	Header  []string
	Rows    []rowView
	Note    string
}

type chartView struct {
	ID      string
	Caption string
	SVG     template.HTML
}

type reportView struct {
	Title, Subtitle string
	Lead, Notes     []string
	LeadTables      []tableView
	LeadCharts      []chartView
	Font            template.CSS
	Runs            *tableView
	Tables          []tableView
	Charts          []chartView
	TOC             []tocEntry
}

type tocEntry struct{ ID, Text string }

// LeadChartWidthPx and LeadChartHeightPx size a chart beside the lead:
// it is shown about 600 px wide at 1366×768, with the title, the lead and
// the whole chart on the first screen.
//
// Note: at 620×430 the heatmap's cell labels overlapped (the fonts keep
// their size while the plot shrinks); 1200×750 scaled to 600 px printed
// them at about 6 px. 860×600 keeps them apart and readable.
const (
	LeadChartWidthPx  = 860
	LeadChartHeightPx = 600
)

// numeric matches cells that read as numbers ("6,091.1", "−53.2%",
// "0.47×", "1,388 ms"), with the "≥ " of a lower bound, so they are
// right-aligned (a bound left-aligned among figures read as text).
var numeric = regexp.MustCompile(`^([≥≤] )?[+\-−]?[0-9][0-9,]*(\.[0-9]+)?\s*(%|×|[KM]|ms|s|tok/s)?$`)

func viewTable(id string, t Table, markDiffs bool) tableView {
	v := tableView{ID: id, Caption: t.Title, Header: t.Header, Note: strings.Join(t.Notes, " ")}
	for i, row := range t.Rows {
		rv := rowView{}
		if i < len(t.Class) {
			rv.Class = t.Class[i]
		}
		if markDiffs && rv.Class == "" && len(row) > 2 {
			for _, c := range row[2:] {
				if c != row[1] {
					rv.Class = "differs"
					break
				}
			}
		}
		for _, c := range row {
			rv.Cells = append(rv.Cells, cellView{Text: c, Numeric: numeric.MatchString(strings.TrimSpace(c))})
		}
		v.Rows = append(v.Rows, rv)
	}
	return v
}

// svgProlog matches what vgsvg writes before the <svg> element.
var svgProlog = regexp.MustCompile(`^(?s)<\?xml[^>]*\?>\s*(<!--.*?-->\s*)?`)

// inlineSVG renders f as an SVG element for the page: no XML prolog, no
// embedded font (the page carries Liberation Sans once), labelled for
// screen readers.
func inlineSVG(f *plots.Figure, widthPx, heightPx int, title string) (template.HTML, error) {
	var buf bytes.Buffer
	if err := plots.SaveSVGNoFont(f, &buf, widthPx, heightPx); err != nil {
		return "", err
	}
	s := svgProlog.ReplaceAllString(buf.String(), "")
	s = strings.Replace(s, "<svg ", `<svg role="img" aria-label="`+template.HTMLEscapeString(title)+`" `, 1)
	// Note: the SVG is trusted output of vgsvg, which escapes every text it
	// draws (html.EscapeString), so it is inserted as HTML.
	return template.HTML(s), nil
}

// fontCSS returns an @font-face rule carrying the charts' font
// (plots.FontFamily) as a data URL.
//
// Note: built per page rather than cached, so the package holds no
// state: 2–3.5 ms of a 105–190 ms seeds page (BenchmarkWritePage, 2
// cores), about 2%.
func fontCSS() (template.CSS, error) {
	var raw bytes.Buffer
	if err := plots.WriteFont(&raw); err != nil {
		return "", err
	}
	return template.CSS(`@font-face{font-family:"` + plots.FontFamily + `";font-style:normal;font-weight:normal;src:url(data:font/ttf;base64,` +
		base64.StdEncoding.EncodeToString(raw.Bytes()) + `) format("truetype")}`), nil
}

// anchor turns a caption into an HTML id.
func anchor(prefix, s string, i int) string {
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9':
			b.WriteRune(r)
		case b.Len() > 0 && !strings.HasSuffix(b.String(), "-"):
			b.WriteByte('-')
		}
	}
	return fmt.Sprintf("%s%d-%s", prefix, i+1, strings.TrimSuffix(b.String(), "-"))
}

// WritePage writes r as one self-contained HTML page: inline CSS, the
// font as a data URL, every chart as inline SVG, no scripts and no
// external files. Text is escaped by html/template.
func WritePage(w io.Writer, r Page) error {
	css, err := fontCSS()
	if err != nil {
		return err
	}
	wpx, hpx := r.ChartWidthPx, r.ChartHeightPx
	if wpx == 0 && hpx == 0 {
		wpx, hpx = plots.DefaultWidthPx, plots.DefaultHeightPx
	}
	v := reportView{Title: r.Title, Subtitle: r.Subtitle, Lead: r.Lead, Notes: r.Notes, Font: css}
	for i, t := range r.LeadTables {
		v.LeadTables = append(v.LeadTables, viewTable(anchor("s", t.Title, i), t, false))
	}
	if len(r.Runs.Rows) > 0 {
		rt := viewTable("runs", r.Runs, true)
		rt.Class = "runs"
		if rt.Caption == "" {
			rt.Caption = "Runs"
		}
		v.Runs = &rt
		v.TOC = append(v.TOC, tocEntry{ID: rt.ID, Text: rt.Caption})
	}
	for i, t := range r.Tables {
		tv := viewTable(anchor("t", t.Title, i), t, false)
		v.Tables = append(v.Tables, tv)
		v.TOC = append(v.TOC, tocEntry{ID: tv.ID, Text: t.Title})
	}
	for i, n := range r.LeadCharts {
		cv, err := viewChart(n, anchor("lc", n.Name, i), LeadChartWidthPx, LeadChartHeightPx)
		if err != nil {
			return err
		}
		v.LeadCharts = append(v.LeadCharts, cv)
	}
	for i, n := range r.Charts {
		cv, err := viewChart(n, anchor("c", n.Name, i), wpx, hpx)
		if err != nil {
			return err
		}
		v.Charts = append(v.Charts, cv)
		v.TOC = append(v.TOC, tocEntry{ID: cv.ID, Text: cv.Caption})
	}
	var buf bytes.Buffer
	if err := pageTemplate.Execute(&buf, v); err != nil {
		return fmt.Errorf("report: page: %w", err)
	}
	_, err = buf.WriteTo(w)
	return err
}

// viewChart draws n as inline SVG of wpx × hpx for the page.
func viewChart(n Chart, id string, wpx, hpx int) (chartView, error) {
	if h, ok := n.Chart.(plots.Heatmap); ok {
		h.WidthPx = wpx // its cell text fits cells of that width
		n.Chart = h
	}
	fig, err := n.Chart.Figure()
	if err != nil {
		return chartView{}, fmt.Errorf("report: chart %s: %w", n.Name, err)
	}
	caption := n.Caption
	if caption == "" {
		caption = fig.Plot.Title.Text
	}
	svg, err := inlineSVG(fig, wpx, hpx, caption)
	if err != nil {
		return chartView{}, fmt.Errorf("report: chart %s: %w", n.Name, err)
	}
	return chartView{ID: id, Caption: caption, SVG: svg}, nil
}

var pageTemplate = template.Must(template.New("page").Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{.Title}}</title>
<style>
{{.Font}}
body{font-family:"Liberation Sans",Arial,Helvetica,sans-serif;margin:0 auto;max-width:1100px;padding:1.5rem;color:#222;line-height:1.4}
h1{font-size:1.4rem;margin:0 0 .2rem}
.lead{background:#eef4fb;border-left:5px solid #3a6ea5;padding:.3rem .9rem;margin:.6rem 0;font-size:1.05rem}
.lead p{margin:.4rem 0}
.first.two{display:grid;grid-template-columns:minmax(0,4fr) minmax(0,5fr);gap:1rem;align-items:start}
.first.two .lead{font-size:.95rem;margin:0}
.leadcharts figure{margin:0 0 1rem}
@media (max-width:900px){.first.two{grid-template-columns:minmax(0,1fr)}}
section.summary h2{font-size:1rem;margin:1rem 0 .3rem}
details.fold{margin:.4rem 0}
details.fold>summary{cursor:pointer;font-weight:bold;padding:.2rem 0}
h2{font-size:1.2rem;margin:2rem 0 .6rem;border-bottom:1px solid #ddd;padding-bottom:.2rem}
.subtitle{color:#555;margin:0 0 1rem}
.note{background:#f6f6f0;border-left:4px solid #c9b458;padding:.4rem .8rem;margin:.5rem 0}
nav ul{columns:2;padding-left:1.2rem;margin:.5rem 0}
.scroll{overflow-x:auto}
table{border-collapse:collapse;font-size:.85rem;margin:.3rem 0}
caption{text-align:left;font-weight:bold;padding:.3rem 0}
th,td{border:1px solid #d8d8d8;padding:.2rem .5rem;vertical-align:top}
th{background:#f0f0f0;text-align:left}
td.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
table.runs td:first-child{white-space:nowrap;font-weight:bold}
table.runs td{max-width:32rem;overflow-wrap:anywhere}
tr.better td{background:#e9f6ec}
tr.worse td{background:#fbeaea}
tr.muted td{color:#888}
tr.flag td{font-weight:bold}
tr.differs td{background:#fff6d6}
.tnote{color:#555;font-size:.85rem;margin:.2rem 0 1rem}
figure{margin:1rem 0 2rem}
figure svg{width:100%;height:auto;max-width:1000px;display:block}
figcaption{color:#555;font-size:.9rem}
</style>
</head>
<body>
<header>
<h1>{{.Title}}</h1>
{{with .Subtitle}}<p class="subtitle">{{.}}</p>{{end}}
</header>
<div class="first{{if .LeadCharts}} two{{end}}">
{{with .Lead}}<section class="lead" id="answer">{{range .}}<p>{{.}}</p>
{{end}}</section>
{{end}}
{{with .LeadCharts}}<div class="leadcharts">{{range .}}<figure id="{{.ID}}">
{{.SVG}}
<figcaption>{{.Caption}}</figcaption>
</figure>
{{end}}</div>
{{end}}
</div>
{{range .LeadTables}}<section id="{{.ID}}" class="summary">
<h2>{{.Caption}}</h2>
{{template "table" .}}
</section>
{{end}}
{{range .Notes}}<p class="note">{{.}}</p>
{{end}}
{{with .TOC}}<nav><details><summary>Contents</summary><ul>{{range .}}<li><a href="#{{.ID}}">{{.Text}}</a></li>{{end}}</ul></details></nav>{{end}}
{{if .Charts}}<section id="charts">
<h2>Charts</h2>
{{range .Charts}}<figure id="{{.ID}}">
{{.SVG}}
<figcaption>{{.Caption}}</figcaption>
</figure>
{{end}}</section>
{{end}}
{{with .Runs}}<details class="fold" id="{{.ID}}">
<summary>{{.Caption}}</summary>
{{template "table" .}}
</details>
{{end}}
{{range .Tables}}<details class="fold" id="{{.ID}}">
<summary>{{.Caption}}</summary>
{{template "table" .}}
</details>
{{end}}
</body>
</html>
{{define "table"}}<div class="scroll"><table{{with .Class}} class="{{.}}"{{end}}>
{{- if .Header}}
<thead><tr>{{range .Header}}<th scope="col">{{.}}</th>{{end}}</tr></thead>
{{- end}}
<tbody>
{{range .Rows}}<tr{{with .Class}} class="{{.}}"{{end}}>{{range .Cells}}<td{{if .Numeric}} class="num"{{end}}>{{.Text}}</td>{{end}}</tr>
{{end}}</tbody>
</table></div>
{{with .Note}}<p class="tnote">{{.}}</p>{{end}}{{end}}
`))
