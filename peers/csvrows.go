package peers

import (
	"bytes"
	"encoding/csv"
	"errors"
	"io"
	"strings"
)

// csvRows reads a CSV result file: its header (a byte-order mark and
// blanks trimmed from the first name), then each record with the header
// and the line it starts on, handed to row in order. A record the CSV reader refuses is
// an error at its line; row's error stops the walk and is returned.
// Records may have any number of fields: row checks them.
func csvRows(b []byte, name string, row func(header []string, line int, rec []string) error) error {
	r := csv.NewReader(bytes.NewReader(b))
	r.FieldsPerRecord = -1
	header, err := r.Read()
	if err != nil {
		return errorf(name, 1, "CSV: %v", err)
	}
	header[0] = strings.TrimPrefix(strings.TrimSpace(header[0]), "\ufeff")
	for {
		rec, err := r.Read()
		if err == io.EOF {
			return nil
		}
		line, _ := r.FieldPos(0)
		if err != nil {
			var pe *csv.ParseError
			if errors.As(err, &pe) {
				line = pe.Line
			}
			return errorf(name, max(line, 1), "CSV: %v", err)
		}
		if err := row(header, line, rec); err != nil {
			return err
		}
	}
}
