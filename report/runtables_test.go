package report

import (
	"errors"
	"math"
	"reflect"
	"strings"
	"testing"

	"speedmatrix/analysis"
	"speedmatrix/schema"
)

// TestDescribeFit: each kind of USL fit prints its peak the way a reader
// needs it, and a poor fit says why it is poor.
func TestDescribeFit(t *testing.T) {
	fit := func(peakN float64, poor bool) analysis.Scaling {
		f := &analysis.USLFit{Lambda: 1200, Sigma: 0.05, Kappa: 0.001, R2: 0.987, Points: 5, PeakN: peakN, PeakX: 9000}
		if poor {
			f.Poor, f.R2 = true, 0.8
		}
		return analysis.Scaling{Fit: f}
	}
	for _, c := range []struct {
		name string
		s    analysis.Scaling
		want []string
	}{
		{"no fit", analysis.Scaling{FitErr: errors.New("2 points")}, []string{"no fit (2 points)"}},
		{"finite peak", fit(31, false), []string{"N* = 31, X(N*) = ", "σ = 0.0500", "R² = 0.987", "5 points"}},
		{"never falls", fit(math.Inf(1), false), []string{"throughput never falls (no peak)"}},
		{"σ ≥ 1", fit(math.NaN(), false), []string{"no peak (σ ≥ 1)"}},
		{"poor", fit(31, true), []string{" — poor fit: R² 0.800 < 0.9"}},
		{"few points", analysis.Scaling{Fit: &analysis.USLFit{Lambda: 1, R2: 1, Points: 3, PeakN: 2, Poor: true}}, []string{" — poor fit: only 3 points"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := describeFit(c.s)
			for _, w := range c.want {
				if !strings.Contains(got, w) {
					t.Errorf("%q lacks %q", got, w)
				}
			}
			if c.s.Fit != nil && !c.s.Fit.Poor && strings.Contains(got, "poor") {
				t.Errorf("%q: a good fit called poor", got)
			}
		})
	}
}

// TestInOrder: points and excluded cells interleave by concurrency.
func TestInOrder(t *testing.T) {
	s := analysis.Scaling{
		Points:   []analysis.ScalePoint{{N: 1}, {N: 4}, {N: 16}},
		Excluded: []analysis.Excluded{{N: 2, State: analysis.StateLooped}, {N: 32, State: analysis.StateOverCapacity}},
	}
	var got []int32
	inOrder(s, func(p analysis.ScalePoint) { got = append(got, p.N) }, func(e analysis.Excluded) { got = append(got, -e.N) })
	if want := []int32{1, -2, 4, 16, -32}; !reflect.DeepEqual(got, want) {
		t.Errorf("order %v, want %v (excluded negative)", got, want)
	}
}

// TestBestRows: an answer with unmeasured cells beyond it is a lower
// bound ("≥", and the table gets the note); a context without one says
// whether cells beyond were left unmeasured.
func TestBestRows(t *testing.T) {
	b := analysis.Best{ContextLabel: "8K", Found: true, Cell: analysis.FrontierPoint{TotalTokS: 1234, TotalSigFigs: 4}}
	if got := bestValue(b); got != "1,234.0" {
		t.Errorf("bestValue = %q, want 1,234.0 (four figures: one decimal, as every table prints)", got)
	}
	bound := b
	bound.Beyond = []analysis.Unmeasured{{Concurrency: 64, Status: schema.StatusLooped}}
	if got := bestValue(bound); got != "≥ 1,234.0" {
		t.Errorf("bestValue of a lower bound = %q, want ≥ 1,234.0", got)
	}
	if got := noneRow(analysis.Best{ContextLabel: "128K"}); got[1] != "none" {
		t.Errorf("noneRow = %q", got)
	}
	if got := noneRow(analysis.Best{ContextLabel: "128K", Beyond: []analysis.Unmeasured{{Concurrency: 1, Status: schema.StatusOverCapacity}, {Concurrency: 2}}}); got[1] != "none measured (N=1 over_capacity, N=2 missing)" {
		t.Errorf("noneRow beyond = %q", got)
	}
	tb := &Table{}
	boundNote(tb, []analysis.Best{b})
	if len(tb.Notes) != 0 {
		t.Errorf("notes %q without a lower bound", tb.Notes)
	}
	boundNote(tb, []analysis.Best{b, bound, bound})
	if !reflect.DeepEqual(tb.Notes, []string{LowerBoundNote}) {
		t.Errorf("notes %q, want the lower-bound note once", tb.Notes)
	}
}

func TestScalingTableNeedsTwoLoads(t *testing.T) {
	pt := func(n int32) analysis.ScalePoint { return analysis.ScalePoint{N: n, X: float64(n), XSigFigs: 3} }
	for _, tc := range []struct {
		name string
		s    analysis.Scaling
		rows int
	}{
		{"one load", analysis.Scaling{ContextLabel: "1K", Points: []analysis.ScalePoint{pt(16)}}, 0},
		{"one load left out", analysis.Scaling{ContextLabel: "1K", Excluded: []analysis.Excluded{{N: 16, State: analysis.StateMissing}}}, 0},
		{"two loads", analysis.Scaling{ContextLabel: "1K", Points: []analysis.ScalePoint{pt(1), pt(4)}}, 2},
		{"a load and one left out", analysis.Scaling{ContextLabel: "1K", Points: []analysis.ScalePoint{pt(1)}, Excluded: []analysis.Excluded{{N: 4, State: analysis.StateMissing}}}, 2},
	} {
		a := analysis.RunAnalysis{Label: "r", Scaling: []analysis.Scaling{tc.s}}
		tb := scalingTable(a)
		if len(tb.Rows) != tc.rows || len(scalingCSV(a)) != 1+tc.rows {
			t.Errorf("%s: %d rows, %d CSV rows; want %d", tc.name, len(tb.Rows), len(scalingCSV(a))-1, tc.rows)
		}
		if (len(tb.Notes) > 0) != (tc.rows > 0) {
			t.Errorf("%s: notes %q", tc.name, tb.Notes)
		}
	}
}
