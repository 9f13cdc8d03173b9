package canonjson_test

import (
	"reflect"
	"testing"
	"unsafe"

	"speedmatrix/internal/canonjson"
	"speedmatrix/schema"
)

// TestMeasurementNilRuns checks that the plan of schema.Measurement
// skips the adjacent pointers a seed's rows leave nil as one run, and
// that every run is made of adjacent nilOmitted pointers.
func TestMeasurementNilRuns(t *testing.T) {
	plan, ok := canonjson.NewPlan(reflect.TypeFor[schema.Measurement](), nil)
	if !ok {
		t.Fatal("no plan for schema.Measurement")
	}
	fields := canonjson.Fields(plan)
	longest := 0
	for i, p := range fields {
		if p.NilRun == 0 {
			continue
		}
		longest = max(longest, p.NilRun)
		for j := i; j < i+p.NilRun; j++ {
			q := fields[j]
			if !q.NilOmitted || q.Offset != p.Offset+uintptr(j-i)*unsafe.Sizeof(uintptr(0)) {
				t.Fatalf("run at %s: field %s is not an adjacent omitted pointer", p.Name, q.Name)
			}
		}
	}
	if longest < 31 {
		t.Errorf("longest run of omitted pointers %d, want the 31 of TTFTMeanMs … LoopCycles", longest)
	}
}

// TestNilOmittedPointers checks that every omitempty pointer field of
// the plans of schema.Run and schema.Measurement, a marshaler's
// (*time.Time) included, is skipped when nil before the encoder looks at
// its type.
func TestNilOmittedPointers(t *testing.T) {
	for _, typ := range []reflect.Type{reflect.TypeFor[schema.Run](), reflect.TypeFor[schema.Measurement]()} {
		plan, ok := canonjson.NewPlan(typ, nil)
		if !ok {
			t.Fatalf("no plan for %s", typ)
		}
		for _, p := range canonjson.Fields(plan) {
			f, _ := typ.FieldByName(p.Name)
			if f.Type.Kind() == reflect.Pointer && p.OmitEmpty && !p.NilOmitted {
				t.Errorf("%s.%s: an omitempty pointer not skipped when nil", typ.Name(), p.Name)
			}
		}
	}
}
