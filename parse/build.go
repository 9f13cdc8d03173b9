package parse

import (
	"fmt"
	"math"
	"speedmatrix/schema"
	"strconv"
)

// tableRow is one parsed row of the All measurements table with what the
// agreement checks need: its line, its figures and their printed text.
type tableRow struct {
	m    *schema.Measurement
	line int
	// q holds the figures summary cells are checked against (agreed
	// columns only), read with fig; printedAt the index + 1 in m.Printed
	// of their texts (0: the table has no such column), read with text.
	//
	// Note: all columns made a row 730 bytes, more than its measurement;
	// a 60 MB table has 540,000 rows. The texts themselves (three strings
	// stored per row, with a write barrier each while the collector runs)
	// are already in m.Printed.
	q         [numAgreed]rowFigure
	printedAt [numAgreed]uint16
	ctx       int64
	conc      int32 // 0 when not printed
}

// numAgreed is the number of agreed columns: colTotal, colPerRequest
// and colTTFT, the figures of matrix cells and prefill cards.
const numAgreed = colTTFT - colTotal + 1

// agreed reports whether the figures of column c are kept in a tableRow.
func agreed(c column) bool { return c >= colTotal && c <= colTTFT }

// rowFigure is a figure of an agreed column, normalized to the column's
// unit: what the agreement checks compare (agrees and sameValue read no
// unit).
//
// Note: without the unit's string it holds no pointer, so the rows of a
// table are not scanned for it and storing it needs no write barrier.
type rowFigure struct {
	Value, Step float64
	Null        bool
}

// fig returns the row's figure in agreed column c.
func (r *tableRow) fig(c column) quantity {
	f := r.q[c-colTotal]
	return quantity{Value: f.Value, Step: f.Step, Null: f.Null}
}

// text returns the row's printed text in agreed column c.
func (r *tableRow) text(c column) string {
	if at := r.printedAt[c-colTotal]; at != 0 {
		return r.m.Printed[at-1].Value
	}
	return ""
}

// cellName names a cell in messages: "decode 8K×128", "prefill 8K".
func cellName(phase schema.Phase, label string, conc int32) string {
	switch {
	case phase == schema.PhasePrefill:
		return "prefill " + label
	case phase == schema.PhaseServe && conc == 0:
		return "serve " + label
	}
	return string(phase) + " " + label + "×" + strconv.FormatInt(int64(conc), 10)
}

// rowName names a row in messages: its cell, then its repeat and request
// rate when it has them ("decode 8K×128 repeat 2", "serve 1K at 4 req/s").
func rowName(r *tableRow) string {
	s := cellName(r.m.Phase, r.m.ContextLabel, r.conc)
	if r.m.Phase == schema.PhaseServe && r.m.RequestRate != nil {
		s += " at " + strconv.FormatFloat(*r.m.RequestRate, 'g', -1, 64) + " req/s"
	}
	if r.m.Repeat != nil {
		s += " repeat " + strconv.FormatInt(int64(*r.m.Repeat), 10)
	}
	return s
}

// tableCell is a cell of the matrix: what a decode-matrix cell or a prefill
// figure refers to (cellOf).
//
// Note: tableCell and rowKey are numbers without padding, so a map hashes
// a key's memory in one call: with the phase's string and the fields'
// padding, the lookups and inserts of build's maps (a row's key and cell,
// per row) were 0.16 of 8.3 s in a profile of Ingest1000/command, 0.05
// after.
type tableCell struct {
	ctx   int64
	conc  int32
	phase int32 // phaseKey
}

// cellOf returns the cell of a phase, context and concurrency.
func cellOf(phase schema.Phase, ctx int64, conc int32) tableCell {
	return tableCell{ctx: ctx, conc: conc, phase: phaseKey(phase)}
}

// phaseKey numbers a phase for tableCell. A row's phase is one of the
// three parsePhase returns (TestPhaseKey); another would be 0.
func phaseKey(p schema.Phase) int32 {
	switch p {
	case schema.PhasePrefill:
		return 1
	case schema.PhaseDecode:
		return 2
	case schema.PhaseServe:
		return 3
	}
	return 0
}

// rowKey identifies a row of the All measurements table: its cell, its
// repeat (-1 when it has none) and, for serve rows, its request rate (a
// rate sweep has no concurrency).
type rowKey struct {
	tableCell
	repeat  int64
	rate    uint64 // math.Float64bits of the rate
	hasRate uint64 // 1 when the row has a rate
}

func keyOf(r *tableRow) rowKey {
	k := rowKey{tableCell: cellOf(r.m.Phase, r.ctx, r.conc), repeat: -1}
	if r.m.Repeat != nil {
		k.repeat = int64(*r.m.Repeat)
	}
	if r.m.Phase == schema.PhaseServe && r.m.RequestRate != nil {
		k.rate, k.hasRate = math.Float64bits(*r.m.RequestRate), 1
	}
	return k
}

// build turns a rawDoc into a matrix: the run's metadata, one measurement
// per row of the All measurements table, and the checks that the decode
// matrix and the prefill figures agree with that table.
// The rows and indexes it checks are in sc's memory (see scratch).
func build(raw *rawDoc, sc *scratch) (*schema.Matrix, error) {
	m := &schema.Matrix{}
	if err := buildRun(raw, &m.Run); err != nil {
		return nil, err
	}
	if raw.Table.HeaderLine == 0 {
		return nil, errorf(raw.Name, lastLine(raw), "no All measurements table by the end of the document (a table whose header names Phase, Context, Requests at once, Status, …): not a complete speed-test document")
	}
	rows, measurements, err := readRows(raw, sc)
	if err != nil {
		return nil, err
	}
	index := sc.keyIndex(len(rows))
	// cells maps a cell to its first row: the one a summary figure shows
	// when the cell was measured more than once.
	cells := sc.cellIndex(len(rows))
	for _, r := range rows {
		k := keyOf(r)
		at := index.at(k)
		if *at != nil {
			return nil, duplicated(raw, r, *at)
		}
		*at = r
		if at := cells.at(k.tableCell); *at == nil {
			*at = r
		}
	}
	// Every row is a measurement, in table order (a duplicated row is an
	// error above).
	m.Measurements = measurements
	if err := checkMatrix(raw, cells); err != nil {
		return nil, err
	}
	if err := checkPrefill(raw, rows, sc); err != nil {
		return nil, err
	}
	if err := checkServe(raw, rows); err != nil {
		return nil, err
	}
	return m, nil
}

// duplicated is the error of row r, whose key row prev has already.
func duplicated(raw *rawDoc, r, prev *tableRow) error {
	what := "repeats"
	for i, kv := range r.m.Printed {
		switch columnOf(kv.Key) {
		case colPhase, colContext, colConcurrency:
			continue // equal once normalized ("Decode" and "Sustained decode")
		}
		if i < len(prev.m.Printed) && kv.Value != prev.m.Printed[i].Value {
			what = fmt.Sprintf("contradicts (%s %q vs %q)", kv.Key, kv.Value, prev.m.Printed[i].Value)
			break
		}
	}
	return errorf(raw.Name, r.line, "%s: duplicated row: line %d %s line %d", rowName(r), r.line, what, prev.line)
}

// lastLine is the last line the document is known to have, for errors
// about something missing (1 when nothing was recognized at all).
func lastLine(raw *rawDoc) int {
	n := max(1, raw.TitleLine, raw.SubtitleLine, raw.LaunchLine, raw.MatrixLine, raw.Table.HeaderLine)
	for _, f := range raw.Fields {
		n = max(n, f.Line)
	}
	for _, p := range raw.Prefill {
		n = max(n, p.Line)
	}
	for _, c := range raw.Matrix {
		n = max(n, c.Line)
	}
	return n
}
