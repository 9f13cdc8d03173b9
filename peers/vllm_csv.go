package peers

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
)

// looksVLLMSweepCSV reports whether b is the summary.csv `vllm bench
// sweep serve` writes beside its folders (pandas' to_csv of every run's
// result: an unnamed index column, then the result keys): a header line
// naming model_id and a vLLM latency or throughput key.
func looksVLLMSweepCSV(b []byte) bool {
	header, _, _ := bytes.Cut(b, []byte("\n"))
	h := string(header)
	return strings.Contains(h, ",") && strings.Contains(h, "model_id") &&
		(strings.Contains(h, "median_ttft_ms") || strings.Contains(h, "output_throughput")) && !strings.HasPrefix(h, "{")
}

// vllmSweepCSVToJSON turns the rows of a sweep's summary.csv into the
// JSON array of results the sweep's summary.json files hold, so that the
// vLLM reader reads both alike: the index column is dropped; an empty
// cell (pandas' NaN or None) is null; numbers stay numbers ("inf" stays
// the string vLLM writes); True/False are booleans; any other text is a
// string (nested values pandas printed, such as a speculative_config,
// stay text). Each object is written on the line of its row, so cells
// name the CSV's lines.
func vllmSweepCSVToJSON(name string, b []byte) ([]byte, error) {
	r := csv.NewReader(bytes.NewReader(b))
	r.FieldsPerRecord = -1
	header, err := r.Read()
	if err != nil {
		return nil, errorf(name, 1, "CSV header: %v", err)
	}
	var out bytes.Buffer
	out.WriteString("[")
	line, rows := 1, 0
	for {
		rec, err := r.Read()
		if err != nil {
			if err.Error() == "EOF" {
				break
			}
			// Note: FieldPos panics after a failed Read (FuzzParsePeer found
			// it); the error carries its own line.
			l := 0
			var pe *csv.ParseError
			if errors.As(err, &pe) {
				l = pe.StartLine
			}
			return nil, errorf(name, l, "CSV: %v", err)
		}
		l, _ := r.FieldPos(0)
		for ; line < l; line++ {
			out.WriteByte('\n')
		}
		if rows > 0 {
			out.WriteByte(',')
		}
		rows++
		out.WriteByte('{')
		n := 0
		for i, cell := range rec {
			if i >= len(header) || header[i] == "" || i == 0 && isIndexColumn(header[i]) {
				continue
			}
			if n > 0 {
				out.WriteByte(',')
			}
			n++
			out.WriteString(jsonString(header[i]))
			out.WriteByte(':')
			out.WriteString(csvCellJSON(cell))
		}
		out.WriteByte('}')
	}
	out.WriteString("]")
	if rows == 0 {
		return nil, errorf(name, 1, "vllm bench sweep summary.csv with no rows")
	}
	return out.Bytes(), nil
}

// isIndexColumn reports whether a first header cell is pandas' index
// ("" or "Unnamed: 0" once re-saved).
func isIndexColumn(h string) bool {
	return h == "" || strings.HasPrefix(h, "Unnamed:")
}

// csvCellJSON renders one CSV cell as a JSON value.
func csvCellJSON(cell string) string {
	c := strings.TrimSpace(cell)
	switch c {
	case "", "NaN", "nan", "None":
		return "null"
	case "True", "true":
		return "true"
	case "False", "false":
		return "false"
	}
	if v, err := strconv.ParseFloat(c, 64); err == nil && !strings.ContainsAny(c, "xXpP_") {
		if b, err := json.Marshal(v); err == nil {
			return string(b)
		}
	}
	return jsonString(cell)
}
