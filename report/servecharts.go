package report

import (
	"cmp"
	"math"
	"slices"
	"strings"

	"gonum.org/v1/plot"

	"speedmatrix/analysis"
	"speedmatrix/plots"
	"speedmatrix/schema"
)

// serveAxis is the load axis of the serving charts of one kind
// (concurrency or request rate): where each load sits and its tick.
type serveAxis struct {
	byRate bool
	// inf is where an unbounded rate ("all at once") is drawn: past the
	// highest finite rate, ticked "∞".
	inf   float64
	ticks map[float64]string
}

func newServeAxis(runs []analysis.RunAnalysis, byRate bool) (serveAxis, bool) {
	ax := serveAxis{byRate: byRate, ticks: map[float64]string{}}
	hi, any := 0.0, false
	for _, a := range runs {
		for _, sc := range a.Serve {
			if sc.ByRate != byRate {
				continue
			}
			for _, p := range sc.Points {
				any = true
				if !math.IsInf(p.Load, 0) && p.Load > hi {
					hi = p.Load
				}
			}
		}
	}
	ax.inf = 1
	if hi > 0 {
		ax.inf = math.Exp2(math.Ceil(math.Log2(hi)) + 1)
	}
	return ax, any
}

// x places a point's load; false when it cannot be drawn (no load).
func (ax serveAxis) x(sc analysis.ServeCurve, p analysis.ServePoint) (float64, bool) {
	x := p.Load
	if math.IsInf(x, 1) {
		x = ax.inf
	}
	if x <= 0 || math.IsNaN(x) {
		return 0, false
	}
	ax.ticks[x] = ServeLoadText(sc, p)
	return x, true
}

func (ax serveAxis) xTicks() []plot.Tick {
	var out []plot.Tick
	for v, l := range ax.ticks {
		out = append(out, plot.Tick{Value: v, Label: l})
	}
	slices.SortFunc(out, func(a, b plot.Tick) int { return cmp.Compare(a.Value, b.Value) })
	return out
}

func (ax serveAxis) label() string {
	if ax.byRate {
		return "Offered request rate (requests/s)"
	}
	return "Simultaneous requests"
}

// serveSeries is one series per run and context (and per figure when
// several are drawn): y(point) against the load, points without the
// figure left out.
func (ax serveAxis) series(runs []analysis.RunAnalysis, names []string, ys ...func(analysis.ServePoint) float64) []plots.Series {
	var out []plots.Series
	for _, a := range runs {
		for _, sc := range a.Serve {
			if sc.ByRate != ax.byRate {
				continue
			}
			for yi, y := range ys {
				g := sc.ContextLabel + " in"
				if len(names) > 0 {
					g += " " + names[yi]
				}
				s := plots.Series{Name: a.Label + " " + g, Group: g, Run: a.Label}
				for _, p := range sc.Points {
					x, ok := ax.x(sc, p)
					v := y(p)
					if !ok || p.State != analysis.StateValue || math.IsNaN(v) || v <= 0 {
						continue
					}
					s.Points = append(s.Points, plots.Point{X: x, Y: v})
				}
				if len(s.Points) > 0 {
					out = append(out, s)
				}
			}
		}
	}
	return out
}

// serveCharts draws the serving runs (phase serve): throughput and
// latency percentiles against the load, latency against throughput and
// per-request against total throughput. Runs by concurrency and runs by
// request rate get charts of their own.
func (r *Report) serveCharts() []Chart {
	if !r.hasPhase(schema.PhaseServe) {
		return nil
	}
	var out []Chart
	// add keeps the charts that have a series: a tool that reports no
	// TBT (SGLang's older files) gets no TBT chart, not an empty one.
	add := func(cs ...Chart) {
		for _, c := range cs {
			switch ch := c.Chart.(type) {
			case plots.LineChart:
				if len(ch.Series) == 0 {
					continue
				}
			case plots.Frontier:
				if len(ch.Series) == 0 {
					continue
				}
			}
			out = append(out, c)
		}
	}
	for _, byRate := range []bool{false, true} {
		ax, ok := newServeAxis(r.Runs, byRate)
		if !ok {
			continue
		}
		suffix, kind := "", "concurrency"
		if byRate {
			suffix, kind = "_rate", "request rate"
		}
		total := ax.series(r.Runs, nil, func(p analysis.ServePoint) float64 { return p.TotalTokS })
		perReq := ax.series(r.Runs, nil, func(p analysis.ServePoint) float64 { return p.PerRequestTokS })
		ttft := ax.series(r.Runs, []string{"p50", "p99"}, func(p analysis.ServePoint) float64 { return p.TTFTMs }, func(p analysis.ServePoint) float64 { return p.TTFTP99Ms })
		tbt := ax.series(r.Runs, []string{"p50", "p99"}, func(p analysis.ServePoint) float64 { return p.TBTMs }, func(p analysis.ServePoint) float64 { return p.TBTP99Ms })
		ticks := ax.xTicks()
		logX := len(ticks) > 1 // one load: a log axis has no span
		line := func(name, caption, title, ylabel string, logY bool, s []plots.Series) Chart {
			return Chart{Name: name + suffix, Caption: caption, Chart: plots.LineChart{
				Title: title, XLabel: ax.label(), YLabel: ylabel, LogX2: logX, LogY: logY, XTicks: ticks,
				GroupTitle: "Input tokens", RunTitle: "Run", Series: s,
			}}
		}
		add(
			line("serve_total", "Serving: total output throughput against "+kind+", a line per run and input length", "Serving: total throughput", "Total output (tok/s)", false, total),
			line("serve_per_request", "Serving: speed each request sees against "+kind, "Serving: speed per request", "Output per request (tok/s)", false, perReq),
			line("serve_ttft", "Serving: time to first token, median and p99, against "+kind, "Serving: time to first token (p50, p99)", "TTFT (ms)", true, ttft),
			line("serve_tbt", "Serving: time between tokens, median and p99, against "+kind, "Serving: time between tokens (p50, p99)", "TBT (ms)", true, tbt),
		)
		// Latency against throughput: each load a point, labelled by it.
		var lat, fr []plots.Series
		for _, a := range r.Runs {
			for _, sc := range a.Serve {
				if sc.ByRate != byRate {
					continue
				}
				ls := plots.Series{Name: a.Label + " " + sc.ContextLabel + " in", Group: sc.ContextLabel + " in", Run: a.Label}
				fs := plots.Series{Name: a.Label + " " + sc.ContextLabel + " in", Run: a.Label}
				for _, p := range sc.Points {
					if p.State != analysis.StateValue || !(p.TotalTokS > 0) {
						continue
					}
					if p.TTFTMs > 0 {
						ls.Points = append(ls.Points, plots.Point{X: p.TotalTokS, Y: p.TTFTMs, Label: pointLabel(sc, p), Cell: serveCell(sc, p)})
					}
					if p.PerRequestTokS > 0 {
						fs.Points = append(fs.Points, plots.Point{X: p.PerRequestTokS, Y: p.TotalTokS, Label: pointLabel(sc, p), Cell: serveCell(sc, p)})
					}
				}
				if len(ls.Points) > 0 {
					slices.SortFunc(ls.Points, func(a, b plots.Point) int { return cmp.Compare(a.X, b.X) })
					lat = append(lat, ls)
				}
				if len(fs.Points) > 0 {
					fr = append(fr, fs)
				}
			}
		}
		add(
			Chart{Name: "serve_latency_throughput" + suffix, Caption: "Serving: median time to first token against total throughput, each point a load (" + kind + ")", Chart: plots.LineChart{
				Title: "Serving: latency against throughput", XLabel: "Total output (tok/s)", YLabel: "TTFT p50 (ms)", LogY: true,
				GroupTitle: "Input tokens", RunTitle: "Run", Series: lat,
			}},
			Chart{Name: "serve_frontier" + suffix, Caption: "Serving: total throughput against the speed each request sees, each point a load (" + kind + "); the line joins the cells no other beats on both", Chart: plots.Frontier{
				Title: "Serving: per-request against total throughput", XLabel: "Output per request (tok/s)", YLabel: "Total output (tok/s)",
				MinX: r.MinUserTokS, Series: fr,
			}},
		)
	}
	return out
}

// pointLabel is the load printed beside a serving point, empty where the
// source recorded none (a dash beside a point reads as a mark).
func pointLabel(sc analysis.ServeCurve, p analysis.ServePoint) string {
	if l := ServeLoadText(sc, p); l != "—" {
		return l
	}
	return ""
}

// serveCell names a serving point's load in its hover title, where the
// printed label is a bare number: "N=16" (simultaneous requests), "4/s",
// "16 @4/s"; empty where the source recorded no load.
func serveCell(sc analysis.ServeCurve, p analysis.ServePoint) string {
	l := pointLabel(sc, p)
	if l != "" && !strings.Contains(l, "/s") {
		return "N=" + l
	}
	return l
}
