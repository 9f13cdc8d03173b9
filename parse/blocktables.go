package parse

import (
	"regexp"
	"strings"
)

// tableKind classifies a table by its header text.
type tableKind int

const (
	tableOther      tableKind = iota
	tableFull                 // Phase | Context | … | Status | …
	tableMatrix               // Context | 1 | 2 | 4 …  (rows are contexts)
	tableMatrixT              // Requests | 8K | 16K …  (rows are concurrencies)
	tablePrefill              // Context | tok/s | TTFT
	tableTwoColumns           // key | value
)

var (
	concurrencyRe  = regexp.MustCompile(`^([0-9]+)(?:\s*(?:x|×|req|reqs|requests?|users?|concurrent|streams?|parallel))?$`)
	contextLabelRe = regexp.MustCompile(`(?i)^([0-9]+(?:\.[0-9]+)?\s*[KM])(?:\s*(?:context|ctx|tokens?))?$`)
)

// classifyTable tells what a table is from its header cells.
func classifyTable(t *table, sec sectionKind) tableKind {
	h := make([]string, len(t.Header))
	for i, c := range t.Header {
		h[i] = normKey(c.Text)
	}
	has := func(words ...string) bool {
		for _, x := range h {
			for _, w := range words {
				if strings.Contains(x, w) {
					return true
				}
			}
		}
		return false
	}
	if has("phase") && has("context") {
		return tableFull
	}
	if len(h) >= 2 && sec != secPrefill {
		// Every column header a number (a context label when
		// transposed), but for summary columns without digits ("Peak").
		numeric, contexts, figures := true, true, 0
		for _, x := range h[1:] {
			if !strings.ContainsAny(x, "0123456789") {
				continue
			}
			figures++
			numeric = numeric && concurrencyRe.MatchString(x)
			contexts = contexts && contextLabelRe.MatchString(x)
		}
		numeric, contexts = numeric && figures > 0, contexts && figures > 0
		first := h[0]
		switch {
		case numeric && (first == "" || strings.Contains(first, "context") || strings.Contains(first, "ctx") || rowsLookLikeContexts(t)):
			return tableMatrix
		case contexts && (first == "" || strings.Contains(first, "request") || strings.Contains(first, "concurren") || strings.Contains(first, "user")):
			return tableMatrixT
		}
	}
	if has("context") && has("tok/s", "tokens/s", "ttft", "throughput") && (sec == secPrefill || has("prefill")) {
		return tablePrefill
	}
	if len(h) == 2 {
		return tableTwoColumns
	}
	return tableOther
}

// rowsLookLikeContexts reports whether every row starts with a context
// label ("8K").
func rowsLookLikeContexts(t *table) bool {
	if len(t.Rows) == 0 {
		return false
	}
	for _, r := range t.Rows {
		if len(r.Cells) == 0 || !contextLabelRe.MatchString(collapse(r.Cells[0].Text)) {
			return false
		}
	}
	return true
}

// table files a table under what its header says it is.
func (a *assembler) table(t *table, sec sectionKind, secName string) error {
	if sec == secServe && classifyTable(t, sec) != tableFull {
		rows := make([]rawRow, 0, len(t.Rows))
		for _, r := range t.Rows {
			rows = append(rows, rawRow{Cells: cellTexts(r.Cells), Line: r.Line})
		}
		caption := t.Caption
		if caption == "" {
			caption = a.lastText
		}
		return a.doc.addServe(a.name, rawTable{Header: cellTexts(t.Header), HeaderLine: t.HeaderLine, Rows: rows}, caption)
	}
	phase := ""
	if k := classifyTable(t, sec); k != tableFull && k != tableMatrix && k != tableMatrixT && phaseless(t) {
		// A part of the full table printed under its phase's heading
		// ("### Prefill", "### Sustained decode"), without a Phase column.
		switch {
		case groupedByPhase(t):
			phase = byGroup
		case sec == secPrefill:
			phase = "Prefill"
		case sec == secDecode:
			phase = "Sustained decode"
		}
	}
	kind := classifyTable(t, sec)
	if phase != "" {
		kind = tableFull
	}
	switch kind {
	case tableFull:
		return a.fullTable(t, phase)
	case tableMatrix, tableMatrixT:
		if a.matrixLine > 0 {
			return errorf(a.name, t.Line, "a second decode matrix (the first is at line %d)", a.matrixLine)
		}
		a.matrixLine = t.Line
		a.doc.MatrixLine = t.HeaderLine
		a.doc.MatrixCaption = t.Caption
		if t.Caption == "" {
			a.doc.MatrixCaption = a.lastText
		}
		a.matrix(t)
	case tablePrefill:
		a.prefillTableRows(t)
	case tableTwoColumns, tableOther:
		if sec == secDecode && a.decodeTableLine == 0 {
			a.decodeTableLine = t.Line
		}
		switch sec {
		case secMeta, secNone:
			if pairRows(t) {
				// A caption that names a section files the pairs there.
				if k, known := classifySection(t.Caption); known && k == secMeta {
					secName = collapse(t.Caption)
				}
				a.keyValueTable(t, secName)
			}
		case secPrefill:
			a.prefillTableRows(t)
		}
	}
	return nil
}

// byGroup is the phase of a full-table part whose rows are grouped under
// one-cell rows naming their phase.
const byGroup = "\x00group"

// groupPhase returns the phase a one-cell group row names ("Prefill",
// "Sustained decode"), or "".
func groupPhase(r row) string {
	if len(r.Cells) != 1 {
		return ""
	}
	t := collapse(r.Cells[0].Text)
	switch k, _ := classifySection(t); k {
	case secPrefill:
		return "Prefill"
	case secDecode:
		return "Sustained decode"
	}
	return ""
}

// groupedByPhase reports whether a table's rows are grouped under rows
// naming their phase.
func groupedByPhase(t *table) bool {
	for _, r := range t.Rows {
		if groupPhase(r) != "" {
			return true
		}
	}
	return false
}

// phaseless reports whether a table looks like rows of the full table
// without a Phase column: Context and Status columns.
func phaseless(t *table) bool {
	ctx, status := false, false
	for _, c := range t.Header {
		h := normKey(c.Text)
		ctx = ctx || strings.Contains(h, "context")
		status = status || h == "status"
	}
	return ctx && status
}

// fullTable adds a table's rows to the All measurements table. phase,
// when set, is the Phase of every row of a table printed without that
// column. Parts with different columns are joined on their headers;
// a cell a part does not print is empty (null).
func (a *assembler) fullTable(t *table, phase string) error {
	d := &a.doc.Table
	header := cellTexts(t.Header)
	if phase != "" {
		header = append([]string{"Phase"}, header...)
	}
	if d.Header == nil {
		d.Header, d.HeaderLine = header, t.HeaderLine
	}
	at := make([]int, len(header)) // column of d.Header for each of header
	for i, h := range header {
		at[i] = -1
		for j, dh := range d.Header {
			if normKey(dh) == normKey(h) {
				at[i] = j
				break
			}
		}
		if at[i] < 0 {
			d.Header = append(d.Header, h)
			at[i] = len(d.Header) - 1
			for k := range d.Rows {
				d.Rows[k].Cells = append(d.Rows[k].Cells, "")
			}
		}
	}
	group := ""
	for _, r := range t.Rows {
		if g := groupPhase(r); g != "" {
			group = g
			continue
		}
		cells := cellTexts(r.Cells)
		switch phase {
		case "":
		case byGroup:
			cells = append([]string{group}, cells...)
		default:
			cells = append([]string{phase}, cells...)
		}
		if skipRow(cells, len(header)) || equalStrings(cells, header) {
			continue
		}
		if len(cells) != len(header) {
			// Misaligned: keep it as printed for the builder to report.
			d.Rows = append(d.Rows, rawRow{Cells: cells, Line: r.Line})
			continue
		}
		out := make([]string, len(d.Header))
		for i, c := range cells {
			out[at[i]] = c
		}
		d.Rows = append(d.Rows, rawRow{Cells: out, Line: r.Line})
	}
	return nil
}

// skipRow reports whether a table row holds no data: empty, or a single
// cell spanning a wider table (a group label).
func skipRow(cells []string, width int) bool {
	empty := true
	for _, c := range cells {
		if c != "" {
			empty = false
		}
	}
	return empty || (len(cells) == 1 && width > 2)
}

// matrix reads a decode matrix into cells.
func (a *assembler) matrix(t *table) {
	transposed := classifyTable(t, secDecode) == tableMatrixT
	cols := make([]string, len(t.Header))
	for i, c := range t.Header {
		cols[i] = cellLabel(c, !transposed)
	}
	for _, r := range t.Rows {
		cells := cellTexts(r.Cells)
		if skipRow(cells, len(cols)) || len(r.Cells) == 0 || !strings.ContainsAny(cells[0], "0123456789") {
			continue // no data, or a summary row ("Mean")
		}
		label := cellLabel(r.Cells[0], transposed)
		for j := 1; j < len(r.Cells); j++ {
			if j < len(cols) && !strings.ContainsAny(cols[j], "0123456789") {
				continue // a summary column ("Peak")
			}
			c := r.Cells[j]
			rc := rawCell{Context: label, Line: c.Line}
			if j < len(cols) {
				rc.Concurrency = cols[j]
			}
			if transposed {
				rc.Context, rc.Concurrency = rc.Concurrency, rc.Context
			}
			if rc.Line == 0 {
				rc.Line = r.Line
			}
			rc.TokS, rc.TTFT, rc.Glued = splitCell(c.Pieces)
			a.doc.Matrix = append(a.doc.Matrix, rc)
		}
	}
}

// cellLabel returns the label of a matrix header cell. When the whole
// cell does not read as one ("8K" with a tooltip "8,192 tokens" beside
// it), its first piece is tried.
func cellLabel(c cell, concurrency bool) string {
	re := contextLabelRe
	if concurrency {
		re = concurrencyRe
	}
	if !re.MatchString(strings.ToLower(collapse(c.Text))) && len(c.Pieces) > 1 && re.MatchString(strings.ToLower(c.Pieces[0])) {
		return headLabel(c.Pieces[0], concurrency)
	}
	return headLabel(c.Text, concurrency)
}

// headLabel returns a matrix header as the builder expects it: a context
// label without the word "context" ("8K"), or a concurrency's digits.
func headLabel(s string, concurrency bool) string {
	s = collapse(s)
	if concurrency {
		if m := concurrencyRe.FindStringSubmatch(strings.ToLower(s)); m != nil {
			return m[1]
		}
		return s
	}
	if m := contextLabelRe.FindStringSubmatch(s); m != nil {
		return strings.ReplaceAll(m[1], " ", "")
	}
	return s
}

// prefillTableRows reads prefill figures printed as a table: a row per
// context (the column whose header says context, else the first) with
// its figures in the other cells, or a column per context when the
// header cells are context labels.
func (a *assembler) prefillTableRows(t *table) {
	across := len(t.Header) > 1
	for _, c := range t.Header[min(1, len(t.Header)):] {
		across = across && contextLabelRe.MatchString(collapse(c.Text))
	}
	if across {
		for j := 1; j < len(t.Header); j++ {
			var ps []string
			for _, r := range t.Rows {
				if j < len(r.Cells) {
					ps = append(ps, r.Cells[j].Pieces...)
				}
			}
			p := rawPrefill{Context: headLabel(t.Header[j].Text, false), Line: t.Header[j].Line}
			if p.Line == 0 {
				p.Line = t.HeaderLine
			}
			p.TokS, p.TTFT, p.Glued = splitCell(ps)
			a.doc.Prefill = append(a.doc.Prefill, p)
		}
		return
	}
	ctx := 0
	for i, c := range t.Header {
		if strings.Contains(normKey(c.Text), "context") {
			ctx = i
			break
		}
	}
	for _, r := range t.Rows {
		if ctx >= len(r.Cells) || skipRow(cellTexts(r.Cells), len(t.Header)) {
			continue
		}
		p := rawPrefill{Context: headLabel(r.Cells[ctx].Text, false), Line: r.Line}
		var rest []string
		for i, c := range r.Cells {
			if i == ctx {
				continue
			}
			if i < len(t.Header) && bareRe.MatchString(collapse(c.Text)) {
				// "149" under a "TTFT (ms)" header.
				if h := normKey(t.Header[i].Text); strings.Contains(h, "ttft") || strings.Contains(h, "first token") {
					unit := "ms"
					if strings.Contains(h, "(s)") || strings.HasSuffix(h, " s") {
						unit = "s"
					}
					rest = append(rest, collapse(c.Text)+" "+unit)
					continue
				}
			}
			rest = append(rest, c.Pieces...)
		}
		p.TokS, p.TTFT, p.Glued = splitCell(rest)
		a.doc.Prefill = append(a.doc.Prefill, p)
	}
}

// keyValueTable reads a two-column table as metadata pairs. The header
// row is a pair too unless it is a generic "Key | Value" header.
func (a *assembler) keyValueTable(t *table, section string) {
	var k, v string
	if len(t.Header) > 0 {
		k = normKey(t.Header[0].Text)
	}
	if len(t.Header) > 1 {
		v = normKey(t.Header[1].Text)
	}
	generic := k == "" || v == "" || v == "value" || v == "values" || v == "setting" || v == "details"
	if kind, known := classifySection(t.Header[0].Text); known && kind == secMeta && (generic || len(t.Header) == 1) {
		// "| Hardware | |": the header names the section.
		section = collapse(t.Header[0].Text)
	} else if !generic && len(t.Header) == 2 {
		a.field(section, trimKey(t.Header[0].Text), collapse(t.Header[1].Text), t.HeaderLine)
	}
	for _, r := range t.Rows {
		if len(r.Cells) < 2 {
			continue
		}
		k := trimKey(r.Cells[0].Text)
		if k == "" {
			continue
		}
		a.field(section, k, collapse(r.Cells[1].Text), r.Line)
	}
}

// pairRows reports whether a table holds key/value pairs: a header of
// one or two cells and rows of two cells.
func pairRows(t *table) bool {
	if len(t.Header) == 0 || len(t.Header) > 2 || len(t.Rows) == 0 && len(t.Header) != 2 {
		return false
	}
	for _, r := range t.Rows {
		if len(r.Cells) != 2 {
			return false
		}
	}
	return true
}

// cellTexts returns the texts of cells.
func cellTexts(cells []cell) []string {
	out := make([]string, len(cells))
	for i, c := range cells {
		out[i] = collapse(c.Text)
	}
	return out
}

func equalStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
