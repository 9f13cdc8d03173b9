package plots

import (
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/recorder"

	"speedmatrix/schema"
)

func TestStyleKeys(t *testing.T) {
	series := decodeSeries(seedRuns, func(c seedCell) float64 { return c.total })
	k := newStyleKeys(series)
	if !slices.Equal(k.groups, decodeContexts) || !k.byRun || !k.grouped {
		t.Fatalf("keys = %+v", k)
	}
	// Colour by context, pattern by run.
	if k.color(series[0]) != k.color(series[5]) || k.run(series[0]) == k.run(series[5]) {
		t.Error("8K of both runs should share a colour and differ in pattern")
	}
	if k.color(series[0]) == k.color(series[1]) {
		t.Error("8K and 16K share a colour")
	}
	one := newStyleKeys([]Series{{Name: "a"}, {Name: "b"}})
	if one.byRun || one.grouped || one.color(Series{Name: "b"}) != 1 {
		t.Errorf("single-run keys = %+v", one)
	}
}

// legendTexts draws l on a recording canvas and returns the texts it
// wrote, top to bottom, without the en space addEntry puts before names.
func legendTexts(t *testing.T, l plot.Legend) []string {
	t.Helper()
	rec := new(recorder.Canvas)
	l.Draw(draw.NewCanvas(rec, 4*vg.Inch, 6*vg.Inch))
	var out []string
	for _, a := range rec.Actions {
		if fs, ok := a.(*recorder.FillString); ok {
			out = append(out, strings.TrimPrefix(fs.String, "\u2002"))
		}
	}
	return out
}

func TestLegends(t *testing.T) {
	twoRuns := []Series{
		{Name: "8K", Group: "8K", Run: "H200"}, {Name: "16K", Group: "16K", Run: "H200"},
		{Name: "8K", Group: "8K", Run: "PRO 6000"},
	}
	tests := []struct {
		name   string
		series []Series
		marks  []markedPoint
		want   []string
	}{
		{"one run: an entry per series", []Series{{Name: "8K"}, {Name: "16K"}}, nil,
			[]string{"Context", "8K", "16K"}},
		{"one run: series of a group share an entry", []Series{{Name: "a", Group: "g"}, {Name: "b", Group: "g"}}, nil,
			[]string{"Context", "g"}},
		{"two runs: colours by group, then patterns by run", twoRuns, nil,
			[]string{"Context", "8K", "16K", " ", "Run", "H200", "PRO 6000"}},
		{"two runs without groups: an entry per series under the run title", []Series{{Name: "a", Run: "x"}, {Name: "b", Run: "y"}}, nil,
			[]string{"Run", "a", "b"}},
		{"statuses marked once each, in the legend's order", []Series{{Name: "8K"}},
			[]markedPoint{{status: schema.StatusError}, {status: schema.StatusLooped}, {status: schema.StatusLooped}},
			[]string{"Context", "8K", " ", "No value", "looped (discarded)", "error"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := plot.NewLegend()
			seriesLegend(&l, tt.series, newStyleKeys(tt.series), "Context", "Run", nil)
			statusLegend(&l, tt.marks)
			got := legendTexts(t, l)
			// A blank spacer entry draws no text when it is only spaces.
			want := slices.DeleteFunc(slices.Clone(tt.want), func(s string) bool { return strings.TrimSpace(s) == "" })
			got = slices.DeleteFunc(got, func(s string) bool { return strings.TrimSpace(s) == "" })
			if !slices.Equal(got, want) {
				t.Errorf("legend = %q, want %q", got, want)
			}
		})
	}
}
