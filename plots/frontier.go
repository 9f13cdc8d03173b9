package plots

import (
	"fmt"
	"image/color"
	"math"
	"sort"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Frontier draws the throughput–interactivity trade-off: every valid cell
// of each run as a point (per-request tok/s on X, total tok/s on Y), with
// the run's Pareto front (the cells no other cell beats on both) drawn as
// a line and labelled. Points' Labels name the cells ("8K×128").
type Frontier struct {
	Title, XLabel, YLabel string
	// Series holds one run each; non-valid points are ignored.
	Series []Series
	// LogY puts total tok/s on a logarithmic axis.
	LogY bool
	// MinX, when positive, draws the interactivity target (a vertical
	// line at MinX tok/s per user) and rings each run's best cell at or
	// above it.
	MinX float64
}

// paretoFront returns the indices of the valid points of pts that no
// other valid point dominates (at least as high on X and Y, higher on
// one), ordered by X. Equal points are all kept.
// Note: package analysis computes the front too; plots recomputes it (a
// quadratic scan over at most a few hundred cells) so that a Frontier
// spec needs nothing but points.
func paretoFront(pts []Point) []int {
	var idx []int
	for i, p := range pts {
		if isValid(p.Status) {
			idx = append(idx, i)
		}
	}
	var front []int
	for _, i := range idx {
		dominated := false
		for _, j := range idx {
			a, b := pts[i], pts[j]
			if b.X >= a.X && b.Y >= a.Y && (b.X > a.X || b.Y > a.Y) {
				dominated = true
				break
			}
		}
		if !dominated {
			front = append(front, i)
		}
	}
	sort.SliceStable(front, func(a, b int) bool { return pts[front[a]].X < pts[front[b]].X })
	return front
}

// bestAbove returns the index of the valid point with the highest Y among
// those with X ≥ minX, or −1.
func bestAbove(pts []Point, minX float64) int {
	best := -1
	for i, p := range pts {
		if isValid(p.Status) && p.X >= minX && (best < 0 || p.Y > pts[best].Y) {
			best = i
		}
	}
	return best
}

// Figure implements Chart.
func (f Frontier) Figure() (*Figure, error) {
	// Cells without a value have no place on this chart.
	var kept []Series
	for _, s := range f.Series {
		ks := s
		ks.Points = nil
		for _, pt := range s.Points {
			if isValid(pt.Status) {
				ks.Points = append(ks.Points, pt)
			}
		}
		kept = append(kept, ks)
	}
	f.Series = kept
	if err := checkPoints(f.Series, false, f.LogY); err != nil {
		return nil, fmt.Errorf("plots: %s: %w", f.Title, err)
	}
	p := newPlot(f.Title, f.XLabel, f.YLabel)
	setupAxes(p, false, f.LogY, nil, nil, 0)
	legend := newLegend()

	var placed [][2]float64 // normalised positions of the labels drawn so far
	offFront := false       // some valid cell is off its run's front
	norm := frontierNorm(f.Series, f.LogY)
	ms := &markSet{}
	for si, s := range f.Series {
		// A run's points, front, labels and ring are one group a legend
		// entry hides or shows (interactive.go).
		var adds []plot.Plotter
		add := func(ps ...plot.Plotter) { adds = append(adds, ps...) }
		col := seriesColor(si)
		faint := color.NRGBA{R: col.R, G: col.G, B: col.B, A: 0x60}
		var all plotter.XYs
		for _, pt := range s.Points {
			if isValid(pt.Status) {
				all = append(all, plotter.XY{X: pt.X, Y: pt.Y})
			}
		}
		sc, err := plotter.NewScatter(all)
		if err != nil {
			return nil, err
		}
		sc.GlyphStyle = draw.GlyphStyle{Color: faint, Radius: vg.Points(2.5), Shape: runGlyph(si)}
		add(sc)

		front := paretoFront(s.Points)
		offFront = offFront || len(all) > len(front)
		var fxy plotter.XYs
		var fpts []Point
		for _, i := range front {
			fxy = append(fxy, plotter.XY{X: s.Points[i].X, Y: s.Points[i].Y})
			fpts = append(fpts, s.Points[i])
		}
		ln, fs, err := plotter.NewLinePoints(fxy)
		if err != nil {
			return nil, err
		}
		ln.LineStyle = draw.LineStyle{Color: col, Width: vg.Points(1.8), Dashes: runDash(si)}
		fs.GlyphStyle = draw.GlyphStyle{Color: col, Radius: vg.Points(3.5), Shape: runGlyph(si)}
		add(ln, fs)
		if err := addPointLabels(add, spreadLabels(fpts, &placed, norm), col); err != nil {
			return nil, err
		}
		key := "r" + strconv.Itoa(si)
		addEntry(legend, s.Name+" (front)", groupThumb{id: ms.add(`class="sm-toggle" data-sm-toggle="`+key+`"`, s.Name+": click to hide or show"), inner: []plot.Thumbnailer{ln, fs}})

		if f.MinX > 0 {
			if b := bestAbove(s.Points, f.MinX); b >= 0 {
				ring, err := plotter.NewScatter(plotter.XYs{{X: s.Points[b].X, Y: s.Points[b].Y}})
				if err != nil {
					return nil, err
				}
				ring.GlyphStyle = draw.GlyphStyle{Color: col, Radius: vg.Points(8), Shape: draw.RingGlyph{}}
				add(ring)
			}
		}
		g := groupPlotter{id: ms.add(`class="sm-series" data-sm="`+key+`"`, ""), inner: adds}
		for _, pt := range s.Points {
			g.inner = append(g.inner, hoverPoint{id: ms.add(`class="sm-pt"`, f.hoverTitle(s, pt)), x: pt.X, y: pt.Y})
		}
		p.Add(g)
	}
	if offFront {
		// Only when drawn: an entry for no point read as missing data.
		other, _ := plotter.NewScatter(plotter.XYs{})
		other.GlyphStyle = draw.GlyphStyle{Color: grey, Radius: vg.Points(2.5), Shape: draw.CircleGlyph{}}
		addEntry(legend, "other cells (faint)", other)
	}

	if f.MinX > 0 {
		ymin, ymax := math.Inf(1), math.Inf(-1)
		for _, s := range f.Series {
			for _, pt := range s.Points {
				if isValid(pt.Status) {
					ymin, ymax = math.Min(ymin, pt.Y), math.Max(ymax, pt.Y)
				}
			}
		}
		if !f.LogY {
			ymin = 0
		}
		target, err := plotter.NewLine(plotter.XYs{{X: f.MinX, Y: ymin}, {X: f.MinX, Y: ymax}})
		if err != nil {
			return nil, err
		}
		target.LineStyle = draw.LineStyle{Color: grey, Width: vg.Points(1), Dashes: []vg.Length{vg.Points(4), vg.Points(3)}}
		p.Add(target)
		addEntry(legend, " ")
		addEntry(legend, fmt.Sprintf("target ≥ %s tok/s per user", FormatNumber(f.MinX)), target)
		ring, _ := plotter.NewScatter(plotter.XYs{})
		ring.GlyphStyle = draw.GlyphStyle{Color: grey, Radius: vg.Points(6), Shape: draw.RingGlyph{}}
		addEntry(legend, "best cell meeting the target", ring)
	}
	if !f.LogY {
		p.Y.Min = 0
	}
	p.X.Min = 0
	return &Figure{Plot: p, Legend: legend, marks: ms}, nil
}

// hoverTitle is a point's hover title: its run, its cell (Cell, else
// Label), X and Y exactly, each after its axis label, and whether it is
// on the run's front.
func (f Frontier) hoverTitle(s Series, pt Point) string {
	title := s.Name
	if cell := pt.cell(); cell != "" {
		title += ", " + cell
	}
	return title + ": " + f.XLabel + " " + exact(pt.X) + ", " + f.YLabel + " " + exact(pt.Y)
}

// spreadLabels clears the labels of points that would sit on top of a
// label already placed (within 10% of the X span and 5% of the Y span),
// keeping the higher-throughput one. norm maps a point to roughly where
// it is drawn, as fractions of the axes.
func spreadLabels(pts []Point, placed *[][2]float64, norm func(Point) (float64, float64)) []Point {
	out := make([]Point, len(pts))
	copy(out, pts)
	for i := len(out) - 1; i >= 0; i-- { // the front is ordered by X: high throughput last
		x, y := norm(out[i])
		clash := false
		for _, q := range *placed {
			if math.Abs(q[0]-x) < 0.1 && math.Abs(q[1]-y) < 0.05 {
				clash = true
				break
			}
		}
		if clash {
			out[i].Label = ""
			continue
		}
		*placed = append(*placed, [2]float64{x, y})
	}
	return out
}

// frontierNorm returns a function placing a point on [0, 1]² the way the
// axes will: X from 0, Y from 0 (linear) or from the smallest value (log).
func frontierNorm(series []Series, logY bool) func(Point) (float64, float64) {
	xmax, ymin, ymax := 0.0, math.Inf(1), 0.0
	for _, s := range series {
		for _, p := range s.Points {
			xmax, ymin, ymax = math.Max(xmax, p.X), math.Min(ymin, p.Y), math.Max(ymax, p.Y)
		}
	}
	return func(p Point) (float64, float64) {
		x := p.X / xmax
		if logY && ymax > ymin {
			return x, math.Log(p.Y/ymin) / math.Log(ymax/ymin)
		}
		return x, p.Y / ymax
	}
}
