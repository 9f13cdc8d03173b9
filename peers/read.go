package peers

import (
	"bytes"
	"encoding/json"
	"errors"
	"slices"

	"speedmatrix/internal/source"
	"speedmatrix/schema"
)

// Read parses a result file of another tool; format is one of
// Formats, or "" to detect it. It reports ok=false when b is not such
// a file (not JSON, JSON Lines or a CSV or YAML of a tool it reads), so
// the caller can try the document formats. The runs come stamped with
// their source (path, hash, format) and their ids, as parse's documents
// do.
func Read(b []byte, name, format string) (ms []*schema.Matrix, ok bool, err error) {
	if format == "" {
		f, err := Detect(b)
		if err != nil {
			var se *json.SyntaxError
			var te *json.UnmarshalTypeError
			if errors.As(err, &se) || errors.As(err, &te) {
				// Offsets count from the first non-blank byte.
				lead := len(b) - len(bytes.TrimLeft(b, "\ufeff \t\r\n"))
				return nil, true, jsonError(name, b[lead:], lineAt(b, int64(lead)), err)
			}
			return nil, true, errorf(name, 1, "%v", err)
		}
		if f == "" {
			return nil, false, nil
		}
		format = f
	}
	r := readerOf(format)
	if r == nil {
		return nil, false, nil
	}
	ms, err = r.parse(b, name)
	if err != nil {
		return nil, true, err
	}
	for _, m := range ms {
		if m.Run.SourceFormat == "" {
			m.Run.SourceFormat = format
		}
		alignExtras(m.Measurements)
		source.Finish(m, b, name, m.Run.SourceFormat)
	}
	return ms, true, nil
}

// alignExtras orders every row's extra figures by the order in which the
// rows first name them, which is the order a rendered document's columns
// take: rows whose extras differ (an llm_decode_bench cell with a
// hardware summary beside one without) then read back from the document
// as they were.
func alignExtras(rows []schema.Measurement) {
	rank := map[string]int{}
	for _, r := range rows {
		for _, e := range r.Extra {
			if _, ok := rank[e.Name]; !ok {
				rank[e.Name] = len(rank)
			}
		}
	}
	for i := range rows {
		slices.SortStableFunc(rows[i].Extra, func(a, b schema.Metric) int { return rank[a.Name] - rank[b.Name] })
	}
}
