package plots

import (
	"math"

	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"speedmatrix/schema"
)

// strokeGlyph is an outlined marker drawn with a line thick enough to read
// at 1200 px (gonum/plot's outlined glyphs use 0.5 pt lines).
type strokeGlyph struct {
	shape string // "cross", "square", "plus", "triangle", "circle"
}

const glyphLine = vg.Length(1.6)

// DrawGlyph implements draw.GlyphDrawer.
func (g strokeGlyph) DrawGlyph(c *draw.Canvas, sty draw.GlyphStyle, pt vg.Point) {
	c.SetLineStyle(draw.LineStyle{Color: sty.Color, Width: glyphLine})
	r := sty.Radius
	var p vg.Path
	switch g.shape {
	case "cross":
		d := r * math.Sqrt2 / 2 * 1.3
		p.Move(vg.Point{X: pt.X - d, Y: pt.Y - d})
		p.Line(vg.Point{X: pt.X + d, Y: pt.Y + d})
		p.Move(vg.Point{X: pt.X - d, Y: pt.Y + d})
		p.Line(vg.Point{X: pt.X + d, Y: pt.Y - d})
	case "plus":
		p.Move(vg.Point{X: pt.X, Y: pt.Y + r})
		p.Line(vg.Point{X: pt.X, Y: pt.Y - r})
		p.Move(vg.Point{X: pt.X - r, Y: pt.Y})
		p.Line(vg.Point{X: pt.X + r, Y: pt.Y})
	case "circle":
		p.Move(vg.Point{X: pt.X + r, Y: pt.Y})
		p.Arc(pt, r, 0, 2*math.Pi)
		p.Close()
	case "triangle":
		p.Move(vg.Point{X: pt.X, Y: pt.Y + r})
		p.Line(vg.Point{X: pt.X - r*0.866, Y: pt.Y - r*0.5})
		p.Line(vg.Point{X: pt.X + r*0.866, Y: pt.Y - r*0.5})
		p.Close()
	default: // square
		d := r * 0.85
		p.Move(vg.Point{X: pt.X - d, Y: pt.Y - d})
		p.Line(vg.Point{X: pt.X + d, Y: pt.Y - d})
		p.Line(vg.Point{X: pt.X + d, Y: pt.Y + d})
		p.Line(vg.Point{X: pt.X - d, Y: pt.Y + d})
		p.Close()
	}
	c.Stroke(p)
}

// statusMark describes how a non-valid cell is marked on a chart.
type statusMark struct {
	status schema.Status
	glyph  draw.GlyphDrawer
	legend string
}

// statusMarks lists the markers of the non-valid statuses, in legend
// order.
var statusMarks = []statusMark{
	{schema.StatusLooped, strokeGlyph{"cross"}, "looped (discarded)"},
	{schema.StatusOverCapacity, strokeGlyph{"square"}, "over capacity (not run)"},
	{schema.StatusError, strokeGlyph{"plus"}, "error"},
	{schema.StatusSkipped, strokeGlyph{"triangle"}, "skipped"},
}

// markFor returns the marker of a non-valid status; unknown statuses get
// the error marker.
func markFor(s schema.Status) statusMark {
	for _, m := range statusMarks {
		if m.status == s {
			return m
		}
	}
	return statusMarks[2]
}

// isValid reports whether a point's status means it holds a value. The
// empty status counts as valid so that callers with plain numbers need
// not set it.
func isValid(s schema.Status) bool { return s == "" || s == schema.StatusValid }
