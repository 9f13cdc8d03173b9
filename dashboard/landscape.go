package dashboard

import (
	"context"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"speedmatrix/report"
	"speedmatrix/schema"
)

// landscapeColumns are the measurement columns the Landscape reads
// (archive.LoadColumns), not the printed and extra lists.
var landscapeColumns = []string{"phase", "context_label", "context_tokens", "concurrency", "request_rate", "status", "total_tok_s", "per_request_tok_s"}

// maxLandscapeRuns bounds the runs one Landscape loads.
//
// Note: the points are cached per run and snapshot, so a second look at
// the same runs reads nothing; the bound keeps a first look at an
// unfiltered 100,000-run archive from reading every measurement.
const maxLandscapeRuns = 2000

// point is one measured decode cell of a run.
type point struct {
	Context     string
	CtxTokens   int64
	Concurrency int32
	Total       float64 // total_tok_s
	PerUser     float64 // per_request_tok_s
}

// points returns the decode cells of the runs ids, from the cache or
// read with LoadColumns.
func (s *Server) points(ctx context.Context, l *listing, ids []string) (map[string][]point, error) {
	s.cache.mu.Lock()
	var missing []string
	out := make(map[string][]point, len(ids))
	same := s.cache.cur == l
	for _, id := range ids {
		if p, ok := s.cache.points[id]; ok && same {
			out[id] = p
		} else {
			missing = append(missing, id)
		}
	}
	s.cache.mu.Unlock()
	if len(missing) == 0 {
		return out, nil
	}
	ms, err := s.src.LoadColumns(ctx, landscapeColumns, missing...)
	if err != nil {
		return nil, err
	}
	for _, m := range ms {
		var ps []point
		for i := range m.Measurements {
			x := &m.Measurements[i]
			if x.Phase != schema.PhaseDecode || x.Status != schema.StatusValid || x.TotalTokS == nil || x.PerRequestTokS == nil || x.Concurrency == nil {
				continue
			}
			p := point{Context: x.ContextLabel, Concurrency: *x.Concurrency, Total: *x.TotalTokS, PerUser: *x.PerRequestTokS}
			if x.ContextTokens != nil {
				p.CtxTokens = *x.ContextTokens
			}
			ps = append(ps, p)
		}
		out[m.Run.RunID] = ps
	}
	s.cache.mu.Lock()
	if s.cache.cur == l {
		for _, id := range missing {
			s.cache.points[id] = out[id]
		}
	}
	s.cache.mu.Unlock()
	return out, nil
}

// landscapePage is the Landscape view's data.
type landscapePage struct {
	Contexts []ctxOption
	Context  string
	Runs     int // runs the filters keep
	Loaded   int // runs drawn (at most maxLandscapeRuns)
	Points   int
	WithCell int  // runs with a drawn point
	PerGPU   bool // every drawn run knows its GPU count
	Chart    svgChart
	Legend   []legendEntry
	Filters  string // the filters, for the form's hidden inputs
	Hidden   [][2]string
}

// ctxOption is one context of the select.
type ctxOption struct {
	Label    string
	Selected bool
}

// legendEntry is one colour: a GPU, engine and quantization.
type legendEntry struct {
	Label, Colour string
	N, Group      int
}

// svgChart is the Landscape's inline SVG, laid out in Go.
type svgChart struct {
	W, H                    int
	Left, Top, PlotW, PlotH int
	XTicks, YTicks          []tick
	XLabel, YLabel          string
	Dots                    []dot
}

// tick is one axis tick at a pixel position.
type tick struct {
	Pos   float64
	Label string
}

// dot is one point: its place, colour, link and hover text.
type dot struct {
	X, Y   float64
	Colour string
	Group  int
	URL    string
	Title  string
}

// palette colours the legend entries (Okabe–Ito, then Tableau).
var palette = []string{"#0072B2", "#E69F00", "#009E73", "#CC79A7", "#D55E00", "#56B4E9", "#F0E442", "#000000",
	"#8c564b", "#7f7f7f", "#bcbd22", "#17becf"}

// landscape is the Landscape view: output tok/s per GPU (per server
// when a run's GPU count is not known) against tok/s per user, one point
// per valid decode cell at one context.
func (s *Server) landscape(r *http.Request) (string, *layout, error) {
	v := r.URL.Query()
	q, err := parseRunsQuery(v)
	if err != nil {
		return "", nil, err
	}
	l, err := s.get(r.Context())
	if err != nil {
		return "", nil, err
	}
	idx := q.filter(l)
	p := &landscapePage{Runs: len(idx)}
	if len(idx) > maxLandscapeRuns {
		idx = idx[:maxLandscapeRuns]
	}
	p.Loaded = len(idx)
	ids := make([]string, len(idx))
	for i, j := range idx {
		ids[i] = l.rows[j].ID
	}
	pts, err := s.points(r.Context(), l, ids)
	if err != nil {
		return "", nil, archiveError(s.src.String(), err)
	}
	// Contexts, ordered by tokens; the default is the most measured.
	count := map[string]int{}
	tokens := map[string]int64{}
	for _, ps := range pts {
		for _, x := range ps {
			count[x.Context]++
			tokens[x.Context] = x.CtxTokens
		}
	}
	ctxs := make([]string, 0, len(count))
	for c := range count {
		ctxs = append(ctxs, c)
	}
	slices.SortFunc(ctxs, func(a, b string) int {
		if tokens[a] != tokens[b] {
			return int(tokens[a] - tokens[b])
		}
		return strings.Compare(a, b)
	})
	p.Context = v.Get("ctx")
	if p.Context == "" {
		for _, c := range ctxs {
			if p.Context == "" || count[c] > count[p.Context] {
				p.Context = c
			}
		}
	} else if count[p.Context] == 0 && len(ctxs) > 0 {
		return "", nil, badRequest("ctx=%q: no measured decode cell at this context among these runs; the contexts are %s", p.Context, strings.Join(ctxs, ", "))
	}
	for _, c := range ctxs {
		p.Contexts = append(p.Contexts, ctxOption{c, c == p.Context})
	}
	p.PerGPU = true
	type drawn struct {
		row *runRow
		p   point
		y   float64
	}
	var ds []drawn
	for _, j := range idx {
		row := &l.rows[j]
		for _, x := range pts[row.ID] {
			if x.Context != p.Context {
				continue
			}
			y := x.Total
			if row.GPUCount > 0 {
				y /= float64(row.GPUCount)
			} else {
				p.PerGPU = false
			}
			ds = append(ds, drawn{row, x, y})
		}
	}
	p.Points = len(ds)
	with := map[string]bool{}
	for _, d := range ds {
		with[d.row.ID] = true
	}
	p.WithCell = len(with)
	// Colours by GPU (with its count), engine and quantization, most points first.
	group := func(r *runRow) string {
		return strings.Join(nonEmpty(gpuText(r.GPU, r.GPUCount), r.Engine, r.Quantization), " · ")
	}
	gn := map[string]int{}
	for _, d := range ds {
		gn[group(d.row)]++
	}
	var gs []string
	for g := range gn {
		gs = append(gs, g)
	}
	slices.SortFunc(gs, func(a, b string) int {
		if gn[a] != gn[b] {
			return gn[b] - gn[a]
		}
		return strings.Compare(a, b)
	})
	colour := map[string]string{}
	gi := map[string]int{}
	for i, g := range gs {
		c := palette[i%len(palette)]
		colour[g], gi[g] = c, i
		p.Legend = append(p.Legend, legendEntry{g, c, gn[g], i})
	}
	ch := svgChart{W: 1000, H: 560, Left: 80, Top: 20, PlotW: 880, PlotH: 480,
		XLabel: "tok/s per user (per_request_tok_s)"}
	ch.YLabel = "output tok/s per GPU"
	if !p.PerGPU {
		ch.YLabel = "output tok/s per GPU (per server where the GPU count is not known)"
	}
	var maxX, maxY float64
	for _, d := range ds {
		maxX, maxY = math.Max(maxX, d.p.PerUser), math.Max(maxY, d.y)
	}
	xs, xTop := niceTicks(maxX)
	ys, yTop := niceTicks(maxY)
	for _, t := range xs {
		ch.XTicks = append(ch.XTicks, tick{float64(ch.Left) + t/xTop*float64(ch.PlotW), tickLabel(t)})
	}
	for _, t := range ys {
		ch.YTicks = append(ch.YTicks, tick{float64(ch.Top+ch.PlotH) - t/yTop*float64(ch.PlotH), tickLabel(t)})
	}
	for _, d := range ds {
		per := "per GPU"
		if d.row.GPUCount == 0 {
			per = "per server (GPU count not known)"
		}
		title := fmt.Sprintf("%s tok/s %s at %s tok/s per user\n%s × %d streams (total %s tok/s)\nrun %s: %s\n%s %s %s %s",
			hoverNum(d.y), per, hoverNum(d.p.PerUser), d.p.Context, d.p.Concurrency,
			hoverNum(d.p.Total), short(d.row.ID), d.row.Title, gpuText(d.row.GPU, d.row.GPUCount), d.row.Engine, d.row.EngineVersion, d.row.Quantization)
		ch.Dots = append(ch.Dots, dot{
			X:      float64(ch.Left) + d.p.PerUser/xTop*float64(ch.PlotW),
			Y:      float64(ch.Top+ch.PlotH) - d.y/yTop*float64(ch.PlotH),
			Colour: colour[group(d.row)],
			Group:  gi[group(d.row)],
			URL:    "/run?" + url.Values{"id": {d.row.ID}}.Encode(),
			Title:  title,
		})
	}
	p.Chart = ch
	for k, s := range q.Raw {
		p.Hidden = append(p.Hidden, [2]string{k, s})
	}
	slices.SortFunc(p.Hidden, func(a, b [2]string) int { return strings.Compare(a[0], b[0]) })
	nav := q.values(map[string]string{"page": "", "sort": "", "dir": "", "per": ""})
	return "landscape.html", &layout{Title: "Landscape", Active: "landscape", Nav: nav, Body: p}, nil
}

// hoverNum prints a point's figure for its hover: five significant
// figures at most, without the trailing zeros FormatSig pads with
// ("162.6", not "162.60": the run measured 325.2 tok/s on two GPUs).
func hoverNum(v float64) string {
	s := report.FormatSig(v, 5)
	if strings.Contains(s, ".") {
		s = strings.TrimSuffix(strings.TrimRight(s, "0"), ".")
	}
	return s
}

// niceTicks returns 5–10 round ticks from 0 covering max, and the top.
func niceTicks(max float64) ([]float64, float64) {
	if max <= 0 || math.IsNaN(max) || math.IsInf(max, 0) {
		max = 1
	}
	raw := max / 5
	mag := math.Pow(10, math.Floor(math.Log10(raw)))
	step := mag
	for _, m := range []float64{1, 2, 2.5, 5, 10} {
		if m*mag >= raw {
			step = m * mag
			break
		}
	}
	top := math.Ceil(max/step) * step
	var ts []float64
	for t := 0.0; t <= top+step/2; t += step {
		ts = append(ts, t)
	}
	return ts, top
}

// tickLabel prints a round tick value: "0", "2.5", "10,000".
func tickLabel(v float64) string {
	s := strconv.FormatFloat(v, 'f', -1, 64)
	whole, frac, _ := strings.Cut(s, ".")
	for i := len(whole) - 3; i > 0; i -= 3 {
		whole = whole[:i] + "," + whole[i:]
	}
	if frac != "" {
		return whole + "." + frac
	}
	return whole
}

// nonEmpty keeps the non-empty strings.
func nonEmpty(ss ...string) []string {
	var out []string
	for _, s := range ss {
		if s != "" {
			out = append(out, s)
		}
	}
	return out
}

// short is a run id's first 12 characters.
func short(id string) string { return id[:min(len(id), 12)] }
