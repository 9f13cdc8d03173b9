package plots

import (
	"math"
	"slices"
	"strings"
	"testing"
)

func TestTrendFlags(t *testing.T) {
	tr := syntheticTrend()
	flags := tr.Flags()
	type flag struct {
		series   string
		from, to int
		pct      float64
	}
	want := []flag{
		{"8K × 128", 1, 2, 8.59},
		{"8K × 128", 2, 3, -15.83},
		{"32K × 16", 1, 3, 6.04}, // across the looped 0.29.1
	}
	if len(flags) != len(want) {
		t.Fatalf("flags = %+v, want %d", flags, len(want))
	}
	for i, w := range want {
		f := flags[i]
		if f.Series != w.series || f.From != w.from || f.To != w.to || math.Abs(100*f.Change-w.pct) > 0.01 {
			t.Errorf("flag %d = %+v, want %+v", i, f, w)
		}
	}
	tr.Threshold = 0
	if f := tr.Flags(); f != nil {
		t.Errorf("threshold 0 flags %v", f)
	}
	tr.Threshold = 0.5
	if f := tr.Flags(); len(f) != 0 {
		t.Errorf("threshold 50%% flags %v", f)
	}
}

func TestTrendErrors(t *testing.T) {
	tests := []struct {
		name string
		tr   Trend
		want string
	}{
		{"no versions", Trend{Title: "t"}, "no versions"},
		{"index out of range", Trend{Versions: []string{"a"}, Series: []Series{{Name: "s", Points: []Point{{X: 1, Y: 1}}}}}, "not a version index"},
		{"fractional index", Trend{Versions: []string{"a", "b"}, Series: []Series{{Name: "s", Points: []Point{{X: 0.5, Y: 1}}}}}, "not a version index"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := tt.tr.Figure()
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %v, want one containing %q", err, tt.want)
			}
		})
	}
}

func TestShortVersions(t *testing.T) {
	tests := []struct {
		in, want []string
	}{
		{[]string{"0.27.2rc1.dev113+g5cecfc013", "0.30.1rc1.dev452+g73a583112"}, []string{"0.27.2rc1", "0.30.1rc1"}},
		// Two builds of one release keep their dev numbers.
		{[]string{"0.30.1rc1.dev452+g73a583112", "0.30.1rc1.dev460+gabc"}, []string{"0.30.1rc1.dev452", "0.30.1rc1.dev460"}},
		// Same dev build, different commits: nothing can be dropped; cut
		// the middle.
		{[]string{"1.0.dev1+gaaaaaaaaaaaa", "1.0.dev1+gbbbbbbbbbbbb"}, []string{"1.0.dev1+…aaaaaa", "1.0.dev1+…bbbbbb"}},
		// cmd/compare appends a run id to equal versions.
		{[]string{"0.30.1rc1.dev452+g73a583112 acc4a0", "0.30.1rc1.dev452+g73a583112 03cf9c"}, []string{"0.30.1rc1…acc4a0", "0.30.1rc1…03cf9c"}},
		// Cutting would merge them: keep them whole.
		{[]string{"aaaaaaaaa-middle-1-zzzzzz", "aaaaaaaaa-middle-2-zzzzzz"}, []string{"aaaaaaaaa-middle-1-zzzzzz", "aaaaaaaaa-middle-2-zzzzzz"}},
		{[]string{"2026-01-05", "2026-02-11"}, []string{"2026-01-05", "2026-02-11"}},
		{[]string{"+x"}, []string{"+x"}},
	}
	for _, tt := range tests {
		if got := shortVersions(tt.in); !slices.Equal(got, tt.want) {
			t.Errorf("shortVersions(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
