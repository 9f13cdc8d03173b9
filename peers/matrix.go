package peers

import (
	"math"

	"speedmatrix/schema"
)

// peerMatrix starts the matrix of one peer result file.
func peerMatrix(tool, version string) *schema.Matrix {
	return &schema.Matrix{Run: schema.Run{BenchTool: tool, BenchVersion: version}}
}

// addField appends a metadata pair when the value is not empty.
func addField(r *schema.Run, section, key, value string) {
	if value == "" {
		return
	}
	r.Metadata = append(r.Metadata, schema.Field{Section: section, Key: key, Value: value})
}

// metric appends a named figure to Extra when set.
func metric(m *schema.Measurement, name string, v num) {
	if p := v.ptr(); p != nil {
		m.Extra = append(m.Extra, schema.Metric{Name: name, Value: *p})
	}
}

// i32 converts an optional count to an optional int32 column.
func i32(n num) *int32 {
	p := n.int()
	if p == nil || *p < 0 || *p > math.MaxInt32 {
		return nil
	}
	v := int32(*p)
	return &v
}
