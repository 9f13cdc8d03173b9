package analysis

import (
	"math"
	"testing"

	"speedmatrix/schema"
)

// TestKeyOfCappedBurst: an infinite request rate under a concurrency cap
// is a closed loop of that many streams and keys as the concurrency
// alone; an uncapped burst and a finite rate keep their rate; decode rows
// never key by rate.
func TestKeyOfCappedBurst(t *testing.T) {
	inf := math.Inf(1)
	tests := []struct {
		phase schema.Phase
		c     *int32
		rate  *float64
		want  Key
	}{
		{schema.PhaseServe, schema.I32(16), &inf, Key{Phase: schema.PhaseServe, ContextLabel: "1K", Concurrency: 16}},
		{schema.PhaseServe, nil, &inf, Key{Phase: schema.PhaseServe, ContextLabel: "1K", RequestRate: inf}},
		{schema.PhaseServe, schema.I32(16), schema.F64(4), Key{Phase: schema.PhaseServe, ContextLabel: "1K", Concurrency: 16, RequestRate: 4}},
		{schema.PhaseDecode, schema.I32(16), schema.F64(4), Key{Phase: schema.PhaseDecode, ContextLabel: "1K", Concurrency: 16}},
	}
	for _, tt := range tests {
		x := schema.Measurement{Phase: tt.phase, ContextLabel: "1K", Concurrency: tt.c, RequestRate: tt.rate}
		if got := KeyOf(&x); got != tt.want {
			t.Errorf("KeyOf(%s, c %v, rate %v) = %+v, want %+v", tt.phase, tt.c, tt.rate, got, tt.want)
		}
	}
}
