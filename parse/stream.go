package parse

import (
	"fmt"
	"hash/maphash"
	"io"

	"speedmatrix/schema"
)

// streamRows is the number of All measurements rows above which
// ParseAllStream reads a document's measurements in pieces.
var streamRows = 1 << 16 // a variable so tests can stream small documents

// pieceRows is the number of rows of one piece.
var pieceRows = 1 << 13 // a variable so tests can use small pieces

// Rows are the measurements of a document that ParseAllStream read in
// pieces: Each reads them again from the document's table.
//
// Note: a parsed row (its measurement, printed texts and table row) is
// about 1 KB, so a 60 MB document of 540,000 rows held 920 MB once parsed.
// ParseAllStream reads the rows twice instead, a piece at a time: once to
// check them and hash the run id, once (Each) to hand them to the writer.
// Only the table's cells (the document's text) stay between the two.
type Rows struct {
	raw *rawDoc
	id  string
	n   int
}

// Len returns the number of measurements.
func (r *Rows) Len() int { return r.n }

// Each hands the measurements to yield in table order, in pieces of new
// slices that carry the run id and that yield may keep. The rows were
// checked when parsed, so Each fails only when yield does. It lets go of
// the table's cells as it reads them: call it once.
func (r *Rows) Each(yield func([]schema.Measurement) error) error {
	for lo := 0; lo < r.n; lo += pieceRows {
		_, ms, err := readRange(r.raw, lo, min(lo+pieceRows, r.n), true, nil)
		if err != nil {
			return fmt.Errorf("%w (read again after it was checked: please report it)", err)
		}
		if err := admitRows(ms, r.raw.Name); err != nil {
			return fmt.Errorf("%w (read again after it was checked: please report it)", err)
		}
		for i := range ms {
			ms[i].RunID = r.id
		}
		if err := yield(ms); err != nil {
			return err
		}
	}
	return nil
}

// ParseAllStream is ParseAll that reads a document of more than
// streamRows rows in pieces: its one matrix comes without measurements
// (with its run id) and rows reads them (rows is nil otherwise). A
// document with a bad row anywhere is an error here, as in ParseAll.
// see, when not nil, is shown each piece of such a document as it is
// checked (to count its cells before Each).
func ParseAllStream(r io.Reader, name, format string, see func([]schema.Measurement)) (ms []*schema.Matrix, rows *Rows, err error) {
	var rc *Recycler // new memory for every document
	return rc.ParseAllStream(r, name, format, see)
}

// ParseAllStreamBytes is ParseAllStream for a document already read
// whole into b (up to MaxDocumentBytes+1 bytes, so that a larger one is
// an error here as in ParseAllStream). b becomes the parser's: nothing may
// write to it afterwards, since a text document's lines, and so the
// matrix's strings, are pieces of it.
func ParseAllStreamBytes(b []byte, name, format string, see func([]schema.Measurement)) (ms []*schema.Matrix, rows *Rows, err error) {
	var rc *Recycler
	return rc.ParseAllStreamBytes(b, name, format, see)
}

// buildStream is build for a large table: it reads the rows in pieces,
// checks them as build does (the same errors, in the same order) and
// hashes them for the run id, keeping of each row only its key.
func buildStream(raw *rawDoc, see func([]schema.Measurement)) (*schema.Matrix, *Rows, error) {
	m := &schema.Matrix{}
	if err := buildRun(raw, &m.Run); err != nil {
		return nil, nil, err
	}
	if err := admit(m, raw.Name, false); err != nil {
		return nil, nil, err
	}
	n := len(raw.Table.Rows)
	h := schema.NewRunIDHasher(&m.Run)
	c := newRowChecker(raw)
	for lo := 0; lo < n; lo += pieceRows {
		rows, ms, err := readRange(raw, lo, min(lo+pieceRows, n), false, nil)
		if err != nil {
			return nil, nil, err
		}
		if err := c.add(rows, lo); err != nil {
			return nil, nil, err
		}
		if err := admitRows(ms, raw.Name); err != nil {
			return nil, nil, err
		}
		h.Add(ms)
		if see != nil {
			see(ms)
		}
	}
	// As in build: a bad row anywhere comes before a duplicated one.
	if c.dup != nil {
		return nil, nil, c.dup
	}
	if err := checkMatrix(raw, cellMap(c.cells)); err != nil {
		return nil, nil, err
	}
	prefill := make([]*tableRow, 0, len(c.prefill))
	for _, r := range c.prefill {
		prefill = append(prefill, r)
	}
	if err := checkPrefill(raw, prefill, nil); err != nil {
		return nil, nil, err
	}
	if err := checkServe(raw, c.serve); err != nil {
		return nil, nil, err
	}
	return m, &Rows{raw: raw, id: h.Sum(), n: n}, nil
}

// rowChecker keeps what build's checks need of rows read in pieces: the
// key of every row (for duplicates), the first row of each cell the
// decode matrix names, and the prefill row of each context.
//
// Note: a map from the keys themselves was 73 MB for 540,000 rows; one
// from their hashes is a quarter of that. Two keys of one hash are told
// apart by reading the earlier row again (other holds the rarer second).
type rowChecker struct {
	raw     *rawDoc
	seed    maphash.Seed
	index   map[uint64]int32 // row number in the table, by key hash
	other   map[rowKey]int32 // a key whose hash an earlier key had
	wanted  map[tableCell]bool
	cells   map[tableCell]*tableRow
	prefill map[int64]*tableRow
	serve   []*tableRow // serve rows, in table order, when a rate table shows them
	dup     error       // the first duplicated row
}

func newRowChecker(raw *rawDoc) *rowChecker {
	c := &rowChecker{raw: raw, seed: maphash.MakeSeed(), index: make(map[uint64]int32, len(raw.Table.Rows)), other: map[rowKey]int32{},
		wanted: map[tableCell]bool{}, cells: map[tableCell]*tableRow{}, prefill: map[int64]*tableRow{}}
	for _, mc := range raw.Matrix {
		ctx, err1 := contextTokens(mc.Context)
		conc, err2 := parseConcurrency(mc.Concurrency)
		if err1 == nil && err2 == nil { // else checkMatrix reports it
			c.wanted[cellOf(schema.PhaseDecode, ctx, conc)] = true
		}
	}
	return c
}

// add checks rows, the first of which is row lo of the table.
func (c *rowChecker) add(rows []*tableRow, lo int) error {
	for i, r := range rows {
		k := keyOf(r)
		if c.dup == nil {
			if err := c.key(r, k, lo+i); err != nil {
				return err
			}
		}
		if c.wanted[k.tableCell] && c.cells[k.tableCell] == nil {
			c.cells[k.tableCell] = detach(r)
		}
		if r.m.Phase == schema.PhasePrefill {
			if p, ok := c.prefill[r.ctx]; !ok || r.conc == 1 && p.conc != 1 {
				c.prefill[r.ctx] = detach(r)
			}
		}
		if r.m.Phase == schema.PhaseServe && c.raw.Serve.HeaderLine != 0 {
			// Note: the rate table checks every figure of a serve row, so
			// the whole measurement is kept; a rate table shows a sweep's
			// few rows, not a table's thousands.
			d, m := *r, *r.m
			d.m = &m
			c.serve = append(c.serve, &d)
		}
	}
	return nil
}

// key records the key k of row r, row number at of the table, and sets
// c.dup when an earlier row has it.
func (c *rowChecker) key(r *tableRow, k rowKey, at int) error {
	h := keyHash(c.seed, k)
	pi, ok := c.index[h]
	if !ok {
		c.index[h] = int32(at)
		return nil
	}
	prev, _, err := readRange(c.raw, int(pi), int(pi)+1, false, nil)
	if err != nil {
		return err
	}
	if keyOf(prev[0]) != k {
		// Another key of the same hash.
		if pi, ok = c.other[k]; !ok {
			c.other[k] = int32(at)
			return nil
		}
		if prev, _, err = readRange(c.raw, int(pi), int(pi)+1, false, nil); err != nil {
			return err
		}
	}
	c.dup = duplicated(c.raw, r, prev[0])
	return nil
}

// keyHash hashes a row's key for rowChecker (a variable so tests can
// make every key collide).
var keyHash = maphash.Comparable[rowKey]

// detach copies of r what the agreement checks and messages read (not
// its piece's measurements, which it would keep alive).
func detach(r *tableRow) *tableRow {
	d := *r
	m := schema.Measurement{Phase: r.m.Phase, ContextLabel: r.m.ContextLabel, Status: r.m.Status, SourceLine: r.m.SourceLine}
	if r.m.RequestRate != nil {
		v := *r.m.RequestRate
		m.RequestRate = &v
	}
	if r.m.Repeat != nil {
		v := *r.m.Repeat
		m.Repeat = &v
	}
	// The agreed columns' texts, which text reads from the measurement.
	for i, at := range r.printedAt {
		if at != 0 {
			m.Printed = append(m.Printed, r.m.Printed[at-1])
			d.printedAt[i] = uint16(len(m.Printed))
		}
	}
	d.m = &m
	return &d
}
