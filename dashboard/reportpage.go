package dashboard

import (
	"bytes"
	"fmt"
	"html/template"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"speedmatrix/analysis"
	"speedmatrix/report"
)

// Limits of the report views.
const maxTrendRuns = 200 // runs a trend loads

// compare is the Compare view: report.New over the selected runs, the
// first the baseline, written as compare -html writes it, with the
// dashboard's bar on top and its script (hover values) at the end.
func (s *Server) compare(r *http.Request) (string, *layout, error) {
	q, err := parseRunsQuery(r.URL.Query())
	if err != nil {
		return "", nil, err
	}
	if len(q.Sel) < 2 {
		return "", nil, badRequest("compare needs at least two selected runs (sel=BASELINE&sel=OTHER), %d given: select them in the Runs view", len(q.Sel))
	}
	l, err := s.get(r.Context())
	if err != nil {
		return "", nil, err
	}
	for _, id := range q.Sel {
		if _, ok := l.byID[id]; !ok {
			return "", nil, notFound("run %s is not in the archive %s", id, s.src.String())
		}
	}
	ms, err := s.src.Load(r.Context(), q.Sel...)
	if err != nil {
		return "", nil, archiveError(s.src.String(), err)
	}
	c, err := analysis.Compare(ms[0], ms[1:], analysis.Options{Labels: report.Labels(ms), SameWithin: sameWithin})
	if err != nil {
		return "", nil, badRequest("these runs cannot be compared: %v", err)
	}
	rep := report.New(c, report.Options{})
	charts, notes := rep.Charts()
	var buf bytes.Buffer
	if err := rep.WriteHTML(&buf, charts); err != nil {
		return "", nil, badRequest("the report of these runs could not be written: %v", err)
	}
	nav := q.values(map[string]string{"page": ""})
	return "", &layout{Body: s.wrapReport(buf.Bytes(), "compare", nav, notes)}, nil
}

// trend is the Trend view: the runs the Runs filters keep, grouped by
// model and GPU and followed across engine versions (or dates) as
// compare -trend does, with its flagged regressions. Without a filter it
// lists the configurations that have at least two runs.
func (s *Server) trend(r *http.Request) (string, *layout, error) {
	v := r.URL.Query()
	q, err := parseRunsQuery(v)
	if err != nil {
		return "", nil, err
	}
	order := analysis.ByVersion
	switch o := v.Get("order"); o {
	case "", "version":
	case "date":
		order = analysis.ByDate
	default:
		return "", nil, badRequest("order=%q: want version or date", o)
	}
	l, err := s.get(r.Context())
	if err != nil {
		return "", nil, err
	}
	if len(q.Filters) == 0 {
		return "trend.html", &layout{Title: "Trend", Active: "trend", Body: setups(l)}, nil
	}
	idx := q.filter(l)
	if len(idx) == 0 {
		return "", nil, notFound("no run matches the filters %s", q.filterValues().Encode())
	}
	if len(idx) > maxTrendRuns {
		return "", nil, badRequest("the filters keep %d runs; a trend follows at most %d: narrow them (model and GPU)", len(idx), maxTrendRuns)
	}
	ids := make([]string, len(idx))
	for i, j := range idx {
		ids[i] = l.rows[j].ID
	}
	ms, err := s.src.Load(r.Context(), ids...)
	if err != nil {
		return "", nil, archiveError(s.src.String(), err)
	}
	topt := analysis.TrendOptions{Metric: analysis.TotalTokS, Order: order, Threshold: 0.05}
	groups, err := analysis.GroupTrends(ms, topt)
	if err != nil {
		return "", nil, badRequest("no trend over these runs: %v", err)
	}
	if len(groups) == 0 {
		return "", nil, notFound("no configuration among the %d runs the filters keep has a cell measured in two runs", len(ms))
	}
	tr := report.NewTrends(groups, topt)
	var buf bytes.Buffer
	if err := tr.WriteHTML(&buf, tr.Charts()); err != nil {
		return "", nil, badRequest("the trend of these runs could not be written: %v", err)
	}
	return "", &layout{Body: s.wrapReport(buf.Bytes(), "trend", q.filterValues(), nil)}, nil
}

// setup is one model and GPU with its run count, for the Trend view's list.
type setup struct {
	Model, GPU string
	Runs       int
	URL        string
}

// setups lists the configurations with two runs or more, most runs first.
func setups(l *listing) []setup {
	type key struct{ model, gpu string }
	n := map[key]int{}
	for i := range l.rows {
		n[key{l.rows[i].Model, l.rows[i].GPU}]++
	}
	var out []setup
	for k, c := range n {
		if c < 2 {
			continue
		}
		v := map[string][]string{"model": {k.model}, "gpu": {k.gpu}}
		out = append(out, setup{k.model, k.gpu, c, "/trend?" + encode(v)})
	}
	sortSetups(out)
	return out
}

// wrapReport puts the dashboard's bar (the nav and the damaged files)
// after the report page's <body> and its script before </body>.
func (s *Server) wrapReport(page []byte, active string, nav map[string][]string, notes []string) []byte {
	l := &layout{Active: active, Nav: nav, Damaged: s.damages()}
	var bar bytes.Buffer
	if err := templates.ExecuteTemplate(&bar, "bar", l); err != nil {
		fmt.Fprintf(&bar, "<p>%s</p>", template.HTMLEscapeString(err.Error()))
	}
	for _, n := range notes {
		fmt.Fprintf(&bar, `<p class="note">%s</p>`, template.HTMLEscapeString(n))
	}
	head := `<link rel="stylesheet" href="/static/style.css"><link rel="icon" href="data:,">`
	out := string(page)
	out = strings.Replace(out, "</head>", head+"</head>", 1)
	if i := strings.Index(out, "<body>"); i >= 0 {
		out = out[:i+len("<body>")] + bar.String() + out[i+len("<body>"):]
	}
	out = strings.Replace(out, "</body>", `<script src="/static/app.js"></script></body>`, 1)
	return []byte(out)
}

// encode is url.Values.Encode of a plain map.
func encode(v map[string][]string) string { return url.Values(v).Encode() }

// sortSetups orders setups by run count, then model and GPU.
func sortSetups(s []setup) {
	slices.SortFunc(s, func(a, b setup) int {
		if a.Runs != b.Runs {
			return b.Runs - a.Runs
		}
		if c := strings.Compare(a.Model, b.Model); c != 0 {
			return c
		}
		return strings.Compare(a.GPU, b.GPU)
	})
}

// sameWithin is the band within which a change without spread reads
// "same": compare's -tolerance default (3%), so a link from serve and the
// command give one verdict (analysis's own default, 0.05%, calls a 3%
// TTFT difference "worse").
const sameWithin = 0.03
