package plots

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"speedmatrix/schema"
)

func TestParetoFront(t *testing.T) {
	tests := []struct {
		name string
		pts  []Point
		want []int
	}{
		{"chain", []Point{{X: 300, Y: 300}, {X: 200, Y: 1000}, {X: 100, Y: 5000}}, []int{2, 1, 0}},
		{"dominated", []Point{{X: 100, Y: 100}, {X: 200, Y: 200}, {X: 50, Y: 150}}, []int{1}},
		{"ties kept", []Point{{X: 1, Y: 1}, {X: 1, Y: 1}}, []int{0, 1}},
		{"invalid ignored", []Point{{X: 500, Y: 9000, Status: looped}, {X: 10, Y: 10}}, []int{1}},
		{"empty", nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := paretoFront(tt.pts); !slices.Equal(got, tt.want) {
				t.Errorf("front = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestSeedFrontier(t *testing.T) {
	series := frontierSeries(seedRuns)
	labels := func(s Series) []string {
		var out []string
		for _, i := range paretoFront(s.Points) {
			out = append(out, s.Points[i].Label)
		}
		return out
	}
	// BF16: 8K dominates every other context at each concurrency.
	if got, want := labels(series[0]), []string{"8K×128", "8K×64", "8K×32", "8K×16", "8K×4", "8K×2", "8K×1"}; !slices.Equal(got, want) {
		t.Errorf("BF16 front = %v, want %v", got, want)
	}
	// Best throughput at ≥ 50 tok/s per user.
	if b := bestAbove(series[1].Points, 50); series[1].Points[b].Label != "16K×64" {
		t.Errorf("INT4 best at ≥ 50 tok/s per user = %s, want 16K×64 (8K×128 gives 47.4)", series[1].Points[b].Label)
	}
	if b := bestAbove(series[0].Points, 50); series[0].Points[b].Label != "8K×128" {
		t.Errorf("BF16 best at ≥ 50 = %s, want 8K×128", series[0].Points[b].Label)
	}
	if b := bestAbove(series[0].Points, 1000); b != -1 {
		t.Errorf("best at ≥ 1000 tok/s per user = %d, want none", b)
	}
}

func TestFrontierErrors(t *testing.T) {
	f := Frontier{Title: "f", Series: []Series{{Name: "s", Points: []Point{{X: 1, Y: 1, Status: looped}}}}}
	if _, err := f.Figure(); err == nil || !strings.Contains(err.Error(), "no valid points") {
		t.Errorf("err = %v", err)
	}
}

// TestFrontierOtherCellsEntry: the legend names "other cells (faint)"
// only when some cell is off its run's front.
func TestFrontierOtherCellsEntry(t *testing.T) {
	for _, c := range []struct {
		name string
		pts  []Point
		want bool
	}{
		{"every cell on the front", []Point{{X: 83, Y: 621, Status: schema.StatusValid}, {X: 45, Y: 1280, Status: schema.StatusValid}}, false},
		{"one cell beaten", []Point{{X: 83, Y: 621, Status: schema.StatusValid}, {X: 45, Y: 1280, Status: schema.StatusValid}, {X: 40, Y: 600, Status: schema.StatusValid}}, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			f, err := Frontier{Title: "front", XLabel: "x", YLabel: "y", Series: []Series{{Name: "run", Points: c.pts}}}.Figure()
			if err != nil {
				t.Fatal(err)
			}
			var b bytes.Buffer
			if err := saveSVG(f, &b, 600, 400, false); err != nil {
				t.Fatal(err)
			}
			if got := strings.Contains(b.String(), "other cells (faint)"); got != c.want {
				t.Errorf("legend names other cells: %v, want %v", got, c.want)
			}
		})
	}
}
