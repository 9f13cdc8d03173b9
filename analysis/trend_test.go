package analysis

import (
	"math"
	"strings"
	"testing"
	"time"

	"speedmatrix/schema"
)

func TestCompareVersions(t *testing.T) {
	// Each list is in increasing order.
	tests := [][]string{
		{"0.9.2", "0.10.0", "0.27.2rc1.dev113+g5cecfc013", "0.27.2rc1", "0.27.2", "0.30.1rc1.dev452+g73a583112", "0.30.1rc1.dev453", "0.30.1rc1", "0.30.1rc2", "0.30.1"},
		{"1.0.dev1", "1.0a1", "1.0b2", "1.0rc1", "1.0", "1.0.post1", "1.1"},
		{"v1.2.3-alpha.1", "v1.2.3-beta", "1.2.3-rc.1", "v1.2.3"},
		{"1.0", "1.0+local"},
		{"2", "10", "nightly", "unknown"},
	}
	for _, order := range tests {
		for i := range order {
			for j := range order {
				got := CompareVersions(order[i], order[j])
				want := 0
				if i < j {
					want = -1
				} else if i > j {
					want = 1
				}
				if got != want {
					t.Errorf("CompareVersions(%q, %q) = %d, want %d", order[i], order[j], got, want)
				}
			}
		}
	}
	if CompareVersions("1.0", "1.0.0") != 0 {
		t.Error("1.0 != 1.0.0")
	}
}

func TestParseCellAndThreshold(t *testing.T) {
	cells := []struct {
		in   string
		want Key
		ok   bool
	}{
		{"decode:8K:128", Key{Phase: schema.PhaseDecode, ContextLabel: "8K", Concurrency: 128}, true},
		{"prefill:8K", Key{Phase: schema.PhasePrefill, ContextLabel: "8K", Concurrency: 1}, true},
		{"Decode:123K:1", Key{Phase: schema.PhaseDecode, ContextLabel: "123K", Concurrency: 1}, true},
		{"decode:8K", Key{}, false},
		{"decode:8K:x", Key{}, false},
		{"decode:8X:1", Key{}, false}, // a typo in the context
		{"warmup:8K:1", Key{}, false},
		{"8K", Key{}, false},
	}
	for _, c := range cells {
		got, err := ParseCell(c.in)
		if (err == nil) != c.ok || got != c.want {
			t.Errorf("ParseCell(%q) = %v, %v", c.in, got, err)
		}
	}
	ths := []struct {
		in   string
		want float64
		ok   bool
	}{{"5%", 0.05, true}, {"0.1", 0.1, true}, {" 12.5% ", 0.125, true}, {"x%", 0, false}, {"-1%", 0, false}}
	for _, c := range ths {
		got, err := ParseThreshold(c.in)
		if (err == nil) != c.ok || math.Abs(got-c.want) > 1e-12 {
			t.Errorf("ParseThreshold(%q) = %v, %v", c.in, got, err)
		}
	}
}

func trendRun(id, ver string, day int, st schema.Status, x float64) *schema.Matrix {
	m := schema.Measurement{Phase: schema.PhaseDecode, ContextLabel: "8K", Concurrency: schema.I32(128), Status: st}
	if st == schema.StatusValid {
		m.TotalTokS = schema.F64(x)
	}
	r := schema.Run{RunID: id, Engine: "vllm", EngineVersion: ver, IngestedAt: time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC)}
	if day > 0 { // day 0: an undated run, ingested after every other was measured
		at := time.Date(2026, 1, day, 0, 0, 0, 0, time.UTC)
		r.StartedAt = &at
	}
	return &schema.Matrix{Run: r, Measurements: []schema.Measurement{m}}
}

func TestBuildTrend(t *testing.T) {
	runs := []*schema.Matrix{
		trendRun("d", "0.30.1", 1, schema.StatusValid, 1300),
		trendRun("a", "0.27.2rc1", 4, schema.StatusValid, 1000),
		trendRun("c", "0.30.1rc1.dev452", 2, schema.StatusLooped, 0),
		trendRun("b", "0.28.0", 3, schema.StatusValid, 1030),
		trendRun("e", "0.31.0", 5, schema.StatusValid, 1200),
		trendRun("f", "0.26.0", 0, schema.StatusValid, 1000),
	}
	key := Key{Phase: schema.PhaseDecode, ContextLabel: "8K", Concurrency: 128}
	tests := []struct {
		order   TrendOrder
		ids     string
		flagged string
	}{
		{ByVersion, "fabcde", "de"}, // f 1000, a same, +3% (not flagged), looped, +26.2%, −7.7%
		{ByDate, "dcbaef", "bef"},   // d 1300, c looped, b −20.8%, a −2.9%, e +20%, undated f last −16.7%
	}
	for _, tt := range tests {
		tr := BuildTrend(runs, key, TotalTokS, tt.order, 0.05)
		var ids, flagged string
		for _, p := range tr.Points {
			ids += p.RunID
			if p.Flagged {
				flagged += p.RunID
			}
		}
		if ids != tt.ids || flagged != tt.flagged {
			t.Errorf("order %d: ids %s flagged %s; want %s, %s", tt.order, ids, flagged, tt.ids, tt.flagged)
		}
	}
	tr := BuildTrend(runs, key, TotalTokS, ByVersion, 0.05)
	if p := tr.Points[4]; math.Abs(p.ChangePct-(1300.0/1030-1)*100) > 1e-9 || p.Verdict != VerdictBetter {
		t.Errorf("d after b: %+v, want +26.2%% better", p)
	}
	if p := tr.Points[3]; p.State != StateLooped || !math.IsNaN(p.Value) {
		t.Errorf("looped point %+v", p)
	}
}

func TestUndatedRun(t *testing.T) {
	r := trendRun("f", "0.26.0", 0, schema.StatusValid, 1000).Run
	if !RunDate(&r).IsZero() || DateText(RunDate(&r)) != Undated {
		t.Errorf("undated run dated %v (%s), want zero and %q: its ingest date is not its date", RunDate(&r), DateText(RunDate(&r)), Undated)
	}
}

func TestParsePercent(t *testing.T) {
	for _, c := range []struct {
		in   string
		want float64
		ok   bool
	}{{"5%", 0.05, true}, {"0.5%", 0.005, true}, {"5", 0, false}, {"0.05", 0, false}, {"x%", 0, false}} {
		got, err := ParsePercent("-threshold", c.in)
		if (err == nil) != c.ok || math.Abs(got-c.want) > 1e-12 {
			t.Errorf("ParsePercent(%q) = %v, %v", c.in, got, err)
		}
	}
}

// TestGroupTrends groups the seeds by model and GPU and follows the
// default cell: the most-measured decode cell at the shortest context
// with the most simultaneous requests. A selected group without the
// cells asked for is an error; over the whole archive it is left out.
func TestGroupTrends(t *testing.T) {
	ms := []*schema.Matrix{loadSeed(t, seedBF16), loadSeed(t, seedINT4)}
	groups, err := GroupTrends(ms, TrendOptions{Metric: TotalTokS, Order: ByDate, Threshold: 0.05})
	if err != nil {
		t.Fatal(err)
	}
	if len(groups) != 2 || groups[0].Model != ms[0].Run.Model || groups[0].GPU != ms[0].Run.GPU || len(groups[0].Runs) != 1 {
		t.Fatalf("%d groups, first %q on %q", len(groups), groups[0].Model, groups[0].GPU)
	}
	want := Key{Phase: schema.PhaseDecode, ContextLabel: "8K", Concurrency: 128}
	if c := groups[0].Trends[0].Cell; c != want {
		t.Errorf("default cell %+v, want %+v", c, want)
	}
	nine := []Key{{Phase: schema.PhaseDecode, ContextLabel: "9K", Concurrency: 3}}
	if _, err := GroupTrends(ms, TrendOptions{Cells: nine, Metric: TotalTokS, Selected: true}); err == nil {
		t.Error("a selected group without the cell is not an error")
	}
	if _, err := GroupTrends(ms, TrendOptions{Cells: nine, Metric: TotalTokS}); err == nil || !strings.Contains(err.Error(), "no archived run has decode:9K:3") {
		t.Errorf("no group with the cell: err = %v", err)
	}
}
