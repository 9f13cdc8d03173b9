package parse

import (
	"speedmatrix/schema"
	"strings"
)

// figure is one summary figure (a matrix cell or a prefill card) to check
// against its All measurements row.
type figure struct {
	what   string // "decode 8K×128"; "" to name the cell by phase, label and conc
	source string // "matrix" or "prefill figure"
	line   int
	tok    string // separate tok/s text, or "" with glued set
	ttft   string
	glued  string
	// The cell, named only when a message needs it (see name).
	phase schema.Phase
	label string
	conc  int32
}

// name names the figure's cell in messages: what, else its cellName.
func (f *figure) name() string {
	if f.what != "" {
		return f.what
	}
	return cellName(f.phase, f.label, f.conc)
}

// agree checks one summary figure against its row: the status, then the
// tok/s (in metric) and the TTFT, picking the split of a glued cell that
// agrees with the row. It returns the reading it chose (nil for a status
// or empty cell).
func agree(name string, f figure, r *tableRow, metric column) (*cellReading, error) {
	c, ok, err := agreeReading(name, f, r, metric)
	if !ok {
		return nil, err
	}
	return &c, nil
}

// agreeReading is agree returning the reading it chose by value, and
// false with it when there is none (a status or empty cell, an error):
// its callers discard the reading, and its readings stay on the stack.
func agreeReading(name string, f figure, r *tableRow, metric column) (cellReading, bool, error) {
	text := f.glued
	if f.tok != "" || f.ttft != "" {
		text = ""
	}
	if text != "" {
		if st, ok := parseStatus(text); ok {
			if st != r.m.Status {
				return cellReading{}, false, errorf(name, f.line, "%s: %s says %s, All measurements line %d says %s", f.name(), f.source, trimSpace(text), r.line, r.m.Status.Label())
			}
			return cellReading{}, false, nil
		}
		if nullTexts[trimSpace(text)] {
			if r.m.Status == schema.StatusValid && !r.fig(metric).Null {
				return cellReading{}, false, errorf(name, f.line, "%s: %s has no figure, All measurements line %d says %s", f.name(), f.source, r.line, r.text(metric))
			}
			return cellReading{}, false, nil
		}
	}
	// Most cells have a few readings: the buffers keep them off the heap.
	var splitBuf [8]split
	var readingBuf [8]cellReading
	rs := readingBuf[:0]
	if text != "" {
		rs = appendReadings(rs, appendSplits(splitBuf[:0], text))
	} else {
		splitBuf[0] = split{f.tok, f.ttft}
		rs = appendReadings(rs, splitBuf[:1])
	}
	// shown is the cell as error messages quote it.
	shown := func() string {
		s := text
		if s == "" {
			s = strings.TrimSpace(f.tok + " " + f.ttft)
		}
		if len(s) > 80 {
			s = strings.ToValidUTF8(s[:77], "") + "..."
		}
		return s
	}
	if len(rs) == 0 {
		return cellReading{}, false, errorf(name, f.line, "%s: %s cell %q is not a tok/s figure followed by a TTFT", f.name(), f.source, shown())
	}
	if r.m.Status != schema.StatusValid {
		return cellReading{}, false, errorf(name, f.line, "%s: %s says %q, All measurements line %d says %s", f.name(), f.source, shown(), r.line, r.m.Status.Label())
	}
	rowTok, rowTTFT := r.fig(metric), r.fig(colTTFT)
	// A table without a TTFT column cannot contradict a cell's TTFT.
	ttftOK := func(c cellReading) bool {
		return c.ttft.Null || rowTTFT.Null && r.text(colTTFT) == "" || agrees(c.ttft, rowTTFT)
	}
	// Exact agreement first, then agreement at the printed precision.
	for i, c := range rs {
		if sameValue(c.tok, rowTok) && (c.ttft.Null || sameValue(c.ttft, rowTTFT)) {
			return rs[i], true, nil
		}
	}
	var matchBuf [8]cellReading
	match := matchBuf[:0]
	for _, c := range rs {
		if agrees(c.tok, rowTok) && ttftOK(c) {
			match = append(match, c)
		}
	}
	if len(match) == 1 {
		return match[0], true, nil
	}
	if len(match) > 1 {
		return cellReading{}, false, errorf(name, f.line, "%s: %s cell %q can be read as %s tok/s or %s tok/s, both agreeing with All measurements line %d", f.name(), f.source, shown(), match[0].tokText, match[1].tokText, r.line)
	}
	// Explain the disagreement with the reading closest to the row.
	for _, c := range rs {
		if ttftOK(c) {
			return cellReading{}, false, errorf(name, f.line, "%s: %s says %s tok/s, All measurements line %d says %s", f.name(), f.source, c.tokText, r.line, r.text(metric))
		}
	}
	for _, c := range rs {
		if agrees(c.tok, rowTok) {
			return cellReading{}, false, errorf(name, f.line, "%s: %s says TTFT %s, All measurements line %d says %s", f.name(), f.source, c.ttftText, r.line, r.text(colTTFT))
		}
	}
	return cellReading{}, false, errorf(name, f.line, "%s: %s cell %q agrees with neither the tok/s (%s) nor the TTFT (%s) of All measurements line %d", f.name(), f.source, shown(), r.text(metric), r.text(colTTFT), r.line)
}

// agreesExactly reports whether a glued summary cell has a reading equal
// to its valid row's figures. agreeReading then finds no fault (it returns
// the first such reading), so checkMatrix and checkPrefill, which keep no
// reading, skip it.
//
// Note: the split after the row's printed tok/s text (where the document
// glued the two figures) is tried first, so such a cell costs one split
// and one reading, not one per digit of the cell; every split is tried
// before it answers false, and agreeReading decides then.
func agreesExactly(f figure, r *tableRow, metric column) bool {
	text := f.glued
	if text == "" || f.tok != "" || f.ttft != "" || r.m.Status != schema.StatusValid {
		return false
	}
	if _, ok := parseStatus(text); ok || isNullText(trimSpace(text)) {
		return false
	}
	return gluedAsRow(text, r, metric) || agreesBySplits(text, r, metric)
}

// agreesBySplits is agreesExactly for a glued cell of a valid row, by
// trying its splits.
func agreesBySplits(text string, r *tableRow, metric column) bool {
	rowTok, rowTTFT := r.fig(metric), r.fig(colTTFT)
	found := false
	eachSplit(text, len(trimSpace(r.text(metric))), func(sp split) bool {
		var buf [1]cellReading
		rs := appendReadings(buf[:0], []split{sp})
		found = len(rs) == 1 && sameValue(rs[0].tok, rowTok) && (rs[0].ttft.Null || sameValue(rs[0].ttft, rowTTFT))
		return !found
	})
	return found
}

// checkMatrix checks every decode matrix cell against its table row.
func checkMatrix(raw *rawDoc, index cellRows) error {
	metric := colTotal
	if c := headerKey(raw.MatrixCaption); strings.Contains(c, "perrequest") || strings.Contains(c, "peruser") {
		metric = colPerRequest
	}
	// A matrix row's cells share its context label: read once a row.
	var lastContext string
	var ctx int64
	for i, c := range raw.Matrix {
		if c.Context != lastContext || i == 0 {
			n, err := contextTokens(c.Context)
			if err != nil {
				return errorf(raw.Name, c.Line, "decode matrix: %v", err)
			}
			lastContext, ctx = c.Context, n
		}
		conc, err := parseConcurrency(c.Concurrency)
		if err != nil {
			return errorf(raw.Name, c.Line, "decode matrix: column %v", err)
		}
		label := trimSpace(c.Context)
		r := index.firstRow(cellOf(schema.PhaseDecode, ctx, conc))
		if r == nil {
			if nullTexts[trimSpace(c.Glued+c.TokS+c.TTFT)] {
				continue // an empty or "—" cell claims nothing
			}
			return errorf(raw.Name, c.Line, "%s: the matrix has a cell but All measurements (line %d) has no such row", cellName(schema.PhaseDecode, label, conc), raw.Table.HeaderLine)
		}
		f := figure{source: "matrix", line: c.Line, tok: c.TokS, ttft: c.TTFT, glued: c.Glued, phase: schema.PhaseDecode, label: label, conc: conc}
		if agreesExactly(f, r, metric) {
			continue
		}
		if _, _, err := agreeReading(raw.Name, f, r, metric); err != nil {
			return err
		}
	}
	return nil
}

// checkPrefill checks every prefill figure against its table row.
func checkPrefill(raw *rawDoc, rows []*tableRow, sc *scratch) error {
	if len(raw.Prefill) == 0 {
		return nil
	}
	// The prefill row of each context: the one at concurrency 1 when there
	// are several, else the first.
	n := 0
	for _, x := range rows {
		if x.m.Phase == schema.PhasePrefill {
			n++
		}
	}
	byCtx := sc.ctxIndex(n) // room for every context of them
	for _, x := range rows {
		if x.m.Phase != schema.PhasePrefill {
			continue
		}
		if at := byCtx.at(ctxKey(x.ctx)); *at == nil || x.conc == 1 && (*at).conc != 1 {
			*at = x
		}
	}
	for _, p := range raw.Prefill {
		ctx, err := contextTokens(p.Context)
		if err != nil {
			return errorf(raw.Name, p.Line, "prefill: %v", err)
		}
		label := trimSpace(p.Context)
		r := byCtx.get(ctxKey(ctx))
		if r == nil {
			return errorf(raw.Name, p.Line, "%s: a prefill figure but All measurements (line %d) has no Prefill row at that context", cellName(schema.PhasePrefill, label, 0), raw.Table.HeaderLine)
		}
		f := figure{source: "prefill figure", line: p.Line, tok: p.TokS, ttft: p.TTFT, glued: p.Glued, phase: schema.PhasePrefill, label: label}
		if agreesExactly(f, r, colTotal) || agreesWithRepeat(f, rows, ctx) {
			continue
		}
		if _, _, err := agreeReading(raw.Name, f, r, colTotal); err != nil {
			return err
		}
	}
	return nil
}

// agreesWithRepeat reports whether a prefill figure agrees exactly with
// any prefill row of its context: a run with repeats (llama-bench's -r,
// a vLLM sweep's run_number) has a row each, and its document prints a
// figure for each.
func agreesWithRepeat(f figure, rows []*tableRow, ctx int64) bool {
	for _, x := range rows {
		if x.m.Phase == schema.PhasePrefill && x.ctx == ctx && agreesExactly(f, x, colTotal) {
			return true
		}
	}
	return false
}

// gluedAsRow reports whether a glued cell is the row's tok/s and TTFT
// texts printed together, as the seeds print every cell ("325.2" and
// "41 ms" as "325.241 ms TTFT"), with a plain tok/s figure (digits,
// commas, a point, maybe a K) and a TTFT in ms. Such a cell agrees
// exactly: eachSplit's split after the tok/s text comes first and gives
// back the row's two texts, read as the row read them.
//
// Note: a shortcut, not a second reader: agreesBySplits answers every
// cell it does not recognize, and TestGluedAsRowAgrees checks that it
// answers true wherever this does.
func gluedAsRow(text string, r *tableRow, metric column) bool {
	tok, ttft := r.text(metric), r.text(colTTFT)
	num, ok := strings.CutSuffix(ttft, " ms")
	if !ok || !plainFigure(tok, true) || !plainFigure(num, false) || len(tok)+len(num) > maxGlued {
		return false
	}
	return len(text) == len(tok)+len(ttft)+len(" TTFT") && text[:len(tok)] == tok &&
		text[len(tok):len(tok)+len(ttft)] == ttft && strings.HasSuffix(text, " TTFT")
}

// plainFigure reports whether s is digits, commas and points starting
// with a digit, and with k maybe a final K.
func plainFigure(s string, k bool) bool {
	if k && len(s) > 1 && s[len(s)-1] == 'K' {
		s = s[:len(s)-1]
	}
	if s == "" || s[0] < '0' || s[0] > '9' {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; (c < '0' || c > '9') && c != ',' && c != '.' {
			return false
		}
	}
	return true
}
