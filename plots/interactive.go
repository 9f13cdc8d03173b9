package plots

import (
	"html"
	"image/color"
	"math"
	"regexp"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"
)

// A chart's SVG carries, beside what it draws, what a page needs to be
// interactive: each series' marks in a group <g data-sm="g1 r0"> (its
// context group and run; a frontier's "r1"), each valid point an
// invisible circle under a <g class="sm-pt"> whose <title> gives its
// exact value, run and cell, each heat-map cell an invisible rectangle
// under a <g class="sm-cell"> whose <title> names the cell and gives its
// value, and each legend entry's thumbnail a group
// <g data-sm-toggle="g1"> a click may use to hide or show the series it
// names. Browsers show a <title> on hover without any script; serve's
// page script adds the legend toggles. TestPNGPixels checks that a PNG
// stays the same pixel for pixel.
//
// gonum/plot's canvas has no notion of a group, so a plotter drawn
// inside one writes a marker before and after itself: an invisible text
// "SMK" S|E index, which SVG output replaces with the group's <g> and
// </g> (markSet.rewrite). A PNG draws none of it.
//
// Note: groups rather than per-element titles because a series is many
// paths (segments, bridges, glyphs, labels); the invisible circles (6 pt
// radius) make a point easy to hover where its glyph is 3 pt.

// markSet numbers the groups of one figure: the attributes of each <g>.
type markSet struct{ attrs []string }

// add returns the index of a new group with attrs (already escaped) and,
// when title is not empty, a <title> as its first child.
func (m *markSet) add(attrs, title string) int {
	g := "<g " + attrs + ">"
	if title != "" {
		g += "<title>" + html.EscapeString(title) + "</title>"
	}
	m.attrs = append(m.attrs, g)
	return len(m.attrs) - 1
}

// isSVG reports whether c draws SVG: the markers, hover circles and
// click boxes are drawn there alone, so a PNG is the same pixel for pixel.
func isSVG(c draw.Canvas) bool {
	vc := c.Canvas
	for {
		switch in := vc.(type) {
		case draw.Canvas: // gonum/plot nests canvases
			vc = in.Canvas
		case *draw.Canvas:
			vc = in.Canvas
		case *vgsvg.Canvas:
			return true
		default:
			return false
		}
	}
}

// mark writes marker kind ('S' start, 'E' end) of group id on c.
func mark(c draw.Canvas, kind byte, id int) {
	if !isSVG(c) {
		return
	}
	c.Push()
	c.SetColor(color.Transparent)
	face := font.DefaultCache.Lookup(sansFont, 1)
	c.FillString(face, vg.Point{X: c.Min.X, Y: c.Min.Y}, "SMK"+string(kind)+strconv.Itoa(id))
	c.Pop()
}

// markerText matches a marker as vgsvg writes it.
var markerText = regexp.MustCompile(`<text [^>]*>SMK([SE])([0-9]+)</text>\n?`)

// rewrite replaces the markers in svg with the groups' tags.
func (m *markSet) rewrite(svg []byte) []byte {
	if m == nil || len(m.attrs) == 0 {
		return svg
	}
	return markerText.ReplaceAllFunc(svg, func(b []byte) []byte {
		sub := markerText.FindSubmatch(b)
		if string(sub[1]) == "E" {
			return []byte("</g>\n")
		}
		i, err := strconv.Atoi(string(sub[2]))
		if err != nil || i >= len(m.attrs) {
			return nil
		}
		return []byte(m.attrs[i] + "\n")
	})
}

// groupPlotter draws its plotters inside group id.
type groupPlotter struct {
	id    int
	inner []plot.Plotter
}

// Plot draws the inner plotters between the group's markers.
func (g groupPlotter) Plot(c draw.Canvas, p *plot.Plot) {
	mark(c, 'S', g.id)
	for _, pl := range g.inner {
		pl.Plot(c, p)
	}
	mark(c, 'E', g.id)
}

// DataRange is the union of the inner plotters' ranges.
func (g groupPlotter) DataRange() (xmin, xmax, ymin, ymax float64) {
	first := true
	for _, pl := range g.inner {
		dr, ok := pl.(plot.DataRanger)
		if !ok {
			continue
		}
		a, b, c, d := dr.DataRange()
		if first {
			xmin, xmax, ymin, ymax, first = a, b, c, d, false
			continue
		}
		xmin, xmax, ymin, ymax = min(xmin, a), max(xmax, b), min(ymin, c), max(ymax, d)
	}
	if first {
		return 0, 0, 0, 0
	}
	return
}

// GlyphBoxes are the inner plotters' glyph boxes.
func (g groupPlotter) GlyphBoxes(p *plot.Plot) []plot.GlyphBox {
	var out []plot.GlyphBox
	for _, pl := range g.inner {
		if gb, ok := pl.(plot.GlyphBoxer); ok {
			out = append(out, gb.GlyphBoxes(p)...)
		}
	}
	return out
}

// hasRange reports whether any inner plotter has a data range.
func (g groupPlotter) hasRange() bool {
	for _, pl := range g.inner {
		if _, ok := pl.(plot.DataRanger); ok {
			return true
		}
	}
	return false
}

// hoverPoint is an invisible circle at (x, y) inside group id, whose
// <title> gives the point's value.
type hoverPoint struct {
	id   int
	x, y float64
}

// Plot draws the circle between the group's markers.
func (h hoverPoint) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	pt := vg.Point{X: trX(h.x), Y: trY(h.y)}
	if !isSVG(c) || !c.Contains(pt) {
		return
	}
	mark(c, 'S', h.id)
	c.DrawGlyph(draw.GlyphStyle{Color: color.NRGBA{A: 1}, Radius: vg.Points(6), Shape: draw.CircleGlyph{}}, pt)
	mark(c, 'E', h.id)
}

// exact prints a point's value for its hover title: as measured, to two
// decimals at most (a tick's FormatNumber rounds 336.4 to 336).
func exact(v float64) string {
	return strconv.FormatFloat(math.Round(v*100)/100, 'f', -1, 64)
}

// groupThumb draws a legend entry's thumbnails inside group id, over an
// invisible box the size of the thumbnail that a click can hit (a line
// 1.8 pt thick is hard to).
type groupThumb struct {
	id    int
	inner []plot.Thumbnailer
}

// Thumbnail draws the inner thumbnails between the group's markers.
func (g groupThumb) Thumbnail(c *draw.Canvas) {
	if !isSVG(*c) {
		for _, th := range g.inner {
			th.Thumbnail(c)
		}
		return
	}
	mark(*c, 'S', g.id)
	r := c.Rectangle
	box := vg.Path{}
	box.Move(r.Min)
	box.Line(vg.Point{X: r.Max.X, Y: r.Min.Y})
	box.Line(r.Max)
	box.Line(vg.Point{X: r.Min.X, Y: r.Max.Y})
	box.Close()
	c.Push()
	c.SetColor(color.NRGBA{A: 1})
	c.Fill(box)
	c.Pop()
	for _, th := range g.inner {
		th.Thumbnail(c)
	}
	mark(*c, 'E', g.id)
}

// exactRatio prints a ratio for its hover title to four significant
// figures: "0.4685×" where the cell prints 0.47×.
func exactRatio(v float64) string {
	s := strconv.FormatFloat(v, 'g', 4, 64)
	if strings.ContainsRune(s, 'e') {
		s = strconv.FormatFloat(v, 'f', -1, 64)
	}
	return s + "×"
}

// hoverCells are a heat map's cells as invisible rectangles, cell (r, c)
// inside group ids[r][c] (rows top to bottom, as heatGrid draws them),
// whose <title> names the cell and gives its value. They are drawn over
// the cells' text, so that a hover anywhere on a cell shows it.
type hoverCells struct {
	ids [][]int
}

// Plot draws each cell's rectangle between its group's markers.
func (h hoverCells) Plot(c draw.Canvas, p *plot.Plot) {
	if !isSVG(c) {
		return
	}
	trX, trY := p.Transforms(&c)
	nr := len(h.ids)
	for r, row := range h.ids {
		y := float64(nr - 1 - r)
		for col, id := range row {
			x := float64(col)
			x0, x1, y0, y1 := trX(x-0.5), trX(x+0.5), trY(y-0.5), trY(y+0.5)
			var box vg.Path
			box.Move(vg.Point{X: x0, Y: y0})
			box.Line(vg.Point{X: x1, Y: y0})
			box.Line(vg.Point{X: x1, Y: y1})
			box.Line(vg.Point{X: x0, Y: y1})
			box.Close()
			mark(c, 'S', id)
			c.Push()
			c.SetColor(color.NRGBA{A: 1})
			c.Fill(box)
			c.Pop()
			mark(c, 'E', id)
		}
	}
}

// group adds a series' plotters to p inside one group carrying its
// context group and run ("g1 r0"), with an invisible hover circle per
// valid point whose title gives the series, X and Y.
func (lc LineChart) group(p *plot.Plot, ms *markSet, keys styleKeys, s Series, adds []plot.Plotter) {
	g := groupPlotter{id: ms.add(`class="sm-series" data-sm="g`+strconv.Itoa(keys.color(s))+` r`+strconv.Itoa(indexOf(keys.runs, s.Run))+`"`, ""), inner: adds}
	fx := lc.XFormat
	if fx == nil {
		// A count or a context length as its tick prints it ("128",
		// "8K"); a measured X (per-request tok/s) exactly: FormatCount
		// printed 294.6 as 295.
		fx = func(x float64) string {
			if x == math.Trunc(x) {
				return FormatCount(x)
			}
			return exact(x)
		}
	}
	for _, pt := range s.Points {
		if !isValid(pt.Status) {
			continue
		}
		title := s.Name + ": " + lc.XLabel + " " + fx(pt.X) + ", " + lc.YLabel + " " + exact(pt.Y)
		if cell := pt.cell(); cell != "" {
			title += " (" + cell + ")"
		}
		g.inner = append(g.inner, hoverPoint{id: ms.add(`class="sm-pt"`, title), x: pt.X, y: pt.Y})
	}
	if !g.hasRange() {
		p.Add(adds...)
		return
	}
	p.Add(g)
}
