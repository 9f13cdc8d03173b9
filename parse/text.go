package parse

import (
	"slices"
	"strings"
	"unicode/utf8"
	"unsafe"

	"speedmatrix/schema"
)

func init() { extractors[schema.FormatText] = extractText }

// textSection is what a section heading announces.
type textSection int

const (
	tsNone    textSection = iota // the preamble before the first heading
	tsFields                     // key/value pairs: Hardware, Engine, Run, or an unknown section
	tsLaunch                     // the launch command
	tsPrefill                    // prefill figures
	tsDecode                     // the decode matrix
	tsTable                      // All measurements
	tsServe                      // Serve by request rate
)

// textLine is one line of the document without its line ending.
type textLine struct {
	s  string
	no int // 1-based
}

// appendLines splits s at \n, \r\n or a lone \r, numbering the lines,
// and appends them to lines (a scratch's, reused).
//
// Note: the lines are substrings of s, one copy of the document (or the
// document's own bytes, see extractOwnedText), not a copy each; what the
// matrix keeps of them keeps s alive.
func appendLines(lines []textLine, s string) []textLine {
	lines = slices.Grow(lines, strings.Count(s, "\n")+1)
	no := 1
	for len(s) > 0 {
		// strings.IndexAny(s, "\r\n"), by the two vectorized byte
		// searches (a line rarely holds a \r).
		i := strings.IndexByte(s, '\n')
		end := i
		if end < 0 {
			end = len(s)
		}
		if j := strings.IndexByte(s[:end], '\r'); j >= 0 {
			i = j
		}
		if i < 0 {
			lines = append(lines, textLine{s, no})
			break
		}
		lines = append(lines, textLine{s[:i], no})
		no++
		if s[i] == '\r' && i+1 < len(s) && s[i+1] == '\n' {
			i++
		}
		s = s[i+1:]
	}
	return lines
}

// extractText reads the flattened-text form of a document (the seeds):
// headings on their own lines, "- Key" / "- Value" line pairs, a launch
// command line, prefill figures, and tables as "|"-separated lines whose
// header may be glued to the caption before it. Tables are recognized by
// their header cells wherever they appear; sections by their heading text.
// Its lines are substrings of a copy of b.
func extractText(b []byte, name string) (*rawDoc, error) {
	return extractTextOf(string(b), name, new(scratch))
}

// extractOwnedText is extractText for a document whose bytes nothing
// writes again (ParseAllStream reads it into a buffer of its own): its
// lines are substrings of b itself, not of a copy.
//
// Note: the copy was 2% of parsing a seed document (0.18 of 8.8 s in a
// profile of BenchmarkParseText) and a second document-sized allocation.
func extractOwnedText(b []byte, name string, sc *scratch) (*rawDoc, error) {
	return extractTextOf(unsafe.String(unsafe.SliceData(b), len(b)), name, sc)
}

// extractTextOf is extractText of the document's text s. The rawDoc's
// slices (its pairs, matrix cells and table rows) are sc's: it must not
// be released while the rawDoc is read.
func extractTextOf(s string, name string, sc *scratch) (*rawDoc, error) {
	s = strings.TrimPrefix(s, "\ufeff")
	if len(strings.TrimSpace(s)) == 0 {
		return nil, errorf(name, 0, "empty document")
	}
	sc.lines = appendLines(sc.lines[:0], s)
	lines := sc.lines
	// The lines hold a NUL or invalid UTF-8 only if the document does
	// (line breaks are ASCII): one pass over it, and a pass over the
	// lines only to find the one at fault.
	valid := strings.IndexByte(s, 0) < 0 && utf8.ValidString(s)
	for _, l := range lines {
		if valid {
			break
		}
		if strings.IndexByte(l.s, 0) >= 0 {
			return nil, errorf(name, l.no, "binary data (NUL byte): not a speed-test document")
		}
		if !utf8.ValidString(l.s) {
			return nil, errorf(name, l.no, "invalid UTF-8: not a text speed-test document (convert it to UTF-8)")
		}
	}
	x := &textExtractor{name: name, lines: lines, doc: &rawDoc{}, sc: sc}
	if err := x.run(); err != nil {
		return nil, err
	}
	return x.doc, nil
}

type textExtractor struct {
	name    string
	lines   []textLine
	doc     *rawDoc
	section string
	kind    textSection
	pre     []textLine // preamble lines
	sc      *scratch   // where the rawDoc's slices are taken from
}

func (x *textExtractor) run() error {
	launch := []string{}
	for i := 0; i < len(x.lines); i++ {
		l := x.lines[i]
		s := trimSpace(l.s)
		if s == "" {
			continue
		}
		// Tables first: a line holding "|" cells, maybe after a caption.
		if j := strings.IndexByte(s, '|'); j >= 0 && x.kind != tsLaunch && !strings.HasPrefix(s, "- ") {
			n, err := x.table(i, strings.TrimSpace(s[:j]), s[j:])
			if err != nil {
				return err
			}
			if n > 0 {
				i += n - 1
				continue
			}
		}
		if k, ok := sectionOf(s); ok && !strings.HasPrefix(s, "-") {
			x.section, x.kind = trimSpace(strings.TrimRight(s, ": ")), k
			continue
		}
		if x.kind == tsLaunch && len(launch) > 0 && strings.HasSuffix(launch[len(launch)-1], "\\") {
			launch = append(launch, l.s) // a continued command line
			continue
		}
		if x.isUnknownHeading(i) {
			x.section, x.kind = trimSpace(strings.TrimRight(s, ": ")), tsFields
			continue
		}
		if isFootnote(s) {
			continue
		}
		switch x.kind {
		case tsNone:
			x.pre = append(x.pre, textLine{s, l.no})
		case tsFields:
			if !strings.HasPrefix(s, "-") {
				// "Key: value" on a line of its own; other prose is skipped.
				if k, v, ok := strings.Cut(s, ": "); ok && len(k) <= 40 && trimSpace(v) != "" && !strings.ContainsAny(k, ".,;") {
					x.addField(rawField{Section: x.section, Key: trimSpace(k), Value: trimSpace(v), Line: l.no})
				}
				continue
			}
			key := trimSpace(strings.TrimPrefix(s, "-"))
			f := rawField{Section: x.section, Key: key, Line: l.no}
			// "- Key: value" on one line. Keys never hold ": ", so a key
			// line that does is a whole pair (a two-line pair's value
			// line is consumed with its key and never gets here).
			if k, v, ok := strings.Cut(key, ": "); ok && trimSpace(v) != "" {
				f.Key, f.Value = trimSpace(k), trimSpace(v)
			} else if x.nextIsValue(i) {
				i++
				v := trimSpace(x.lines[i].s)
				f.Value = trimSpace(strings.TrimPrefix(v, "- "))
				if v == "-" {
					f.Value = ""
				}
			}
			x.addField(f)
		case tsLaunch:
			if x.doc.LaunchLine == 0 {
				x.doc.LaunchLine = l.no
			}
			launch = append(launch, l.s)
		case tsPrefill, tsDecode, tsTable:
			if x.kind != tsPrefill {
				continue // prefill figures are read in their section only
			}
			if c0, c1, end, ok := findPrefillFigure(s); ok {
				c0 = depthStart(s, c0)
				p := rawPrefill{Context: strings.ReplaceAll(s[c0:c1], " ", ""), Glued: trimSpace(s[end:]), Line: l.no}
				if p.Glued == "" {
					// A card flattened one element per line: "8K context",
					// "55K", "149 ms TTFT".
					var parts []string
					for len(parts) < 2 && i+1 < len(x.lines) {
						n := trimSpace(x.lines[i+1].s)
						if n == "" || strings.Contains(n, "|") || hasPrefillFigure(n) || x.isUnknownHeading(i+1) {
							break
						}
						if _, ok := sectionOf(n); ok {
							break
						}
						parts = append(parts, n)
						i++
					}
					p.Glued = strings.Join(parts, " ")
				}
				if x.doc.Prefill == nil {
					x.doc.Prefill = make([]rawPrefill, 0, 8) // a seed has 5 or 6
				}
				x.doc.Prefill = append(x.doc.Prefill, p)
			}
		}
	}
	x.doc.Launch = strings.TrimSpace(strings.Join(launch, "\n"))
	x.preamble()
	return nil
}

// addField appends a key/value pair to the document's fields.
//
// Note: the first pair makes room for 32 (a seed document has about 20):
// growing the slice from nothing was 0.04 of textExtractor.run's 0.41 s
// in a profile of Ingest1000/command (the prefill figures' 0.03).
func (x *textExtractor) addField(f rawField) {
	if x.doc.Fields == nil {
		x.doc.Fields = x.sc.fields.take(32)
	}
	x.doc.Fields = append(x.doc.Fields, f)
}

// nextIsValue reports whether the line after a "- Key" line is its value:
// any non-empty line that is not a heading ("Commit" values have no dash).
func (x *textExtractor) nextIsValue(i int) bool {
	if i+1 >= len(x.lines) {
		return false
	}
	s := trimSpace(x.lines[i+1].s)
	if s == "" {
		return false
	}
	if strings.HasPrefix(s, "- ") || s == "-" {
		return true
	}
	if _, ok := sectionOf(s); ok {
		return false
	}
	return !x.isUnknownHeading(i+1) && !strings.Contains(s, "|")
}

// isUnknownHeading reports whether line i starts a section the parser
// does not know: a short line without "-" or "|" directly followed by a
// "- Key" line and then a value line.
func (x *textExtractor) isUnknownHeading(i int) bool {
	s := trimSpace(x.lines[i].s)
	if s == "" || strings.HasPrefix(s, "-") || strings.Contains(s, "|") || len(s) > 60 || strings.HasSuffix(s, ".") || strings.Contains(s, ": ") {
		return false
	}
	if i+1 >= len(x.lines) {
		return false
	}
	next := trimSpace(x.lines[i+1].s)
	return strings.HasPrefix(next, "- ")
}

// preamble takes the title and subtitle from the lines before the first
// section: the subtitle is the line with " · " separators, the title the
// line before it (or the line naming "MODEL on GPU").
func (x *textExtractor) preamble() {
	pre := x.pre
	sub := -1
	for i, l := range pre {
		if strings.Contains(l.s, " · ") || strings.Contains(l.s, " • ") {
			sub = i
			break
		}
	}
	title := -1
	if sub > 0 {
		title = sub - 1
	} else {
		for i, l := range pre {
			if strings.Contains(l.s, " on ") {
				title = i
				break
			}
		}
		if title < 0 && len(pre) > 0 {
			title = len(pre) - 1
		}
	}
	if title >= 0 {
		x.doc.Title, x.doc.TitleLine = pre[title].s, pre[title].no
	}
	if sub >= 0 {
		x.doc.Subtitle, x.doc.SubtitleLine = pre[sub].s, pre[sub].no
	}
}

// isTableLine reports whether trimmed line s continues a table: it
// starts with "|", or holds one in a table printed without outer pipes.
func isTableLine(s string, outer bool) bool {
	return strings.HasPrefix(s, "|") || !outer && strings.Contains(s, "|")
}

// table reads a table whose header starts at line i (after caption) and
// returns how many lines it used; 0 when the line is not a table header
// the parser knows (it is then treated as an ordinary line).
//
// The text before the first "|" is a caption glued to the header (as in
// the seeds) unless it is itself a column name and the whole line reads as
// a header: then the table was printed without outer pipes ("Phase |
// Context | …") and its rows are the lines that hold a "|".
func (x *textExtractor) table(i int, caption, headerText string) (int, error) {
	header := splitRow(headerText)
	kind := classifyHeader(header)
	outer := true
	if caption != "" && columnOf(caption) != colUnknown {
		if h := splitRow(caption + headerText); classifyHeader(h) != headerOther {
			header, caption, outer = h, "", false
			kind = classifyHeader(h)
		}
	}
	if kind == headerOther && x.kind != tsServe {
		return 0, nil
	}
	n := 1
	// The table's lines, counted first: its rows are allocated once.
	end := i + 1
	for end < len(x.lines) && isTableLine(trimSpace(x.lines[end].s), outer) {
		end++
	}
	rows := x.sc.rows.take(end - i - 1)
	chunks := cellChunks{arena: &x.sc.strs}
	var scratch []string
	for j := i + 1; j < end; j++ {
		s := trimSpace(x.lines[j].s)
		n++
		if kind == headerFull {
			// Its rows keep their text, split when read (see rawRow); a
			// rule has no letter or digit.
			if !hasAlnum(s) {
				if scratch = appendCells(scratch[:0], trimRow(s)); isSeparatorRow(scratch) {
					continue
				}
			}
			// Set in place in rows' zeroed capacity (one per line), as
			// matrixCells does: no copy of a struct with a bulk barrier.
			rows = rows[:len(rows)+1]
			rows[len(rows)-1].Text, rows[len(rows)-1].Line = s, x.lines[j].no
			continue
		}
		cells := chunks.splitRow(s)
		if isSeparatorRow(cells) {
			continue
		}
		rows = append(rows, rawRow{Cells: cells, Line: x.lines[j].no})
	}
	line := x.lines[i].no
	if x.kind == tsServe && kind != headerFull {
		// The rate table, whatever its header: its section says what it is.
		return n, x.doc.addServe(x.name, rawTable{Header: header, HeaderLine: line, Rows: rows}, caption)
	}
	switch kind {
	case headerFull:
		if x.doc.Table.HeaderLine != 0 {
			// A table split in parts (prefill rows, then decode rows) with
			// one header is one table; different headers are not.
			if !slices.Equal(x.doc.Table.Header, header) {
				return 0, errorf(x.name, line, "a second All measurements table with other columns (the first is at line %d)", x.doc.Table.HeaderLine)
			}
			x.doc.Table.Rows = append(x.doc.Table.Rows, rows...)
			break
		}
		x.doc.Table = rawTable{Header: header, HeaderLine: line, Rows: rows}
	case headerMatrix:
		if x.doc.MatrixLine != 0 {
			return 0, errorf(x.name, line, "a second decode matrix (the first is at line %d)", x.doc.MatrixLine)
		}
		x.doc.MatrixLine = line
		x.doc.MatrixCaption = caption
		cells, err := matrixCells(x.name, header, line, rows, &x.sc.cells)
		if err != nil {
			return 0, err
		}
		x.doc.Matrix = cells
	}
	return n, nil
}
