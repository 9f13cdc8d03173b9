package schema

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"time"
)

// RunIDLen is the number of hex digits in a run id.
const RunIDLen = 16

// ComputeRunID returns the stable id of a matrix: the first RunIDLen hex
// digits of the SHA-256 of its content. Content means the run's metadata
// and measurements as normalized values; it leaves out where and when the
// document was read (source path, hash, format, ingest time), the run id
// itself, the subtitle (a summary of the rest), source line numbers and
// printed text. So the text, HTML and
// Markdown forms of one document share one id, and re-ingesting any of
// them is a duplicate. Samples (per-request records) are left out too: a
// document prints the measurements, not the requests behind them, and a
// measuring run's archived rows and its document must share one id.
//
// Note: the hash is over a JSON encoding of the normalized structs, so
// adding a field that is empty for old documents (omitempty) keeps old ids.
func ComputeRunID(m *Matrix) string {
	r := m.Run
	r.RunID, r.SourcePath, r.SourceSHA256, r.SourceFormat = "", "", "", ""
	r.IngestedAt = time.Time{}
	r.SchemaVersion = 0
	// The subtitle only summarizes the rest ("vllm · 0.30.1 · INT4 · 5
	// contexts …") and documents glue or separate its parts differently.
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
		// Only NaN/Inf floats make Marshal fail, and clearNonFinite moved
		// those of measurements aside; any left are a programming error.
		panic("schema: run id: " + err.Error())
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])[:RunIDLen]
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
		out = append(out, fmt.Sprintf("%d.%s=%v", row, t.Field(i).Name, *p))
		f.Set(reflect.Zero(f.Type()))
	}
	for j, e := range m.Extra {
		if math.IsInf(e.Value, 0) || math.IsNaN(e.Value) {
			out = append(out, fmt.Sprintf("%d.extra.%s=%v", row, e.Name, e.Value))
			m.Extra[j].Value = 0
		}
	}
	return out
}
