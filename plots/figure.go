package plots

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"image/png"
	"io"
	"os"
	"path/filepath"
	"regexp"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"
)

// DPI is the resolution PNGs are rendered at. A chart's layout is fixed in
// points (widthPx·72/DPI), so PNG and SVG of the same size look alike.
const DPI = 192

// Default chart size in pixels: wide enough to read on a laptop screen
// and in the report, where it is scaled to the page.
const (
	DefaultWidthPx  = 1200
	DefaultHeightPx = 750
)

// Figure is a chart ready to draw: a gonum/plot Plot and, in a column to
// its right, a legend and an optional side plot (a colour bar). gonum/plot
// draws its own legend over the data area; Figure keeps it off the data.
// A bare *plot.Plot is drawn with &Figure{Plot: p}.
type Figure struct {
	Plot *plot.Plot
	// Legend, when it has entries, is drawn at the top of the right column.
	Legend *plot.Legend
	// Side, when not nil, fills the right column below the legend; it is
	// SideWidth wide.
	Side      *plot.Plot
	SideWidth vg.Length

	// marks are the groups the SVG output makes interactive
	// (interactive.go); nil for a chart without them.
	marks *markSet
}

// Chart is anything that builds a Figure: LineChart, Heatmap, Frontier,
// Trend.
type Chart interface {
	Figure() (*Figure, error)
}

// Named is a chart with the file name (no extension) it is written under
// and the caption the report shows.
type Named struct {
	Name    string
	Caption string
	Chart   Chart
}

const (
	margin    = vg.Length(6)  // around the whole figure, points
	columnGap = vg.Length(10) // between plot and right column, points
)

// legendEntries reports whether l has entries to draw.
// Note: plot.Legend keeps its entries private; its Rectangle has zero
// height exactly when it has none.
func legendEntries(l *plot.Legend, c draw.Canvas) bool {
	return l != nil && l.Rectangle(c).Size().Y > 0
}

// Draw draws the figure on c. The title is centred over the whole
// figure, legend column included, so that a long title is not clipped by
// a narrow plot. Draw does not modify f: figures may be drawn
// concurrently.
func (f *Figure) Draw(c draw.Canvas) {
	c.SetColor(f.Plot.BackgroundColor)
	c.Fill(c.Rectangle.Path())
	c = draw.Crop(c, margin, -margin, margin, -margin)

	// A shallow copy without the title: the plotters are shared, read only.
	plt := *f.Plot
	if title := plt.Title; title.Text != "" {
		title.TextStyle = fitText(title.TextStyle, title.Text, c.Max.X-c.Min.X)
		descent := title.TextStyle.FontExtents().Descent
		c.FillText(title.TextStyle, vg.Point{X: c.Center().X, Y: c.Max.Y + descent}, title.Text)
		c.Max.Y -= title.TextStyle.Rectangle(title.Text).Size().Y + title.Padding
		plt.Title.Text = ""
	}

	var colW vg.Length
	hasLegend := legendEntries(f.Legend, c)
	var legend plot.Legend
	if hasLegend {
		legend = fitLegend(*f.Legend, c.Max.Y-c.Min.Y, 0.4*(c.Max.X-c.Min.X))
		colW = legend.Rectangle(c).Size().X
	}
	if f.Side != nil && f.SideWidth > colW {
		colW = f.SideWidth
	}
	if colW == 0 {
		plt.Draw(c)
		return
	}
	width := c.Max.X - c.Min.X
	pc := draw.Crop(c, 0, -(colW + columnGap), 0, 0)
	plt.Draw(pc)
	data := plt.DataCanvas(pc)

	col := draw.Crop(c, width-colW, 0, 0, 0)
	if hasLegend {
		legend.Draw(col)
		col.Max.Y -= legend.Rectangle(col).Size().Y + vg.Points(12)
	}
	// The side plot (a colour bar) spans the data area's height at most.
	if col.Max.Y > data.Max.Y {
		col.Max.Y = data.Max.Y
	}
	col.Min.Y = data.Min.Y
	if f.Side != nil && col.Max.Y-col.Min.Y > vg.Points(40) {
		f.Side.Draw(col)
	}
}

// legendRowPitch is the least distance between the rows of a legend:
// the status glyphs (3.5 pt radius, 1.6 pt stroke) and the run markers
// must not touch the next row's.
const legendRowPitch = vg.Length(9.5)

// fitLegend returns a copy of l whose text is small enough (down to 6 pt)
// for the legend to fit in height and width; a long legend (many contexts
// and runs) would otherwise run off the bottom of the figure, and long run
// names would squeeze the plot. The rows keep legendRowPitch apart however
// small the text. The copy shares l's entries, which neither changes.
//
// Note: plot.Legend spaces its rows by the text's height and draws the
// thumbnails at their own size: with three long run labels the text went
// down to 6 pt and the looped and over-capacity glyphs of the "No value"
// rows drew over each other.
func fitLegend(l plot.Legend, height, width vg.Length) plot.Legend {
	c := draw.Canvas{Rectangle: vg.Rectangle{Max: vg.Point{X: width, Y: height}}}
	pad := l.Padding
	for {
		l.Padding = max(pad, legendRowPitch-l.TextStyle.Rectangle("X").Size().Y)
		if r := l.Rectangle(c).Size(); r.Y <= height && r.X <= width || l.TextStyle.Font.Size <= 6 {
			return l
		}
		l.TextStyle.Font.Size--
	}
}

// fitText returns sty with its font made small enough (down to 6 pt, as
// legends) for text to fit width: a title naming a long run label ran
// off both sides of the figure.
func fitText(sty text.Style, txt string, width vg.Length) text.Style {
	for sty.Font.Size > 6 && sty.Rectangle(txt).Size().X > width {
		sty.Font.Size--
	}
	return sty
}

// size converts pixels at DPI to points.
func size(widthPx, heightPx int) (vg.Length, vg.Length, error) {
	if widthPx <= 0 || heightPx <= 0 {
		return 0, 0, fmt.Errorf("plots: size %d×%d px: both must be positive", widthPx, heightPx)
	}
	return vg.Length(widthPx) * vg.Inch / DPI, vg.Length(heightPx) * vg.Inch / DPI, nil
}

// draw runs f.Draw, turning a gonum/plot panic (it panics on some invalid
// ranges) into an error.
func safeDraw(f *Figure, c draw.Canvas) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("plots: drawing %q: %v", f.Plot.Title.Text, r)
		}
	}()
	f.Draw(c)
	return nil
}

// SavePNG renders f as a widthPx×heightPx PNG at DPI and writes it to w.
func SavePNG(f *Figure, w io.Writer, widthPx, heightPx int) error {
	wl, hl, err := size(widthPx, heightPx)
	if err != nil {
		return err
	}
	c := vgimg.NewWith(vgimg.UseWH(wl, hl), vgimg.UseDPI(DPI))
	if err := safeDraw(f, draw.New(c)); err != nil {
		return err
	}
	// Note: vgimg.PngCanvas encodes at the default compression level,
	// which took two thirds of the time of a chart; BestSpeed makes
	// files about a third larger (charts are mostly flat colour).
	enc := png.Encoder{CompressionLevel: png.BestSpeed}
	if err := enc.Encode(w, c.Image()); err != nil {
		return fmt.Errorf("plots: writing PNG: %w", err)
	}
	return nil
}

// SaveSVG renders f as an SVG the size of a widthPx×heightPx PNG (in
// points) with its fonts embedded, so it looks the same anywhere.
func SaveSVG(f *Figure, w io.Writer, widthPx, heightPx int) error {
	return saveSVG(f, w, widthPx, heightPx, true)
}

// SaveSVGNoFont is SaveSVG without the font: the SVG names FontFamily
// and a page that shows several charts carries the font once
// (WriteFont) instead of once per chart.
func SaveSVGNoFont(f *Figure, w io.Writer, widthPx, heightPx int) error {
	return saveSVG(f, w, widthPx, heightPx, false)
}

// SaveSVGFontRef is SaveSVG for a file of its own that references its
// font instead of embedding it: the text names FontFamily and then the
// fonts metric-compatible with it (Arimo, Arial, Helvetica), so a viewer
// without Liberation Sans lays the text out the same. WriteAll uses it.
//
// Note: the embedded font made every chart about 560 KB (the seeds'
// eight SVGs: 4.54 MB); referenced, they are 8–40 KB (152 KB in all;
// 11–40 KB, 204 KB, with the hover groups of interactive.go on line
// charts; 11–48 KB, 229 KB, with the heat map's cells and the frontier's
// points too).
func SaveSVGFontRef(f *Figure, w io.Writer, widthPx, heightPx int) error {
	var buf bytes.Buffer
	if err := saveSVG(f, &buf, widthPx, heightPx, false); err != nil {
		return err
	}
	out := bytes.ReplaceAll(buf.Bytes(), []byte("font-family:"+FontFamily+";"), []byte(fontStack))
	if _, err := w.Write(out); err != nil {
		return fmt.Errorf("plots: writing SVG: %w", err)
	}
	return nil
}

// fontStack is the font-family declaration SaveSVGFontRef writes.
const fontStack = "font-family:'" + FontFamily + "',Arimo,Arial,Helvetica,sans-serif;"

func saveSVG(f *Figure, w io.Writer, widthPx, heightPx int, embed bool) error {
	wl, hl, err := size(widthPx, heightPx)
	if err != nil {
		return err
	}
	c := vgsvg.NewWith(vgsvg.UseWH(wl, hl), vgsvg.EmbedFonts(embed))
	if err := safeDraw(f, draw.New(c)); err != nil {
		return err
	}
	var buf bytes.Buffer
	if _, err := c.WriteTo(&buf); err != nil {
		return fmt.Errorf("plots: writing SVG: %w", err)
	}
	if _, err := w.Write(f.marks.rewrite(buf.Bytes())); err != nil {
		return fmt.Errorf("plots: writing SVG: %w", err)
	}
	return nil
}

// validName matches the file names WriteAll accepts: no separators, no
// leading dot.
var validName = regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9_.-]*$`)

// WriteAll writes every chart as DIR/NAME.png and DIR/NAME.svg (its font
// referenced, SaveSVGFontRef) at the default size, creating dir. Names
// are checked before anything is written; drawing stops at the first
// error.
func WriteAll(dir string, charts []Named) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("plots: %w", err)
	}
	seen := make(map[string]bool, len(charts))
	for _, n := range charts {
		if !validName.MatchString(n.Name) {
			return fmt.Errorf("plots: chart name %q is not a plain file name", n.Name)
		}
		if seen[n.Name] {
			return fmt.Errorf("plots: two charts are named %q", n.Name)
		}
		seen[n.Name] = true
	}
	for _, n := range charts {
		fig, err := n.Chart.Figure()
		if err != nil {
			return fmt.Errorf("plots: chart %s: %w", n.Name, err)
		}
		for _, out := range []struct {
			ext  string
			save func(*Figure, io.Writer, int, int) error
		}{{".png", SavePNG}, {".svg", SaveSVGFontRef}} {
			if err := writeFile(filepath.Join(dir, n.Name+out.ext), func(w io.Writer) error {
				return out.save(fig, w, DefaultWidthPx, DefaultHeightPx)
			}); err != nil {
				return err
			}
		}
	}
	return nil
}

// writeFile creates path and fills it with write, reporting the first of
// the write, flush and close errors.
func writeFile(path string, write func(io.Writer) error) (err error) {
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("plots: %w", err)
	}
	defer func() { err = errors.Join(err, f.Close()) }()
	bw := bufio.NewWriter(f)
	if err := write(bw); err != nil {
		return err
	}
	return bw.Flush()
}
