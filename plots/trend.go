package plots

import (
	"errors"
	"fmt"
	"math"
	"regexp"
	"strings"
	"unicode/utf8"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Trend draws one metric across runs in order (engine versions or dates):
// a line per chosen cell, with every step whose change from the previous
// valid value exceeds Threshold ringed in red and labelled with the
// change ("−12.3%").
type Trend struct {
	Title, XLabel, YLabel string
	// Versions label the runs, oldest first; point X is an index into it.
	// The axis shows them shortened (shortVersions: "0.30.1rc1.dev452+
	// g73a583112" → "0.30.1rc1" while the labels stay distinct).
	Versions []string
	// Series holds one chosen cell each ("8K × 128"); Point.X indexes
	// Versions. Non-valid points are marked as on a LineChart.
	Series []Series
	// Threshold is the relative change that is flagged (0.05 = 5%); zero
	// flags nothing.
	Threshold float64
	// HigherIsBetter colours the change labels: red for a change for the
	// worse, green for the better. With it false, lower is better.
	HigherIsBetter bool
}

// TrendFlag is one flagged step of a trend series.
type TrendFlag struct {
	Series string
	// From and To index Versions.
	From, To int
	// Change is (to − from) / from.
	Change float64
}

// Flags returns the steps whose relative change exceeds the threshold, in
// series order then version order.
func (t Trend) Flags() []TrendFlag {
	if t.Threshold <= 0 {
		return nil
	}
	var out []TrendFlag
	for _, s := range t.Series {
		prev := -1
		for i, pt := range s.Points {
			if !isValid(pt.Status) {
				continue
			}
			if prev >= 0 && s.Points[prev].Y != 0 {
				ch := (pt.Y - s.Points[prev].Y) / s.Points[prev].Y
				if math.Abs(ch) > t.Threshold {
					out = append(out, TrendFlag{Series: s.Name, From: int(s.Points[prev].X), To: int(pt.X), Change: ch})
				}
			}
			prev = i
		}
	}
	return out
}

// Figure implements Chart.
func (t Trend) Figure() (*Figure, error) {
	if len(t.Versions) == 0 {
		return nil, fmt.Errorf("plots: %s: %w", t.Title, errors.New("trend has no versions"))
	}
	for _, s := range t.Series {
		for _, pt := range s.Points {
			if pt.X < 0 || int(pt.X) >= len(t.Versions) || pt.X != math.Trunc(pt.X) {
				return nil, fmt.Errorf("plots: %s: series %q: x = %v is not a version index", t.Title, s.Name, pt.X)
			}
		}
	}
	axis := shortVersions(t.Versions)
	longest := 0
	for _, l := range axis {
		longest = max(longest, utf8.RuneCountInString(l))
	}
	lc := LineChart{Title: t.Title, XLabel: t.XLabel, YLabel: t.YLabel, Series: t.Series,
		// About 5.5 pt per character on an axis about 300 pt long.
		XTickGap: math.Max(0.05, float64(longest+1)*0.018)}
	for i, v := range axis {
		lc.XTicks = append(lc.XTicks, plot.Tick{Value: float64(i), Label: v})
	}
	// A point's hover title names its version, not its index.
	lc.XFormat = func(v float64) string {
		if i := int(v); float64(i) == v && i >= 0 && i < len(axis) {
			return strings.ReplaceAll(axis[i], "\n", " ")
		}
		return FormatNumber(v)
	}
	fig, err := lc.Figure()
	if err != nil {
		return nil, err
	}
	p := fig.Plot
	p.X.Min, p.X.Max = -0.3, float64(len(t.Versions))-0.7
	if len(t.Versions) == 1 {
		p.X.Min, p.X.Max = -0.5, 0.5
	}

	flags := t.Flags()
	if len(flags) == 0 {
		return fig, nil
	}
	red := seriesColor(4)
	green := seriesColor(2)
	var xys plotter.XYs
	var labels []string
	var cols []bool // worse?
	for _, fl := range flags {
		var y float64
		for _, s := range t.Series {
			if s.Name == fl.Series {
				for _, pt := range s.Points {
					if int(pt.X) == fl.To && isValid(pt.Status) {
						y = pt.Y
					}
				}
			}
		}
		xys = append(xys, plotter.XY{X: float64(fl.To), Y: y})
		labels = append(labels, strings.Replace(fmt.Sprintf("%+.1f%%", 100*fl.Change), "-", "−", 1))
		cols = append(cols, (fl.Change < 0) == t.HigherIsBetter)
	}
	ring, err := plotter.NewScatter(xys)
	if err != nil {
		return nil, err
	}
	ring.GlyphStyle = draw.GlyphStyle{Color: red, Radius: vg.Points(7), Shape: strokeGlyph{"circle"}}
	lb, err := plotter.NewLabels(plotter.XYLabels{XYs: xys, Labels: labels})
	if err != nil {
		return nil, err
	}
	for i := range lb.TextStyle {
		lb.TextStyle[i] = textStyle(cellSize)
		lb.TextStyle[i].Color = green
		if cols[i] {
			lb.TextStyle[i].Color = red
		}
		lb.TextStyle[i].XAlign = draw.XLeft
		lb.TextStyle[i].YAlign = draw.YCenter
	}
	lb.Offset = vg.Point{X: vg.Points(10)}
	p.Add(ring, lb)
	addEntry(fig.Legend, " ")
	th, _ := plotter.NewScatter(plotter.XYs{})
	th.GlyphStyle = ring.GlyphStyle
	th.GlyphStyle.Radius = vg.Points(5)
	addEntry(fig.Legend, fmt.Sprintf("change beyond ±%s%%", FormatNumber(100*t.Threshold)), th)
	addEntry(fig.Legend, "(green better, red worse)")
	return fig, nil
}

// versionTail matches what shortVersions drops from a version: a local
// part ("+g73a583112") and then a development suffix (".dev452").
var (
	localPart = regexp.MustCompile(`\+.*$`)
	devPart   = regexp.MustCompile(`[.-]?dev[0-9]*$`)
)

// shortVersions shortens version labels for an axis ("0.30.1rc1.dev452+
// g73a583112" → "0.30.1rc1"), dropping the local part, then the dev
// suffix, only while the labels stay distinct, and cutting the middle of
// what is still longer than 16 characters (when that keeps them distinct).
func shortVersions(vs []string) []string {
	distinct := func(ls []string) bool {
		seen := map[string]bool{}
		for _, l := range ls {
			if seen[l] {
				return false
			}
			seen[l] = true
		}
		return true
	}
	out := append([]string(nil), vs...)
	for _, re := range []*regexp.Regexp{localPart, devPart} {
		next := make([]string, len(out))
		for i, v := range out {
			next[i] = re.ReplaceAllString(v, "")
			if next[i] == "" {
				next[i] = v
			}
		}
		if !distinct(next) {
			break
		}
		out = next
	}
	// Still too long: keep the head and the tail, which tells apart
	// labels such as "0.30.1rc1 acc4a0" and "0.30.1rc1 03cf9c".
	cut := make([]string, len(out))
	for i, v := range out {
		cut[i] = v
		if r := []rune(v); len(r) > 16 {
			cut[i] = string(r[:9]) + "…" + string(r[len(r)-6:])
		}
	}
	if distinct(cut) {
		return cut
	}
	return out
}
