package parse

import (
	"math/rand/v2"
	"strings"
)

// randomText joins fewer than max random pieces: the strings on which
// the differential tests compare a fast path with the code it bypasses.
func randomText(r *rand.Rand, pieces []string, max int) string {
	var b strings.Builder
	for n := r.IntN(max); n > 0; n-- {
		b.WriteString(pieces[r.IntN(len(pieces))])
	}
	return b.String()
}

// miniRow builds the one-cell document of miniDoc and returns its matrix
// cell and table row; false when the document does not read.
func miniRow(cell, tok, ttft string) (rawCell, *tableRow, bool) {
	raw, err := extractText([]byte(miniDoc(cell, "Valid", tok, ttft)), "mini.txt")
	if err != nil {
		return rawCell{}, nil, false
	}
	raw.Name = "mini.txt"
	rows, err := buildRows(raw)
	if err != nil || len(raw.Matrix) != 1 || len(rows) != 1 {
		return rawCell{}, nil, false
	}
	return raw.Matrix[0], rows[0], true
}
