package plots

import (
	"errors"
	"fmt"
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"speedmatrix/schema"
)

// Point is one cell on a chart. A point whose Status is not valid (looped,
// over capacity, error, skipped) has no usable Y: it is drawn as a status
// marker at its X in a row along the bottom of the plot instead. The empty Status counts as valid.
type Point struct {
	X, Y   float64
	Status schema.Status
	// Label, when not empty, is printed beside the point.
	Label string
	// Cell, when not empty, names the point's cell in its hover title in
	// an SVG ("8K × 16") where Label is shorter ("N=16") or empty. It is
	// not drawn.
	Cell string
}

// cell names p's cell for a hover title: Cell, else Label.
func (p Point) cell() string {
	if p.Cell != "" {
		return p.Cell
	}
	return p.Label
}

// Series is one line of a chart: the cells of one run at one context, say.
// Series that share a Group share a colour; series that share a Run share
// a line pattern and a marker. With one run, or no Run set, every series
// gets its own colour and the legend names it by Name.
type Series struct {
	Name   string
	Group  string
	Run    string
	Points []Point
}

// LineChart draws series of points joined by lines: throughput or
// per-request speed against concurrency, prefill speed against context.
type LineChart struct {
	Title, XLabel, YLabel string
	// LogX2 puts X on a base-2 logarithmic axis ticked at powers of two
	// (1, 2, 4 … 128); XFormat labels those ticks (FormatCount when nil).
	LogX2   bool
	XFormat func(float64) string
	// LogY puts Y on a logarithmic axis ticked at 1, 2, 5 × 10ⁿ. Otherwise
	// Y starts at zero when every value is positive.
	LogY bool
	// XTicks, when set, replaces the automatic X ticks (context lengths
	// labelled "8K", "123K"); labels too close to their neighbour are
	// dropped, keeping the tick mark.
	XTicks []plot.Tick
	// XTickGap is the least distance between labelled X ticks, as a
	// fraction of the axis (0 means 0.05).
	XTickGap float64
	// GroupTitle and RunTitle head the two parts of the legend when
	// series are told apart by group and by run ("Context", "Run").
	GroupTitle, RunTitle string
	Series               []Series
	// Fits are model curves drawn thin over the points (a Universal
	// Scalability Law fit of each run and context), styled like the
	// series with the same Group and Run.
	Fits []Fit
	// FitLabel names the fits in the legend ("USL fit"); empty means "fit".
	FitLabel string
}

// Fit is a model curve: Y = F(X) for X in [Min, Max].
type Fit struct {
	Group, Run string
	F          func(x float64) float64
	Min, Max   float64
}

// fitSamples is how many points a fit curve is drawn with.
const fitSamples = 64

// samples evaluates f at fitSamples points spread evenly on the axis
// (geometrically on a log axis), dropping values the axis cannot show.
func (f Fit) samples(logX, logY bool) plotter.XYs {
	var xys plotter.XYs
	for i := range fitSamples {
		t := float64(i) / (fitSamples - 1)
		x := f.Min + t*(f.Max-f.Min)
		if logX {
			x = f.Min * math.Pow(f.Max/f.Min, t)
		}
		y := f.F(x)
		if math.IsNaN(y) || math.IsInf(y, 0) || (logY && y <= 0) {
			continue
		}
		xys = append(xys, plotter.XY{X: x, Y: y})
	}
	return xys
}

// markRow returns the Y of the row along the bottom of the plot where
// non-valid points are marked: below the lowest valid value (a step of
// the log axis, or 5% of the span), never on a series' line, because a
// cell without a figure has no Y and a mark at a made-up one reads as a
// measurement.
func markRow(minY, maxY float64, logY bool) float64 {
	switch {
	case math.IsInf(minY, 0) || math.IsNaN(minY):
		return 1
	case logY:
		return minY / math.Pow(maxY/minY, 0.06) / 1.15
	case minY >= 0:
		// A band under the zero line, not on it: a mark at 0 read as 0
		// tok/s (issue 24).
		return -0.06 * math.Max(maxY, 1e-9)
	}
	return minY - 0.05*(maxY-minY)
}

// checkPoints validates the values a chart will draw.
func checkPoints(series []Series, logX, logY bool) error {
	valid := 0
	for _, s := range series {
		for _, p := range s.Points {
			if math.IsNaN(p.X) || math.IsInf(p.X, 0) || (logX && p.X <= 0) {
				return fmt.Errorf("series %q: x = %v cannot be drawn on this axis", s.Name, p.X)
			}
			if !isValid(p.Status) {
				continue
			}
			if math.IsNaN(p.Y) || math.IsInf(p.Y, 0) || (logY && p.Y <= 0) {
				return fmt.Errorf("series %q at x = %v: y = %v cannot be drawn on this axis", s.Name, p.X, p.Y)
			}
			valid++
		}
	}
	if valid == 0 {
		return errors.New("no valid points to draw")
	}
	return nil
}

// Figure implements Chart.
func (lc LineChart) Figure() (*Figure, error) {
	if err := checkPoints(lc.Series, lc.LogX2, lc.LogY); err != nil {
		return nil, fmt.Errorf("plots: %s: %w", lc.Title, err)
	}
	p := newPlot(lc.Title, lc.XLabel, lc.YLabel)
	setupAxes(p, lc.LogX2, lc.LogY, lc.XFormat, lc.XTicks, lc.XTickGap)
	keys := newStyleKeys(lc.Series)
	legend := newLegend()

	var marks []markedPoint
	ms := &markSet{}
	minY, maxY := math.Inf(1), math.Inf(-1)
	for _, s := range lc.Series {
		for _, pt := range s.Points {
			if isValid(pt.Status) {
				minY, maxY = math.Min(minY, pt.Y), math.Max(maxY, pt.Y)
			}
		}
	}
	row := markRow(minY, maxY, lc.LogY)
	// Marks at one X stack downwards, one step each, so none hides another.
	stacked := map[float64]int{}
	step := func(k int) float64 {
		if lc.LogY {
			return row / math.Pow(1.25, float64(k))
		}
		span := maxY - math.Min(minY, 0)
		if math.IsInf(span, 0) || span <= 0 {
			span = 1
		}
		return row - 0.05*span*float64(k)
	}
	for _, s := range lc.Series {
		col := seriesColor(keys.color(s))
		var adds []plot.Plotter
		add := func(ps ...plot.Plotter) { adds = append(adds, ps...) }
		ri := keys.run(s)
		line := draw.LineStyle{Color: col, Width: vg.Points(1.8), Dashes: runDash(ri)}
		glyph := draw.GlyphStyle{Color: col, Radius: vg.Points(3), Shape: runGlyph(ri)}

		// Solid segments through runs of valid points; a thin dotted
		// bridge across each gap; status markers in a row at the bottom.
		var seg plotter.XYs
		flush := func() error {
			if len(seg) == 0 {
				return nil
			}
			l, sc, err := plotter.NewLinePoints(seg)
			if err != nil {
				return err
			}
			l.LineStyle = line
			sc.GlyphStyle = glyph
			add(l, sc)
			seg = nil
			return nil
		}
		lastValid := -1
		for i, pt := range s.Points {
			if !isValid(pt.Status) {
				if err := flush(); err != nil {
					return nil, err
				}
				marks = append(marks, markedPoint{x: pt.X, y: step(stacked[pt.X]), status: pt.Status, color: col})
				stacked[pt.X]++
				continue
			}
			if lastValid >= 0 && lastValid != i-1 {
				bridge, err := plotter.NewLine(plotter.XYs{{X: s.Points[lastValid].X, Y: s.Points[lastValid].Y}, {X: pt.X, Y: pt.Y}})
				if err != nil {
					return nil, err
				}
				bridge.LineStyle = draw.LineStyle{Color: col, Width: vg.Points(0.8), Dashes: []vg.Length{vg.Points(1), vg.Points(2.5)}}
				add(bridge)
			}
			seg = append(seg, plotter.XY{X: pt.X, Y: pt.Y})
			lastValid = i
		}
		if err := flush(); err != nil {
			return nil, err
		}
		if err := addPointLabels(add, s.Points, col); err != nil {
			return nil, err
		}
		lc.group(p, ms, keys, s, adds)
	}
	if err := addMarks(p, marks); err != nil {
		return nil, err
	}
	fitLegend, err := lc.addFits(p, keys)
	if err != nil {
		return nil, err
	}
	widenAxis(&p.X, lc.LogX2)
	widenAxis(&p.Y, lc.LogY)
	if !lc.LogY && minY >= 0 {
		p.Y.Min = 0
		for _, m := range marks {
			p.Y.Min = math.Min(p.Y.Min, m.y-0.03*maxY) // the marks' band lies below zero
		}
		// Rates and latencies are never negative: the band below zero
		// carries marks, not values, so its ticks are not printed.
		p.Y.Tick.Marker = nonNegativeTicks{p.Y.Tick.Marker}
	}
	seriesLegend(legend, lc.Series, keys, lc.GroupTitle, lc.RunTitle, ms)
	if fitLegend != nil {
		addEntry(legend, " ")
		name := lc.FitLabel
		if name == "" {
			name = "fit"
		}
		addEntry(legend, name, fitLegend)
	}
	statusLegend(legend, marks)
	return &Figure{Plot: p, Legend: legend, marks: ms}, nil
}

// addFits draws the fit curves and returns a legend thumbnail for them
// (nil when there is none).
func (lc LineChart) addFits(p *plot.Plot, keys styleKeys) (plot.Thumbnailer, error) {
	var thumb plot.Thumbnailer
	for _, f := range lc.Fits {
		if f.F == nil || !(f.Max > f.Min) || (lc.LogX2 && f.Min <= 0) {
			return nil, fmt.Errorf("plots: %s: fit for %q %q has no function or an empty range [%v, %v]", lc.Title, f.Group, f.Run, f.Min, f.Max)
		}
		s := Series{Name: f.Group, Group: f.Group, Run: f.Run}
		ci, ri := keys.color(s), keys.run(s)
		if ci < 0 {
			ci = len(keys.groups) // a group without points: next colour
		}
		if ri < 0 {
			ri = 0
		}
		xys := f.samples(lc.LogX2, lc.LogY)
		if len(xys) < 2 {
			continue
		}
		ln, err := plotter.NewLine(xys)
		if err != nil {
			return nil, err
		}
		col := seriesColor(ci)
		ln.LineStyle = draw.LineStyle{Color: color.NRGBA{R: col.R, G: col.G, B: col.B, A: 0x90}, Width: vg.Points(0.9), Dashes: runDash(ri)}
		p.Add(ln)
		if thumb == nil {
			th, _ := plotter.NewLine(plotter.XYs{})
			th.LineStyle = draw.LineStyle{Color: grey, Width: vg.Points(0.9)}
			thumb = th
		}
	}
	return thumb, nil
}

// setupAxes sets scales, tickers and the background grid.
func setupAxes(p *plot.Plot, logX2, logY bool, xformat func(float64) string, xticks []plot.Tick, gap float64) {
	if gap <= 0 {
		gap = 0.05
	}
	var xnorm plot.Normalizer = plot.LinearScale{}
	switch {
	case logX2:
		xnorm = plot.LogScale{}
		p.X.Scale = xnorm
		p.X.Tick.Marker = Log2Ticks{Format: xformat}
	default:
		p.X.Tick.Marker = commaTicks{}
	}
	if xticks != nil {
		ticks := append([]plot.Tick(nil), xticks...)
		p.X.Tick.Marker = plot.TickerFunc(func(min, max float64) []plot.Tick {
			return thinTicks(ticks, min, max, gap, xnorm)
		})
	}
	if logY {
		p.Y.Scale = plot.LogScale{}
		p.Y.Tick.Marker = Log125Ticks{}
	} else {
		p.Y.Tick.Marker = commaTicks{}
	}
	g := plotter.NewGrid()
	g.Vertical = draw.LineStyle{Color: gridGrey, Width: vg.Points(0.5)}
	g.Horizontal = draw.LineStyle{Color: gridGrey, Width: vg.Points(0.5)}
	p.Add(g)
}

// nonNegativeTicks drops the ticks of its Ticker below zero.
type nonNegativeTicks struct{ plot.Ticker }

// Ticks returns the ticks of t.Ticker at or above zero.
func (t nonNegativeTicks) Ticks(min, max float64) []plot.Tick {
	var out []plot.Tick
	for _, tk := range t.Ticker.Ticks(min, max) {
		if tk.Value >= 0 {
			out = append(out, tk)
		}
	}
	return out
}

// markedPoint is a non-valid cell marked in the row along the bottom.
type markedPoint struct {
	x, y   float64
	status schema.Status
	color  interface{ RGBA() (r, g, b, a uint32) }
}

// addMarks draws the status markers, one scatter per point so each keeps
// its series colour.
func addMarks(p *plot.Plot, marks []markedPoint) error {
	for _, m := range marks {
		sc, err := plotter.NewScatter(plotter.XYs{{X: m.x, Y: m.y}})
		if err != nil {
			return err
		}
		sc.GlyphStyle = draw.GlyphStyle{Color: m.color, Radius: vg.Points(4.5), Shape: markFor(m.status).glyph}
		p.Add(sc)
	}
	return nil
}

// addPointLabels prints the labels of the valid points that have one.
func addPointLabels(add func(...plot.Plotter), pts []Point, col interface{ RGBA() (r, g, b, a uint32) }) error {
	var xys plotter.XYs
	var labels []string
	for _, pt := range pts {
		if pt.Label != "" && isValid(pt.Status) {
			xys = append(xys, plotter.XY{X: pt.X, Y: pt.Y})
			labels = append(labels, pt.Label)
		}
	}
	if len(xys) == 0 {
		return nil
	}
	l, err := plotter.NewLabels(plotter.XYLabels{XYs: xys, Labels: labels})
	if err != nil {
		return err
	}
	for i := range l.TextStyle {
		l.TextStyle[i] = textStyle(cellSize)
		l.TextStyle[i].Color = col
		l.TextStyle[i].XAlign = draw.XLeft
		l.TextStyle[i].YAlign = draw.YBottom
	}
	l.Offset = vg.Point{X: vg.Points(4), Y: vg.Points(3)}
	add(l)
	return nil
}
