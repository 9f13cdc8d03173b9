package plots

import (
	"errors"
	"fmt"
	"image/color"
	"math"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/palette"
	"gonum.org/v1/plot/palette/moreland"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Heatmap draws a matrix of values (context × concurrency), each cell's
// value printed in it in a colour that contrasts with the fill. A NaN
// value is a cell without one (looped, over capacity, missing): it is
// filled light grey and shows its note.
type Heatmap struct {
	Title, XLabel, YLabel string
	// Rows are labelled top to bottom, Cols left to right.
	Rows, Cols []string
	// Values[r][c]; NaN = no value.
	Values [][]float64
	// Notes[r][c], when not empty, is printed under the value, or alone
	// in a cell without one ("looped (INT4)", "over capacity"). Notes may
	// be nil or shorter than Values.
	Notes [][]string
	// Ratio colours values as ratios: on a log scale, white at 1, blue
	// where the run is better than the baseline and red where it is worse.
	// Otherwise colours run linearly from the smallest value (blue) to
	// the largest (red).
	Ratio bool
	// LowerIsBetter says a ratio above 1 is worse (latencies).
	LowerIsBetter bool
	// Format writes a cell's value; nil gives "0.47×" for ratios and
	// FormatNumber otherwise.
	Format func(float64) string
	// ScaleLabel labels the colour bar ("BF16 / INT4").
	ScaleLabel string
	// Hover[r][c], when not empty, is what a cell's hover title in an SVG
	// says after naming the cell (the exact ratio and the two figures it
	// was computed from, say); otherwise it gives the exact value, or "no
	// value" and the note. It is not drawn. Hover may be nil or shorter
	// than Values.
	Hover [][]string
	// WidthPx is the width the figure will be drawn at (0: DefaultWidthPx):
	// cell text is sized to fit a cell at that width.
	WidthPx int
}

// heatGrid adapts a Heatmap to plotter.GridXYZ: column c at x = c, row r
// at y = rows−1−r so the first row is drawn at the top.
type heatGrid struct {
	z [][]float64
}

func (g heatGrid) Dims() (c, r int)   { return len(g.z[0]), len(g.z) }
func (g heatGrid) Z(c, r int) float64 { return g.z[len(g.z)-1-r][c] }
func (g heatGrid) X(c int) float64    { return float64(c) }
func (g heatGrid) Y(r int) float64    { return float64(r) }

// formatRatio writes a ratio with two decimals: "0.47×", "2.13×".
func formatRatio(v float64) string {
	return strconv.FormatFloat(v, 'f', 2, 64) + "×"
}

// note returns Notes[r][c] or "".
func (h Heatmap) note(r, c int) string {
	if r < len(h.Notes) && c < len(h.Notes[r]) {
		return h.Notes[r][c]
	}
	return ""
}

// hoverTitle is the hover title of cell (r, c): its row and column,
// each after its axis label ("Context length 8K, Simultaneous requests
// 16"), then Hover[r][c], else the exact value (a ratio to four
// significant figures) or "no value", and the note on one line.
func (h Heatmap) hoverTitle(r, c int) string {
	title := strings.TrimSpace(h.YLabel+" "+h.Rows[r]) + ", " + strings.TrimSpace(h.XLabel+" "+h.Cols[c]) + ": "
	if r < len(h.Hover) && c < len(h.Hover[r]) && h.Hover[r][c] != "" {
		return title + h.Hover[r][c]
	}
	v := h.Values[r][c]
	switch {
	case math.IsNaN(v):
		title += "no value"
	case h.Ratio:
		title += exactRatio(v)
	default:
		title += exact(v)
	}
	if note := strings.Join(strings.Fields(h.note(r, c)), " "); note != "" {
		title += ", " + note
	}
	return title
}

func (h Heatmap) check() error {
	if len(h.Rows) == 0 || len(h.Cols) == 0 {
		return errors.New("heatmap has no rows or no columns")
	}
	if len(h.Values) != len(h.Rows) {
		return fmt.Errorf("heatmap has %d rows of values for %d row labels", len(h.Values), len(h.Rows))
	}
	for r, row := range h.Values {
		if len(row) != len(h.Cols) {
			return fmt.Errorf("heatmap row %q has %d values for %d columns", h.Rows[r], len(row), len(h.Cols))
		}
		for _, v := range row {
			if math.IsInf(v, 0) || (h.Ratio && v <= 0) {
				return fmt.Errorf("heatmap row %q: value %v cannot be coloured", h.Rows[r], v)
			}
		}
	}
	return nil
}

// luminance returns the WCAG relative luminance of c in [0, 1].
func luminance(c color.Color) float64 {
	r, g, b, _ := c.RGBA()
	lin := func(v uint32) float64 {
		s := float64(v) / 0xFFFF
		if s <= 0.04045 {
			return s / 12.92
		}
		return math.Pow((s+0.055)/1.055, 2.4)
	}
	return 0.2126*lin(r) + 0.7152*lin(g) + 0.0722*lin(b)
}

// textOn returns black or white, whichever contrasts more with fill
// (WCAG contrast ratio).
func textOn(fill color.Color) color.Color {
	l := luminance(fill)
	if (1.05)/(l+0.05) > (l+0.05)/0.05 {
		return color.White
	}
	return color.Black
}

// Figure implements Chart.
func (h Heatmap) Figure() (*Figure, error) {
	if err := h.check(); err != nil {
		return nil, fmt.Errorf("plots: %s: %w", h.Title, err)
	}
	format := h.Format
	if format == nil {
		format = FormatNumber
		if h.Ratio {
			format = formatRatio
		}
	}

	// z is what is coloured: log2 of a ratio, or the value itself.
	z := make([][]float64, len(h.Values))
	lo, hi := math.Inf(1), math.Inf(-1)
	for r, row := range h.Values {
		z[r] = make([]float64, len(row))
		for c, v := range row {
			if h.Ratio {
				v = math.Log2(v)
			}
			z[r][c] = v
			if !math.IsNaN(v) {
				lo, hi = math.Min(lo, v), math.Max(hi, v)
			}
		}
	}
	cm := h.scale(lo, hi)
	lo, hi = cm.Min(), cm.Max()

	p := newPlot(h.Title, h.XLabel, h.YLabel)
	pal, err := sampled(cm, 255)
	if err != nil {
		return nil, fmt.Errorf("plots: %s: %w", h.Title, err)
	}
	hm := plotter.NewHeatMap(heatGrid{z: z}, pal)
	hm.Min, hm.Max = lo, hi
	hm.NaN = color.White
	p.Add(hm, hatch{grid: heatGrid{z: z}})

	var xys plotter.XYs
	var labels []string
	var styles []color.Color
	nr := len(h.Rows)
	for r, row := range h.Values {
		for c, v := range row {
			text := h.note(r, c)
			textColor := color.Color(grey)
			if !math.IsNaN(v) {
				fill, err := cm.At(z[r][c])
				if err != nil {
					return nil, fmt.Errorf("plots: %s: %w", h.Title, err)
				}
				textColor = textOn(fill)
				text = strings.TrimSpace(format(v) + "\n" + text)
			}
			if text == "" {
				continue
			}
			xys = append(xys, plotter.XY{X: float64(c), Y: float64(nr - 1 - r)})
			labels = append(labels, text)
			styles = append(styles, textColor)
		}
	}
	if len(xys) > 0 {
		lb, err := plotter.NewLabels(plotter.XYLabels{XYs: xys, Labels: labels})
		if err != nil {
			return nil, err
		}
		size := cellTextSize(len(h.Rows), len(h.Cols))
		for i := range lb.TextStyle {
			// Each note its own size: one long note does not shrink the
			// ratios of every other cell.
			lb.TextStyle[i] = textStyle(fitCellText(labels[i:i+1], len(h.Cols), h.WidthPx, size))
			lb.TextStyle[i].Color = styles[i]
			lb.TextStyle[i].XAlign = draw.XCenter
			lb.TextStyle[i].YAlign = draw.YCenter
		}
		p.Add(lb)
	}
	// Over the text, so that a hover anywhere on a cell finds its title.
	ms := &markSet{}
	cells := hoverCells{ids: make([][]int, nr)}
	for r := range h.Rows {
		for c := range h.Cols {
			cells.ids[r] = append(cells.ids[r], ms.add(`class="sm-cell"`, h.hoverTitle(r, c)))
		}
	}
	p.Add(cells)

	var xt, yt []plot.Tick
	for c, l := range h.Cols {
		xt = append(xt, plot.Tick{Value: float64(c), Label: l})
	}
	for r, l := range h.Rows {
		yt = append(yt, plot.Tick{Value: float64(nr - 1 - r), Label: l})
	}
	p.X.Tick.Marker = plot.ConstantTicks(xt)
	p.Y.Tick.Marker = plot.ConstantTicks(yt)
	for _, a := range []*plot.Axis{&p.X, &p.Y} {
		a.Padding = 0
		a.Tick.Length = 0
		a.LineStyle.Width = 0
	}
	// Labels must not widen the axes beyond the cells.
	p.X.Min, p.X.Max = -0.5, float64(len(h.Cols))-0.5
	p.Y.Min, p.Y.Max = -0.5, float64(nr)-0.5

	return &Figure{Plot: p, Side: colorBar(cm, h.Ratio, h.ScaleLabel), SideWidth: vg.Points(62), marks: ms}, nil
}

// colorList is a palette.Palette of fixed colours.
type colorList []color.Color

// Colors implements palette.Palette.
func (l colorList) Colors() []color.Color { return l }

// sampled returns n colours of cm evenly spread over its range.
// Note: palette.Reverse(cm).Palette(n) leaves the middle colour nil when
// n is odd (gonum/plot v0.17.0 swaps pairs i < j and never copies the
// centre), which the heat map then draws as nothing: a white cell for a
// ratio of exactly 1.
func sampled(cm palette.ColorMap, n int) (palette.Palette, error) {
	out := make(colorList, n)
	lo, hi := cm.Min(), cm.Max()
	for i := range out {
		v := lo + (hi-lo)*float64(i)/float64(n-1)
		if i == n-1 {
			v = hi // no rounding past the end
		}
		c, err := cm.At(v)
		if err != nil {
			return nil, err
		}
		out[i] = c
	}
	return out, nil
}

// cellTextSize shrinks the cell text of large matrices so that a note
// such as "over cap." still fits its cell at the default chart size:
// full size up to 8 columns and 6 rows, never below 6 pt.
func cellTextSize(rows, cols int) vg.Length {
	size := float64(cellSize)
	if cols > 8 {
		size = math.Min(size, cellSize*8/float64(cols))
	}
	if rows > 6 {
		size = math.Min(size, cellSize*6/float64(rows))
	}
	return vg.Length(math.Max(size, 6))
}

// heatOverheadPt is the width a heat map's figure spends beside its cells
// (row labels, axis title, colour bar, gaps, margins), in points.
const heatOverheadPt = 145

// fitCellText returns pt, or less (down to 6 pt), so that the widest
// line of the labels fits a cell of a heat map of cols columns drawn
// widthPx wide (0: the default chart size; larger charts only gain room).
//
// Note: "missing\n(simulated)" in an eight-column matrix overflowed
// into the next cell; cellTextSize counts cells, not characters. So did
// "looped (INT4)" in the report's first-screen heatmap, drawn 860 px
// wide while its text was sized for 1200.
func fitCellText(labels []string, cols, widthPx int, pt vg.Length) vg.Length {
	if widthPx <= 0 {
		widthPx = DefaultWidthPx
	}
	w, _, err := size(widthPx, DefaultHeightPx)
	if err != nil || cols == 0 {
		return pt
	}
	cell := (w - heatOverheadPt) / vg.Length(cols)
	widest := vg.Length(0)
	unit := textStyle(10)
	for _, l := range labels {
		for _, line := range strings.Split(l, "\n") {
			widest = max(widest, unit.Rectangle(line).Size().X/10)
		}
	}
	if widest == 0 {
		return pt
	}
	return max(min(pt, cell/widest), 6)
}

// scale returns the colour map for z values in [lo, hi] (log2 ratios
// when h.Ratio): a ratio scale is symmetric about 1 and spans at least
// 0.8×–1.25× so that noise stays pale, blue meaning better.
func (h Heatmap) scale(lo, hi float64) palette.ColorMap {
	var cm palette.ColorMap = moreland.SmoothBlueRed() // blue at Min, red at Max
	switch {
	case math.IsInf(lo, 0) || math.IsNaN(lo): // no value at all: every cell is grey
		lo, hi = -1, 1
	case h.Ratio:
		m := math.Max(math.Max(math.Abs(lo), math.Abs(hi)), math.Log2(1.25))
		lo, hi = -m, m
		if !h.LowerIsBetter {
			cm = palette.Reverse(cm)
		}
	case lo == hi:
		lo, hi = lo-1, hi+1
	}
	cm.SetMin(lo)
	cm.SetMax(hi)
	return cm
}

// ratioTicks are the ratios a ratio colour bar may label.
var ratioTicks = []float64{0.1, 0.2, 0.25, 0.33, 0.5, 0.67, 0.8, 1, 1.25, 1.5, 2, 3, 4, 5, 10}

// colorBar returns a vertical colour bar for cm, labelled in ratios when
// ratio is set (cm then spans log2 of the ratio).
func colorBar(cm palette.ColorMap, ratio bool, label string) *plot.Plot {
	p := newPlot("", "", label)
	p.Add(colorSteps{cm: cm, n: 96})
	p.HideX()
	p.Y.Padding = 0
	p.Y.Min, p.Y.Max = cm.Min(), cm.Max()
	if ratio {
		p.Y.Tick.Marker = plot.TickerFunc(func(min, max float64) []plot.Tick {
			var ts []plot.Tick
			for _, r := range ratioTicks {
				if v := math.Log2(r); v >= min-1e-9 && v <= max+1e-9 {
					ts = append(ts, plot.Tick{Value: v, Label: formatRatio(r)})
				}
			}
			return thinTicks(ts, min, max, 0.07, plot.LinearScale{})
		})
	} else {
		p.Y.Tick.Marker = commaTicks{}
	}
	return p
}

// hatch draws light diagonal lines over the cells of a grid that have no
// value, so that they cannot be mistaken for a ratio near 1 (pale grey in
// the diverging palette).
type hatch struct {
	grid heatGrid
}

// Plot implements plot.Plotter.
func (h hatch) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	cols, rows := h.grid.Dims()
	c.SetLineStyle(draw.LineStyle{Color: lightGrey, Width: vg.Points(0.8)})
	const step = vg.Length(6)
	for i := range cols {
		for j := range rows {
			if !math.IsNaN(h.grid.Z(i, j)) {
				continue
			}
			x0, x1 := trX(h.grid.X(i)-0.5), trX(h.grid.X(i)+0.5)
			y0, y1 := trY(h.grid.Y(j)-0.5), trY(h.grid.Y(j)+0.5)
			// Lines x − y = k clipped to the cell.
			for k := x0 - (y1 - y0); k < x1; k += step {
				a := vg.Point{X: k, Y: y0}
				b := vg.Point{X: k + (y1 - y0), Y: y1}
				if a.X < x0 {
					a = vg.Point{X: x0, Y: y0 + (x0 - k)}
				}
				if b.X > x1 {
					b = vg.Point{X: x1, Y: y1 - (b.X - x1)}
				}
				var path vg.Path
				path.Move(a)
				path.Line(b)
				c.Stroke(path)
			}
		}
	}
}

// colorSteps draws a vertical colour bar as n filled rectangles.
// Note: plotter.ColorBar draws a 1-pixel-wide image, which vgsvg writes
// without preserveAspectRatio="none", so browsers shrink it to a hairline.
type colorSteps struct {
	cm palette.ColorMap
	n  int
}

// Plot implements plot.Plotter.
func (s colorSteps) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	lo, hi := s.cm.Min(), s.cm.Max()
	step := (hi - lo) / float64(s.n)
	for i := range s.n {
		v0, v1 := lo+float64(i)*step, lo+float64(i+1)*step
		col, err := s.cm.At((v0 + v1) / 2)
		if err != nil {
			continue
		}
		// Overlap each step slightly so no seams show between them.
		y0, y1 := trY(v0), trY(v1)+vg.Points(0.3)
		if i == s.n-1 {
			y1 = trY(v1)
		}
		var path vg.Path
		path.Move(vg.Point{X: trX(0), Y: y0})
		path.Line(vg.Point{X: trX(1), Y: y0})
		path.Line(vg.Point{X: trX(1), Y: y1})
		path.Line(vg.Point{X: trX(0), Y: y1})
		path.Close()
		c.SetColor(col)
		c.Fill(path)
	}
}

// DataRange implements plot.DataRanger.
func (s colorSteps) DataRange() (xmin, xmax, ymin, ymax float64) {
	return 0, 1, s.cm.Min(), s.cm.Max()
}
