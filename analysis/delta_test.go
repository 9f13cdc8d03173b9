package analysis

import (
	"math"
	"testing"

	"speedmatrix/schema"
)

func seedComparison(t testing.TB) *Comparison {
	t.Helper()
	c, err := Compare(loadSeed(t, seedBF16), []*schema.Matrix{loadSeed(t, seedINT4)}, Options{Labels: []string{"H200-BF16", "RTX-INT4"}})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func findRow(rows []Row, phase schema.Phase, ctx string, n int32, metric string) *Row {
	for i := range rows {
		r := &rows[i]
		if r.Phase == phase && r.ContextLabel == ctx && r.Metric == metric && (r.Concurrency != nil && *r.Concurrency == n) {
			return r
		}
	}
	return nil
}

func TestSeedKnownAnswers(t *testing.T) {
	rows := seedComparison(t).Rows()
	num := func(p *float64) float64 {
		if p == nil {
			return math.NaN()
		}
		return *p
	}
	tests := []struct {
		name                   string
		phase                  schema.Phase
		ctx                    string
		n                      int32
		metric                 string
		baseline, value, ratio float64 // NaN: no figure
		better, note           string
	}{
		{"decode 8K×128 throughput", schema.PhaseDecode, "8K", 128, "total_tok_s", 13000, 6091.1, 0.4685, "worse", ""},
		{"prefill 8K", schema.PhasePrefill, "8K", 1, "total_tok_s", 65300, 55000, 0.8423, "worse", ""},
		{"prefill 8K TTFT", schema.PhasePrefill, "8K", 1, "ttft_ms", 125, 149, 1.192, "worse", ""},
		{"decode 8K×8 faster on INT4", schema.PhaseDecode, "8K", 8, "total_tok_s", 1406.6, 1627.8, 1.1573, "better", ""},
		{"decode 8K×8 TTFT lower", schema.PhaseDecode, "8K", 8, "ttft_ms", 167, 112, 0.6707, "better", ""},
		{"8K×16 looped in INT4", schema.PhaseDecode, "8K", 16, "total_tok_s", 3016.8, math.NaN(), math.NaN(), "", "looped in RTX-INT4"},
		{"16K×1 looped in INT4", schema.PhaseDecode, "16K", 1, "tbt_ms", 3.0, math.NaN(), math.NaN(), "", "looped in RTX-INT4"},
		{"123K×128 over capacity in both", schema.PhaseDecode, "123K", 128, "total_tok_s", math.NaN(), math.NaN(), math.NaN(), "", "over capacity in both"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := findRow(rows, tt.phase, tt.ctx, tt.n, tt.metric)
			if r == nil {
				t.Fatal("no row")
			}
			for _, f := range []struct {
				what      string
				got, want float64
				tol       float64
			}{{"baseline", num(r.Baseline), tt.baseline, 1e-9}, {"value", num(r.Value), tt.value, 1e-9}, {"ratio", num(r.Ratio), tt.ratio, 5e-5}} {
				if math.IsNaN(f.want) != math.IsNaN(f.got) || math.Abs(f.got-f.want) > f.tol*math.Max(1, math.Abs(f.want)) {
					t.Errorf("%s = %v, want %v", f.what, f.got, f.want)
				}
			}
			if r.Ratio != nil && math.Abs(*r.DeltaPct-(*r.Ratio-1)*100) > 1e-9 {
				t.Errorf("delta %% = %v for ratio %v", *r.DeltaPct, *r.Ratio)
			}
			if r.Better != tt.better || r.Note != tt.note {
				t.Errorf("better, note = %q, %q; want %q, %q", r.Better, r.Note, tt.better, tt.note)
			}
			if r.BaselineRunID != "03cf9c936d246394" || r.RunID != "acc4a01d882a0446" {
				t.Errorf("run ids %s, %s", r.BaselineRunID, r.RunID)
			}
		})
	}
	// Prefill rows compare prompt speed and TTFT only.
	if r := findRow(rows, schema.PhasePrefill, "8K", 1, "tbt_ms"); r != nil {
		t.Errorf("prefill row for tbt_ms: %+v", r)
	}
	if want := 6*2 + 40*4; len(rows) != want {
		t.Errorf("%d rows, want %d", len(rows), want)
	}
}

func TestNotes(t *testing.T) {
	valid := func(v float64) schema.Measurement {
		return schema.Measurement{Phase: schema.PhaseDecode, ContextLabel: "8K", Concurrency: schema.I32(1), Status: schema.StatusValid, TotalTokS: schema.F64(v)}
	}
	st := func(s schema.Status) schema.Measurement {
		return schema.Measurement{Phase: schema.PhaseDecode, ContextLabel: "8K", Concurrency: schema.I32(1), Status: s}
	}
	tests := []struct {
		name       string
		base, val  []schema.Measurement
		note, want string
	}{
		{"both valid", []schema.Measurement{valid(100)}, []schema.Measurement{valid(120)}, "", "better"},
		{"within same", []schema.Measurement{valid(100)}, []schema.Measurement{valid(100.01)}, "", "same"},
		{"missing in other", []schema.Measurement{valid(100)}, nil, "missing in B", ""},
		{"missing in baseline", nil, []schema.Measurement{valid(100)}, "missing in A", ""},
		{"looped baseline", []schema.Measurement{st(schema.StatusLooped)}, []schema.Measurement{valid(1)}, "looped in A", ""},
		{"mixed", []schema.Measurement{st(schema.StatusLooped)}, []schema.Measurement{st(schema.StatusOverCapacity)}, "looped in A and over capacity in B", ""},
		{"error", []schema.Measurement{valid(1)}, []schema.Measurement{st(schema.StatusError)}, "error in B", ""},
		{"zero baseline", []schema.Measurement{valid(0)}, []schema.Measurement{valid(1)}, "baseline is zero", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := &schema.Matrix{Run: schema.Run{RunID: "a"}, Measurements: tt.base}
			b := &schema.Matrix{Run: schema.Run{RunID: "b"}, Measurements: tt.val}
			c, err := Compare(a, []*schema.Matrix{b}, Options{Labels: []string{"A", "B"}})
			if err != nil {
				t.Fatal(err)
			}
			rows := c.Rows()
			r := findRow(rows, schema.PhaseDecode, "8K", 1, "total_tok_s")
			if r == nil {
				t.Fatalf("no row in %+v", rows)
			}
			if r.Note != tt.note || r.Better != tt.want {
				t.Errorf("note, better = %q, %q; want %q, %q", r.Note, r.Better, tt.note, tt.want)
			}
		})
	}
}
