package plots

import (
	"fmt"
	"image/color"
	"io"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Font sizes in points. A chart is laid out on a canvas of
// widthPx·72/DPI points, so at 1200 px a 10 pt label is 27 px tall.
const (
	titleSize  = 13
	labelSize  = 11
	tickSize   = 10
	legendSize = 10
	cellSize   = 9
)

// sansFont is Liberation Sans, embedded in gonum/plot, used for all text.
// Note: gonum/plot's default is Liberation Serif; setting each style here
// instead of changing plot.DefaultFont keeps the package free of global
// side effects on other users of gonum/plot.
var sansFont = font.Font{Typeface: "Liberation", Variant: "Sans"}

// FontFamily is the CSS family name of the font every chart's text is
// laid out with (WriteFont writes it).
const FontFamily = "Liberation Sans"

// WriteFont writes the TrueType source of FontFamily, the font gonum/plot
// embeds, for a page whose charts were saved with SaveSVGNoFont.
func WriteFont(w io.Writer) error {
	face := font.DefaultCache.Lookup(sansFont, 10)
	if face.Face == nil {
		return fmt.Errorf("plots: font %v is not in gonum/plot's cache", sansFont)
	}
	if _, err := face.Face.WriteSourceTo(nil, w); err != nil {
		return fmt.Errorf("plots: reading %s: %w", FontFamily, err)
	}
	return nil
}

// textStyle returns a Liberation Sans style of the given size in points.
func textStyle(size vg.Length) text.Style {
	return text.Style{
		Color:   color.Black,
		Font:    font.From(sansFont, size),
		Handler: plot.DefaultTextHandler,
	}
}

// palette holds the colours told apart by colour: the Okabe–Ito set,
// readable by people with the common colour-vision deficiencies, without
// its yellow (too faint on white).
var seriesColors = []color.RGBA{
	{R: 0x00, G: 0x72, B: 0xB2, A: 0xFF}, // blue
	{R: 0xE6, G: 0x9F, B: 0x00, A: 0xFF}, // orange
	{R: 0x00, G: 0x9E, B: 0x73, A: 0xFF}, // bluish green
	{R: 0xCC, G: 0x79, B: 0xA7, A: 0xFF}, // reddish purple
	{R: 0xD5, G: 0x5E, B: 0x00, A: 0xFF}, // vermillion
	{R: 0x56, G: 0xB4, B: 0xE9, A: 0xFF}, // sky blue
	{R: 0x00, G: 0x00, B: 0x00, A: 0xFF}, // black
	{R: 0x88, G: 0x88, B: 0x88, A: 0xFF}, // grey
}

// seriesColor returns the i-th colour, cycling.
func seriesColor(i int) color.RGBA { return seriesColors[i%len(seriesColors)] }

// runDashes tells runs apart by line pattern: solid, dashed, dotted,
// dash-dot.
var runDashes = [][]vg.Length{
	nil,
	{vg.Points(6), vg.Points(3)},
	{vg.Points(1.5), vg.Points(2)},
	{vg.Points(6), vg.Points(2), vg.Points(1.5), vg.Points(2)},
}

// runGlyphs tells runs apart by marker; they are all filled or ringed so
// that they never look like the status markers (cross, hollow square,
// plus).
var runGlyphs = []draw.GlyphDrawer{
	draw.CircleGlyph{},
	draw.PyramidGlyph{},
	draw.BoxGlyph{},
	draw.RingGlyph{},
}

// runDash and runGlyph style run i. Note: the marker shifts by one each
// time the patterns wrap, so up to 16 runs get 16 different pairs (the
// fifth run of a five-run comparison drew as the first, solid with circles).
func runDash(i int) []vg.Length { return runDashes[i%len(runDashes)] }
func runGlyph(i int) draw.GlyphDrawer {
	return runGlyphs[(i+i/len(runDashes))%len(runGlyphs)]
}

// grey is used for reference lines and for the run entries of a legend.
var (
	grey      = color.RGBA{R: 0x55, G: 0x55, B: 0x55, A: 0xFF}
	lightGrey = color.RGBA{R: 0xDD, G: 0xDD, B: 0xDD, A: 0xFF}
	gridGrey  = color.RGBA{R: 0xE8, G: 0xE8, B: 0xE8, A: 0xFF}
)

// newPlot returns a plot with a title and axis labels in Liberation Sans
// at sizes readable at 1200 px.
func newPlot(title, xlabel, ylabel string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.Title.TextStyle.Font = font.From(sansFont, titleSize)
	p.Title.Padding = vg.Points(8)
	for _, a := range []*plot.Axis{&p.X, &p.Y} {
		a.Label.TextStyle.Font = font.From(sansFont, labelSize)
		a.Tick.Label.Font = font.From(sansFont, tickSize)
		a.Tick.Length = vg.Points(5)
	}
	p.X.Label.Text = xlabel
	p.Y.Label.Text = ylabel
	p.Legend.TextStyle.Font = font.From(sansFont, legendSize)
	return p
}

// newLegend returns an empty legend in the house style, meant to be drawn
// beside the plot by Figure.
func newLegend() *plot.Legend {
	l := plot.NewLegend()
	l.TextStyle = textStyle(legendSize)
	l.Top = true
	l.Left = true
	l.ThumbnailWidth = vg.Points(24)
	l.Padding = vg.Points(2)
	return &l
}

// addEntry adds a legend entry with an en space before its text:
// plot.Legend leaves only a word space between thumbnail and text, which
// makes a marker look glued to the first letter.
func addEntry(l *plot.Legend, name string, thumbs ...plot.Thumbnailer) {
	if strings.TrimSpace(name) != "" {
		name = "\u2002" + name
	}
	l.Add(name, thumbs...)
}
