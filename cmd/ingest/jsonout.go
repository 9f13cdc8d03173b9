package ingestcmd

import (
	"fmt"
	"math"
	"reflect"

	"speedmatrix/schema"
)

// jsonSafe returns a copy of m that encoding/json can encode: a float that
// is NaN or ±Inf (a request rate of "inf" from another tool) becomes null
// (a pointer field) or 0 (a plain one), and warn is told which field held
// what. m is not modified.
//
// Note: encoding/json rejects non-finite floats and JSON has no spelling
// for them; the archive (Parquet) keeps them, only this output loses them.
func jsonSafe(m *schema.Matrix, warn func(field string, v float64)) *schema.Matrix {
	c := *m
	c.Measurements = cloneFix(m.Measurements, "measurements", warn)
	c.Samples = cloneFix(m.Samples, "samples", warn)
	fixStruct(reflect.ValueOf(&c.Run).Elem(), "run", warn)
	return &c
}

// cloneFix copies rows and fixes the copies.
func cloneFix[T any](rows []T, name string, warn func(string, float64)) []T {
	if rows == nil {
		return nil
	}
	out := make([]T, len(rows))
	copy(out, rows)
	for i := range out {
		fixStruct(reflect.ValueOf(&out[i]).Elem(), fmt.Sprintf("%s[%d]", name, i), warn)
	}
	return out
}

// fixStruct replaces non-finite floats in the struct v (settable),
// copying any slice it has to change.
func fixStruct(v reflect.Value, path string, warn func(string, float64)) {
	for i := 0; i < v.NumField(); i++ {
		f := v.Field(i)
		if !f.CanSet() {
			continue
		}
		name := path + "." + v.Type().Field(i).Name
		switch {
		case f.Kind() == reflect.Float64:
			if x := f.Float(); math.IsInf(x, 0) || math.IsNaN(x) {
				warn(name, x)
				f.SetFloat(0)
			}
		case f.Kind() == reflect.Pointer && f.Type().Elem().Kind() == reflect.Float64:
			if !f.IsNil() {
				if x := f.Elem().Float(); math.IsInf(x, 0) || math.IsNaN(x) {
					warn(name, x)
					f.Set(reflect.Zero(f.Type()))
				}
			}
		case f.Kind() == reflect.Slice && f.Type().Elem().Kind() == reflect.Struct && f.Len() > 0:
			s := reflect.MakeSlice(f.Type(), f.Len(), f.Len())
			reflect.Copy(s, f)
			for k := 0; k < s.Len(); k++ {
				fixStruct(s.Index(k), fmt.Sprintf("%s[%d]", name, k), warn)
			}
			f.Set(s)
		}
	}
}
