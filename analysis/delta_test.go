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

// findDelta returns the delta of c's first other run at a cell and
// metric, and its statistics; nil when there is none.
func findDelta(c *Comparison, phase schema.Phase, ctx string, n int32, metric string) (*Delta, *CellStats) {
	for i := range c.Deltas[0] {
		d := &c.Deltas[0][i]
		k := c.Cells[d.Cell].Key
		if k.Phase == phase && k.ContextLabel == ctx && k.Concurrency == n && c.Metrics[d.Metric].Name == metric {
			return d, c.Stats(0, i)
		}
	}
	return nil, nil
}

func TestSeedKnownAnswers(t *testing.T) {
	c := seedComparison(t)
	tests := []struct {
		name                   string
		phase                  schema.Phase
		ctx                    string
		n                      int32
		metric                 string
		baseline, value, ratio float64 // NaN: no figure
		verdict                Verdict
		baseState, valueState  State
	}{
		{"decode 8K×128 throughput", schema.PhaseDecode, "8K", 128, "total_tok_s", 13000, 6091.1, 0.4685, VerdictWorse, StateValue, StateValue},
		{"prefill 8K", schema.PhasePrefill, "8K", 1, "total_tok_s", 65300, 55000, 0.8423, VerdictWorse, StateValue, StateValue},
		{"prefill 8K TTFT", schema.PhasePrefill, "8K", 1, "ttft_ms", 125, 149, 1.192, VerdictWorse, StateValue, StateValue},
		{"decode 8K×8 faster on INT4", schema.PhaseDecode, "8K", 8, "total_tok_s", 1406.6, 1627.8, 1.1573, VerdictBetter, StateValue, StateValue},
		{"decode 8K×8 TTFT lower", schema.PhaseDecode, "8K", 8, "ttft_ms", 167, 112, 0.6707, VerdictBetter, StateValue, StateValue},
		{"8K×16 looped in INT4", schema.PhaseDecode, "8K", 16, "total_tok_s", 3016.8, math.NaN(), math.NaN(), VerdictNone, StateValue, StateLooped},
		{"16K×1 looped in INT4", schema.PhaseDecode, "16K", 1, "tbt_ms", 3.0, math.NaN(), math.NaN(), VerdictNone, StateValue, StateLooped},
		{"123K×128 over capacity in both", schema.PhaseDecode, "123K", 128, "total_tok_s", math.NaN(), math.NaN(), math.NaN(), VerdictNone, StateOverCapacity, StateOverCapacity},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, _ := findDelta(c, tt.phase, tt.ctx, tt.n, tt.metric)
			if d == nil {
				t.Fatal("no delta")
			}
			num := func(v float64, st State) float64 {
				if st != StateValue {
					return math.NaN()
				}
				return v
			}
			ratio, ok := d.Ratio()
			if !ok {
				ratio = math.NaN()
			}
			for _, f := range []struct {
				what      string
				got, want float64
				tol       float64
			}{{"baseline", num(d.Baseline, d.BaseState), tt.baseline, 1e-9}, {"value", num(d.Value, d.ValueState), tt.value, 1e-9}, {"ratio", ratio, tt.ratio, 5e-5}} {
				if math.IsNaN(f.want) != math.IsNaN(f.got) || math.Abs(f.got-f.want) > f.tol*math.Max(1, math.Abs(f.want)) {
					t.Errorf("%s = %v, want %v", f.what, f.got, f.want)
				}
			}
			if d.Verdict != tt.verdict || d.BaseState != tt.baseState || d.ValueState != tt.valueState {
				t.Errorf("verdict, states = %v, %v, %v; want %v, %v, %v", d.Verdict, d.BaseState, d.ValueState, tt.verdict, tt.baseState, tt.valueState)
			}
		})
	}
	if c.Baseline.Run.Run.RunID != "03cf9c936d246394" || c.Others[0].Run.Run.RunID != "acc4a01d882a0446" {
		t.Errorf("run ids %s, %s", c.Baseline.Run.Run.RunID, c.Others[0].Run.Run.RunID)
	}
	// Prefill cells compare prompt speed and TTFT only.
	if d, _ := findDelta(c, schema.PhasePrefill, "8K", 1, "tbt_ms"); d != nil {
		t.Errorf("prefill delta for tbt_ms: %+v", d)
	}
	if want := 6*2 + 40*4; len(c.Deltas[0]) != want {
		t.Errorf("%d deltas, want %d", len(c.Deltas[0]), want)
	}
}

// TestDeltaStates: each side of a delta without a ratio says what it
// holds (package report words them: TestDeltaNote).
func TestDeltaStates(t *testing.T) {
	valid := func(v float64) schema.Measurement {
		return schema.Measurement{Phase: schema.PhaseDecode, ContextLabel: "8K", Concurrency: schema.I32(1), Status: schema.StatusValid, TotalTokS: schema.F64(v)}
	}
	st := func(s schema.Status) schema.Measurement {
		return schema.Measurement{Phase: schema.PhaseDecode, ContextLabel: "8K", Concurrency: schema.I32(1), Status: s}
	}
	tests := []struct {
		name      string
		base, val []schema.Measurement
		bs, vs    State
		want      Verdict
	}{
		{"both valid", []schema.Measurement{valid(100)}, []schema.Measurement{valid(120)}, StateValue, StateValue, VerdictBetter},
		{"within same", []schema.Measurement{valid(100)}, []schema.Measurement{valid(100.01)}, StateValue, StateValue, VerdictSame},
		{"missing in other", []schema.Measurement{valid(100)}, nil, StateValue, StateMissing, VerdictNone},
		{"missing in baseline", nil, []schema.Measurement{valid(100)}, StateMissing, StateValue, VerdictNone},
		{"looped baseline", []schema.Measurement{st(schema.StatusLooped)}, []schema.Measurement{valid(1)}, StateLooped, StateValue, VerdictNone},
		{"mixed", []schema.Measurement{st(schema.StatusLooped)}, []schema.Measurement{st(schema.StatusOverCapacity)}, StateLooped, StateOverCapacity, VerdictNone},
		{"error", []schema.Measurement{valid(1)}, []schema.Measurement{st(schema.StatusError)}, StateValue, StateError, VerdictNone},
		{"zero baseline", []schema.Measurement{valid(0)}, []schema.Measurement{valid(1)}, StateValue, StateValue, VerdictNone},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := &schema.Matrix{Run: schema.Run{RunID: "a"}, Measurements: tt.base}
			b := &schema.Matrix{Run: schema.Run{RunID: "b"}, Measurements: tt.val}
			c, err := Compare(a, []*schema.Matrix{b}, Options{Labels: []string{"A", "B"}})
			if err != nil {
				t.Fatal(err)
			}
			d, _ := findDelta(c, schema.PhaseDecode, "8K", 1, "total_tok_s")
			if d == nil {
				t.Fatalf("no delta in %+v", c.Deltas)
			}
			if d.BaseState != tt.bs || d.ValueState != tt.vs || d.Verdict != tt.want {
				t.Errorf("states, verdict = %v, %v, %v; want %v, %v, %v", d.BaseState, d.ValueState, d.Verdict, tt.bs, tt.vs, tt.want)
			}
		})
	}
}
