package schema

import (
	"encoding/json"
	"math"
	"reflect"
	"strconv"
	"time"
)

// marshalContent is the canonical JSON of m written by encoding/json: the
// definition canonEncoder reproduces, used when a plan cannot be built.
func marshalContent(m *Matrix) []byte {
	r := m.Run
	r.RunID, r.SourcePath, r.SourceSHA256, r.SourceFormat = "", "", "", ""
	r.IngestedAt = time.Time{}
	r.Cells = nil
	r.SchemaVersion = 0
	r.Subtitle = ""
	ms := make([]Measurement, len(m.Measurements))
	var nonFinite []string
	for i, x := range m.Measurements {
		x.RunID = ""
		x.SourceLine = 0
		x.Printed = nil
		x.Extra = append([]Metric(nil), x.Extra...) // cleared below; keep the caller's
		nonFinite = append(nonFinite, clearNonFinite(i, &x)...)
		ms[i] = x
	}
	b, err := json.Marshal(struct {
		Run          Run           `json:"run"`
		Measurements []Measurement `json:"measurements"`
		NonFinite    []string      `json:"non_finite,omitempty"`
	}{r, ms, nonFinite})
	if err != nil {
		panic("schema: run id: " + err.Error())
	}
	return b
}

// clearNonFinite sets every *float64 field of m holding NaN or ±Inf (such
// as a request rate of "inf") to nil and returns them as "row.field=value"
// strings, because encoding/json cannot encode them.
func clearNonFinite(row int, m *Measurement) []string {
	var out []string
	v := reflect.ValueOf(m).Elem()
	t := v.Type()
	for i := 0; i < v.NumField(); i++ {
		f := v.Field(i)
		p, ok := f.Interface().(*float64)
		if !ok || p == nil || !(math.IsInf(*p, 0) || math.IsNaN(*p)) {
			continue
		}
		out = append(out, strconv.Itoa(row)+"."+t.Field(i).Name+"="+strconv.FormatFloat(*p, 'g', -1, 64))
		f.Set(reflect.Zero(f.Type()))
	}
	for j, e := range m.Extra {
		if math.IsInf(e.Value, 0) || math.IsNaN(e.Value) {
			out = append(out, strconv.Itoa(row)+".extra."+e.Name+"="+strconv.FormatFloat(e.Value, 'g', -1, 64))
			m.Extra[j].Value = 0
		}
	}
	return out
}
