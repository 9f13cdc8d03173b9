package parse

import (
	"fmt"
	"speedmatrix/peers"
	"speedmatrix/schema"
	"strings"
)

// buildRows reads the All measurements table: columns by header text,
// one measurement per row, every cell kept as printed.
func buildRows(raw *rawDoc) ([]*tableRow, error) {
	rows, _, err := readRows(raw, nil)
	return rows, err
}

// slab hands out pointers to values from chunks allocated together: a
// matrix's figures are all kept or all dropped, and one allocation per
// figure was a tenth of a document's allocations.
type slab[T any] struct{ buf []T }

// ptr returns a pointer to a new value v.
func (s *slab[T]) ptr(v T) *T {
	if len(s.buf) == cap(s.buf) {
		// A new chunk; pointers into the old one keep it alive.
		s.buf = make([]T, 0, max(16, 2*cap(s.buf)))
	}
	s.buf = append(s.buf, v)
	return &s.buf[len(s.buf)-1]
}

// lastFigure is the last figure read in a column of the All
// measurements table, normalized to the column's unit.
//
// Note: it keeps a rowFigure, not the quantity: without the unit (which
// nothing reads after the conversion) storing one writes one pointer, and
// copying it was a sixth of readRange's time (0.16 of 1.08 s in a profile
// of Ingest1000/command).
type lastFigure struct {
	text string
	f    rowFigure
	read bool
}

// readRows is buildRows that also returns the measurements the rows
// point into, in table order (the matrix's measurements). The rows are
// sc's (see scratch).
func readRows(raw *rawDoc, sc *scratch) ([]*tableRow, []schema.Measurement, error) {
	return readRange(raw, 0, len(raw.Table.Rows), true, sc)
}

// readRange reads rows [lo, hi) of the All measurements table into new
// measurements; drop lets go of the cells of the rows read. The rows are
// in sc's memory, or new for a nil sc; the measurements are in sc's
// slabs when it has them (a Recycler's), new otherwise.
func readRange(raw *rawDoc, lo, hi int, drop bool, sc *scratch) ([]*tableRow, []schema.Measurement, error) {
	t := raw.Table
	cols, typed, at := tableColumns(t.Header)
	for _, need := range []column{colPhase, colContext} {
		if at[need] == 0 {
			return nil, nil, errorf(raw.Name, t.HeaderLine, "All measurements table has no %s column (header: %s)", columnNames[need], strings.Join(t.Header, " | "))
		}
	}
	if len(t.Rows) == 0 {
		return nil, nil, errorf(raw.Name, t.HeaderLine, "All measurements table has no rows")
	}
	n, w := hi-lo, len(t.Header)
	rows := sc.rowPtrs(n)
	backing := sc.tableRows(n)
	measurements, printed, floats, ints, int32s := sc.rowSlabs().slabs(n, w)
	// Note: the cells of a row split from its text go to a buffer on the
	// stack (for rows of up to 32 cells): filling a heap buffer with
	// strings cost a write barrier per cell while the collector ran.
	var stack [32]string
	buf := stack[:0]
	// The last phase and status read, and their texts: a table prints
	// the same few over and over, row after row.
	var lastPhase, lastStatus string
	var phase schema.Phase
	var status schema.Status
	var figs [numColumns]lastFigure
	// Where each row's texts of the agreed columns are in its Printed
	// (a header of more than 65,535 columns has no row that fits a line).
	var printedAt [numAgreed]uint16
	for c := colTotal; c <= colTTFT; c++ {
		printedAt[c-colTotal] = uint16(at[c])
	}
	for ri := range t.Rows[lo:hi] {
		tr := &t.Rows[lo+ri]
		cells := tr.cells(buf)
		if tr.Cells == nil && cap(cells) > cap(buf) {
			buf = cells
		}
		if len(cells) != len(t.Header) {
			return nil, nil, errorf(raw.Name, tr.Line, "row has %d cells, the All measurements header at line %d has %d (truncated or misaligned row)", len(cells), t.HeaderLine, len(t.Header))
		}
		r := &backing[ri]
		r.m, r.line, r.printedAt = &measurements[ri], tr.Line, printedAt
		r.m.SourceLine, r.m.Status = int64(tr.Line), schema.StatusValid
		for c := range r.q {
			r.q[c].Null = true // a column the table does not have
		}
		ms := r.m
		ms.Printed = printed[ri*w : (ri+1)*w : (ri+1)*w]
		// Typed columns are set after the row's base columns, so that
		// context_tokens overrides the label's nominal tokens.
		var late []int
		// Note: the row's slices cut to its cells' length, so that the
		// loop indexes them without a bounds check per cell: readRange
		// 38.0M → 34.4M instructions for 200 parses of each of two seeds
		// (GOGC=off valgrind --tool=cachegrind --cache-sim=no parse.test
		// -test.run XXX -test.bench '^BenchmarkParseText$' -test.benchtime
		// 200x -test.cpu 1).
		header, rowCols, rowTyped, rowPrinted := t.Header[:len(cells)], cols[:len(cells)], typed[:len(cells)], ms.Printed[:len(cells)]
		for i, text := range cells {
			h := header[i]
			rowPrinted[i] = schema.KV{Key: h, Value: text}
			c := rowCols[i]
			fail := func(format string, args ...any) error {
				return errorf(raw.Name, tr.Line, "column %q: %s", h, fmt.Sprintf(format, args...))
			}
			if rowTyped[i] != nil {
				late = append(late, i)
				continue
			}
			switch c {
			case colPhase:
				if text != lastPhase || phase == "" {
					p, ok := parsePhase(text)
					if !ok {
						return nil, nil, fail("unknown phase %q (want Prefill, Sustained decode or Serve)", text)
					}
					lastPhase, phase = text, p
				}
				ms.Phase = phase
			case colContext:
				if ms.Phase == schema.PhaseServe && trimSpace(text) == peers.UnknownContext {
					// Another tool's result that records no prompt length.
					ms.ContextLabel = peers.UnknownContext
					continue
				}
				n, err := contextTokens(text)
				if err != nil {
					return nil, nil, fail("%v", err)
				}
				ms.ContextLabel, ms.ContextTokens, r.ctx = trimSpace(text), ints.ptr(n), n
			case colConcurrency:
				if isNullText(trimSpace(text)) {
					continue
				}
				n, err := parseConcurrency(text)
				if err != nil {
					return nil, nil, fail("%v", err)
				}
				ms.Concurrency, r.conc = int32s.ptr(n), n
			case colStatus:
				if text != lastStatus || status == "" {
					s, ok := parseStatus(text)
					if !ok {
						return nil, nil, fail("unknown status %q (want Valid, Looped, Over capacity, Skipped or Error)", text)
					}
					lastStatus, status = text, s
				}
				ms.Status = status
			case colUnknown:
				if v, ok := infinity(trimSpace(text)); ok {
					ms.Extra = append(ms.Extra, schema.Metric{Name: metricName(h, ""), Value: v})
					continue
				}
				q, err := parseQuantity(text)
				if err == nil && !q.Null {
					ms.Extra = append(ms.Extra, schema.Metric{Name: metricName(h, q.Unit), Value: q.Value})
				}
			default:
				// A column repeats its figures ("30.0 s", "—"): the last
				// one read is kept with its text.
				last := &figs[c]
				if text != last.text || !last.read {
					t := trimSpace(text)
					v, step, unit, null, bad := scanFigure(t, true)
					if bad != qOK {
						return nil, nil, fail("%v", bad.err(t))
					}
					scale, cbad := unitScale(unit, v, columnKinds[c])
					if cbad != convOK {
						_, err := quantity{Value: v, Unit: unit, Step: step, Null: null}.convert(columnKinds[c])
						return nil, nil, fail("%v", err)
					}
					last.text, last.f, last.read = text, rowFigure{Value: v * scale, Step: step * scale, Null: null}, true
				}
				q := last.f
				if agreed(c) {
					r.q[c-colTotal] = q
				}
				if q.Null {
					continue
				}
				switch c {
				case colTotal:
					ms.TotalTokS = floats.ptr(q.Value)
				case colPerRequest:
					ms.PerRequestTokS = floats.ptr(q.Value)
				case colTTFT:
					ms.TTFTMs = floats.ptr(q.Value)
				case colTBT:
					ms.TBTMs = floats.ptr(q.Value)
				case colAvgActive:
					ms.AvgActiveRequests = floats.ptr(q.Value)
				case colCompleted:
					ms.CompletedRequests = ints.ptr(int64(q.Value))
				case colOutput:
					ms.OutputTokens = ints.ptr(int64(q.Value))
				case colMeasured:
					ms.MeasuredS = floats.ptr(q.Value)
				}
			}
		}
		for _, i := range late {
			if err := typed[i].set(ms, cells[i]); err != nil {
				return nil, nil, errorf(raw.Name, tr.Line, "column %q: %v", t.Header[i], err)
			}
		}
		if ms.Phase == schema.PhaseDecode && ms.Concurrency == nil {
			return nil, nil, errorf(raw.Name, tr.Line, "decode row without a number of simultaneous requests")
		}
		if ms.Status == schema.StatusValid && r.fig(colTotal).Null && at[colTotal] != 0 {
			return nil, nil, errorf(raw.Name, tr.Line, "%s: status Valid but no %s", cellName(ms.Phase, ms.ContextLabel, r.conc), t.Header[at[colTotal]-1])
		}
		rows = append(rows, r)
		// Note: the row's cells are read (their texts live on in the
		// measurement); dropping them lets the collector take them while
		// the rest of a large table is read (200 bytes a row).
		if drop {
			tr.Cells = nil
		}
	}
	return rows, measurements, nil
}

// metricName turns an extra column's header into a column-style name:
// snake_case with a unit suffix ("p99 TTFT" printed in ms is p99_ttft_ms).
func metricName(header, unit string) string {
	var b strings.Builder
	us := true
	for _, r := range strings.ToLower(header) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			b.WriteRune(r)
			us = false
		} else if !us {
			b.WriteByte('_')
			us = true
		}
	}
	name := strings.Trim(b.String(), "_")
	if name == "" {
		name = "extra"
	}
	suffix := map[string]string{"ms": "_ms", "s": "_s", "us": "_us", "min": "_min", "tok/s": "_tok_s", "tokens": "_tokens", "GB": "_gb", "%": "_pct"}[unit]
	if suffix != "" && !strings.HasSuffix(name, suffix) {
		name += suffix
	}
	return name
}
