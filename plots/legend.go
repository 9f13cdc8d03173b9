package plots

import (
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"strconv"
)

// How a line chart tells its series apart: a colour per group (a context,
// say) and a dash and marker per run, assigned by order of first
// appearance, and the legend that says which is which.

// styleKeys assigns colours and run styles by order of first appearance,
// so that the same input always gets the same colours.
type styleKeys struct {
	groups, runs []string
	byRun        bool // more than one run: tell runs apart by dash and marker
	grouped      bool // some series set Group: colour by group, not by series
}

func indexOf(list []string, s string) int {
	for i, v := range list {
		if v == s {
			return i
		}
	}
	return -1
}

func newStyleKeys(series []Series) styleKeys {
	var k styleKeys
	for _, s := range series {
		if g := groupOf(s); indexOf(k.groups, g) < 0 {
			k.groups = append(k.groups, g)
		}
		if s.Group != "" {
			k.grouped = true
		}
		if indexOf(k.runs, s.Run) < 0 {
			k.runs = append(k.runs, s.Run)
		}
	}
	k.byRun = len(k.runs) > 1
	return k
}

func groupOf(s Series) string {
	if s.Group != "" {
		return s.Group
	}
	return s.Name
}

func (k styleKeys) color(s Series) int { return indexOf(k.groups, groupOf(s)) }
func (k styleKeys) run(s Series) int {
	if !k.byRun {
		return 0
	}
	return indexOf(k.runs, s.Run)
}

// seriesLegend fills the legend: with several runs, one colour entry per
// group and one pattern entry per run; otherwise one entry per series.
func seriesLegend(l *plot.Legend, series []Series, keys styleKeys, groupTitle, runTitle string, ms *markSet) {
	// toggle wraps an entry's thumbnails in a group a click on it may
	// use to hide the series it names (interactive.go).
	toggle := func(key, name string, th []plot.Thumbnailer) []plot.Thumbnailer {
		if ms == nil {
			return th
		}
		id := ms.add(`class="sm-toggle" data-sm-toggle="`+key+`"`, name+": click to hide or show")
		return []plot.Thumbnailer{groupThumb{id: id, inner: th}}
	}
	lineThumb := func(col interface{ RGBA() (r, g, b, a uint32) }, ri int, glyph bool) []plot.Thumbnailer {
		ln, _ := plotter.NewLine(plotter.XYs{})
		ln.LineStyle = draw.LineStyle{Color: col, Width: vg.Points(1.8), Dashes: runDash(ri)}
		th := []plot.Thumbnailer{ln}
		if glyph {
			sc, _ := plotter.NewScatter(plotter.XYs{})
			sc.GlyphStyle = draw.GlyphStyle{Color: col, Radius: vg.Points(3), Shape: runGlyph(ri)}
			th = append(th, sc)
		}
		return th
	}
	if !keys.byRun || !keys.grouped {
		// One entry per series (per group when series share one).
		switch {
		case keys.byRun && runTitle != "":
			addEntry(l, runTitle)
		case !keys.byRun && groupTitle != "":
			addEntry(l, groupTitle)
		}
		var done []string
		for _, s := range series {
			g := groupOf(s)
			if indexOf(done, g) >= 0 {
				continue
			}
			done = append(done, g)
			addEntry(l, g, toggle("g"+strconv.Itoa(keys.color(s)), g, lineThumb(seriesColor(keys.color(s)), keys.run(s), true))...)
		}
		return
	}
	if groupTitle != "" {
		addEntry(l, groupTitle)
	}
	for i, g := range keys.groups {
		addEntry(l, g, toggle("g"+strconv.Itoa(i), g, lineThumb(seriesColor(i), 0, false))...)
	}
	addEntry(l, " ")
	if runTitle != "" {
		addEntry(l, runTitle)
	}
	for i, r := range keys.runs {
		addEntry(l, r, toggle("r"+strconv.Itoa(i), r, lineThumb(grey, i, true))...)
	}
}

// statusLegend adds one entry per status that was marked.
func statusLegend(l *plot.Legend, marks []markedPoint) {
	first := true
	for _, sm := range statusMarks {
		used := false
		for _, m := range marks {
			if markFor(m.status).status == sm.status {
				used = true
				break
			}
		}
		if !used {
			continue
		}
		if first {
			addEntry(l, " ")
			addEntry(l, "No value")
			first = false
		}
		sc, _ := plotter.NewScatter(plotter.XYs{})
		sc.GlyphStyle = draw.GlyphStyle{Color: grey, Radius: vg.Points(3.5), Shape: sm.glyph}
		addEntry(l, sm.legend, sc)
	}
}
