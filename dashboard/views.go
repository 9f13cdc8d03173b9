package dashboard

import (
	"fmt"
	"net/http"
	"net/url"
	"strconv"

	"speedmatrix/analysis"
	"speedmatrix/report"
)

// runsPage is the Runs view's data.
type runsPage struct {
	Q        *runsQuery
	Filters  []filterField
	Columns  []column
	Rows     []runRow
	Selected map[string]bool
	// Hidden are the selected ids not on this page, kept by the form.
	Hidden       []string
	Total, Shown int
	First, Last  int
	Page, Pages  int
	Prev, Next   string
	CompareURL   string
	Landscape    string
	Trend        string
}

// filterField is one filter input of the form.
type filterField struct{ Key, Label, Value string }

// column is a sortable column header: its link sorts by it (toggling
// the direction when it already does).
type column struct {
	Label, URL string
	Arrow      string
}

// runs is the Runs view.
func (s *Server) runs(r *http.Request) (string, *layout, error) {
	q, err := parseRunsQuery(r.URL.Query())
	if err != nil {
		return "", nil, err
	}
	l, err := s.get(r.Context())
	if err != nil {
		return "", nil, err
	}
	idx := q.filter(l)
	p := &runsPage{Q: q, Total: len(l.rows), Shown: len(idx), Selected: map[string]bool{}}
	p.Pages = max(1, (len(idx)+q.Per-1)/q.Per)
	if q.Page > p.Pages {
		return "", nil, badRequest("page %d: the filter leaves %d runs, %d pages of %d", q.Page, len(idx), p.Pages, q.Per)
	}
	p.Page = q.Page
	from, to := (q.Page-1)*q.Per, min(q.Page*q.Per, len(idx))
	p.First, p.Last = from+1, to
	for _, i := range idx[from:to] {
		p.Rows = append(p.Rows, l.rows[i])
	}
	onPage := map[string]bool{}
	for _, row := range p.Rows {
		onPage[row.ID] = true
	}
	for _, id := range q.Sel {
		p.Selected[id] = true
		if !onPage[id] {
			p.Hidden = append(p.Hidden, id)
		}
	}
	for _, k := range filterKeys {
		p.Filters = append(p.Filters, filterField{k, filterLabels[k], q.Raw[k]})
	}
	for _, c := range []struct{ key, label string }{{"date", "Date"}, {"model", "Model"}, {"gpu", "GPU"}, {"engine", "Engine"},
		{"version", "Version"}, {"quant", "Quantization"}, {"tool", "Tool"}, {"title", "Title"}, {"cells", "Cells"}} {
		dir, arrow := "asc", ""
		if q.Sort == c.key {
			arrow = "▲"
			if !q.Desc {
				dir = "desc"
			} else {
				arrow = "▼"
			}
		}
		p.Columns = append(p.Columns, column{c.label, "/runs?" + q.values(map[string]string{"sort": c.key, "dir": dir, "page": ""}).Encode(), arrow})
	}
	if q.Page > 1 {
		p.Prev = "/runs?" + q.values(map[string]string{"page": strconv.Itoa(q.Page - 1)}).Encode()
	}
	if q.Page < p.Pages {
		p.Next = "/runs?" + q.values(map[string]string{"page": strconv.Itoa(q.Page + 1)}).Encode()
	}
	if len(q.Sel) >= 2 {
		p.CompareURL = "/compare?" + selValues(q.Sel).Encode()
	}
	return "runs.html", &layout{Title: "Runs", Active: "runs", Nav: q.values(map[string]string{"page": "", "sort": "", "dir": "", "per": ""}), Body: p}, nil
}

// selValues is the query selecting ids.
func selValues(ids []string) url.Values {
	v := url.Values{}
	for _, id := range ids {
		v.Add("sel", id)
	}
	return v
}

// runPage is the Run view's data.
type runPage struct {
	ID     string
	Fields [][2]string
	Cells  report.Table
	Back   string
}

// run is the Run view: one run's metadata and its cells.
func (s *Server) run(r *http.Request) (string, *layout, error) {
	id := r.URL.Query().Get("id")
	if !validID(id) {
		return "", nil, badRequest("id=%q: not a run id", id)
	}
	l, err := s.get(r.Context())
	if err != nil {
		return "", nil, err
	}
	if _, ok := l.byID[id]; !ok {
		return "", nil, notFound("run %s is not in the archive %s", id, s.src.String())
	}
	ms, err := s.src.Load(r.Context(), id)
	if err != nil {
		return "", nil, archiveError(s.src.String(), err)
	}
	m := ms[0]
	run := &m.Run
	p := &runPage{ID: id, Back: "/runs?" + selValues([]string{id}).Encode()}
	add := func(k, v string) {
		if v != "" {
			p.Fields = append(p.Fields, [2]string{k, v})
		}
	}
	add("Run id", run.RunID)
	add("Title", run.Title)
	add("Subtitle", run.Subtitle)
	add("Model", run.Model)
	add("GPU", run.GPU)
	if run.GPUCount != nil {
		add("GPU count", strconv.Itoa(int(*run.GPUCount)))
	}
	add("Engine", run.Engine+" "+run.EngineVersion)
	add("Quantization", run.Quantization)
	add("Bench tool", run.BenchTool+" "+run.BenchVersion)
	add("Source", run.SourcePath)
	add("Ingested", run.IngestedAt.UTC().Format("2006-01-02 15:04:05"))
	if run.StartedAt != nil {
		add("Started", run.StartedAt.UTC().Format("2006-01-02 15:04:05"))
	}
	add("Launch command", run.LaunchCommand)
	for _, f := range run.Metadata {
		add(f.Key, f.Value)
	}
	t := report.Table{Header: []string{"Phase", "Context", "Load", "Status", "Total tok/s", "Per request tok/s", "TTFT ms"}}
	for i := range m.Measurements {
		x := &m.Measurements[i]
		k := analysis.KeyOf(x)
		t.Rows = append(t.Rows, []string{string(x.Phase), x.ContextLabel, report.LoadText(k), string(x.Status),
			num(x.TotalTokS), num(x.PerRequestTokS), num(x.TTFTMs)})
	}
	p.Cells = t
	return "run.html", &layout{Title: "Run " + id, Active: "runs", Body: p}, nil
}

// num prints a nullable figure.
func num(p *float64) string {
	if p == nil {
		return "—"
	}
	return report.FormatSig(*p, 5)
}

// gpuText prints a GPU and its count.
func gpuText(gpu string, n int) string {
	if n > 1 {
		return fmt.Sprintf("%d× %s", n, gpu)
	}
	return gpu
}
