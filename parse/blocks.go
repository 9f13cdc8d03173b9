package parse

import (
	"regexp"
	"strings"
	"unicode"
)

// The HTML and Markdown extractors share one reading of a document's
// structure. Each walks its own tree (x/net/html nodes, goldmark AST) and
// emits a flat list of blocks in document order — headings, lines of
// text, list items, key/value pairs, code and tables — each with the text
// pieces it was printed in and its source line. assemble then finds the
// title, the sections (by heading text), the metadata pairs, the launch
// command, the prefill figures, the decode matrix and the full table (by
// header text), so both formats follow the same rules and a layout that
// one of them understands the other understands too.

// blockKind says what a block is.
type blockKind int

const (
	blockHeading blockKind = iota // h1–h6, # headings
	blockText                     // a line of text: a paragraph line, a leaf element
	blockItem                     // a list item
	blockKV                       // an explicit key/value pair (dt/dd)
	blockCode                     // pre, fenced or indented code, a lone code span
	blockTable                    // a table
)

// block is one structural element of a document.
type block struct {
	Kind  blockKind
	Level int // heading level, 1–6
	Line  int // 1-based source line
	// Text is the block's text as printed, whitespace collapsed (code
	// keeps its own whitespace). For blockKV it is the key.
	Text string
	// Value is the value of a blockKV.
	Value string
	// Pieces is Text split where the source put separate elements
	// (tags, emphasis, line breaks): "8K context", "55K", "149 ms TTFT".
	Pieces []piece
	// LeadKey is set when the block starts with an element of its own
	// followed by more text, as in "<b>GPU:</b> H200" or
	// "<span>GPU</span><span>H200</span>": the element's text. Rest is
	// the text after it.
	LeadKey, Rest string
	// PairWithNext marks the first of two sibling leaf elements that form
	// a key/value pair ("<div><div>GPU</div><div>H200</div></div>").
	PairWithNext bool
	Table        *table
}

// piece is a run of text printed in one element, with its line.
type piece struct {
	Text string
	Line int
}

// table is a table as laid out: header cells and rows of cells.
type table struct {
	Line       int
	Caption    string // the table's own caption (HTML <caption>), if any
	Header     []cell
	HeaderLine int
	Rows       []row
}

// row is one row of a table.
type row struct {
	Cells []cell
	Line  int
}

// cell is one table cell: its whole text and the pieces it was printed in.
type cell struct {
	Text   string
	Pieces []string
	Line   int
}

// frag is a run of text printed within one element (or one Markdown
// inline: emphasis, code span, link), with its line.
type frag struct {
	text  string
	line  int
	top   int  // index of the top-level inline node holding the text
	elem  bool // that node is an element (a tag, emphasis, code), not bare text
	br    bool // a line break comes before it
	space bool // a block boundary comes before it: join with a space
}

// dropBlank drops blank fragments in place; the break or space they stood
// for moves to the next one, so "<b>A</b> <b>B</b>" reads "A B". f gives
// the fragment inside an element (the HTML and Markdown readers wrap it
// differently).
func dropBlank[T any](xs []T, f func(*T) *frag) []T {
	kept := xs[:0]
	carryBr, carrySpace := false, false
	for i := range xs {
		fr := f(&xs[i])
		if collapse(fr.text) == "" {
			carryBr = carryBr || fr.br
			carrySpace = carrySpace || fr.space || fr.text != ""
			continue
		}
		fr.br, fr.space = fr.br || carryBr, fr.space || carrySpace
		carryBr, carrySpace = false, false
		kept = append(kept, xs[i])
	}
	return kept
}

// joinFrags returns the text of fragments as a reader sees it: adjacent
// inline pieces run together, a line break or block boundary is a space.
func joinFrags(fs []frag) string {
	var b strings.Builder
	for i, f := range fs {
		if i > 0 && (f.br || f.space) {
			b.WriteByte(' ')
		}
		b.WriteString(f.text)
	}
	return collapse(b.String())
}

// blockOf makes a block of fragments. When the first fragment sits in an
// element of its own and more text follows, that element is the block's
// leading key.
func blockOf(fs []frag, line int, kind blockKind) block {
	b := block{Kind: kind, Line: line, Text: joinFrags(fs)}
	for _, f := range fs {
		if t := collapse(f.text); t != "" {
			b.Pieces = append(b.Pieces, piece{Text: t, Line: f.line})
		}
	}
	if len(fs) > 1 && fs[0].elem {
		var key, rest []frag
		for _, f := range fs {
			if f.top == fs[0].top {
				key = append(key, f)
			} else {
				rest = append(rest, f)
			}
		}
		if len(rest) > 0 {
			rest[0].br, rest[0].space = false, false
			b.LeadKey, b.Rest = joinFrags(key), joinFrags(rest)
		}
	}
	return b
}

// sectionKind classifies a section heading.
type sectionKind int

const (
	secNone    sectionKind = iota // before the first section
	secMeta                       // Hardware, Engine, Run and any unknown section
	secLaunch                     // Launch command
	secPrefill                    // Prefill
	secDecode                     // Sustained decode
	secFull                       // All measurements
)

// knownSections maps normalized heading texts to their section kinds.
// A heading matches when its text equals a name or starts with it
// followed by a space ("Sustained decode throughput").
var knownSections = []struct {
	name string
	kind sectionKind
}{
	{"hardware", secMeta},
	{"engine", secMeta},
	{"run", secMeta},
	{"launch command", secLaunch},
	{"launch", secLaunch},
	{"command", secLaunch},
	{"prefill", secPrefill},
	{"prompt processing", secPrefill},
	{"sustained decode", secDecode},
	{"decode", secDecode},
	{"all measurements", secFull},
	{"measurements", secFull},
}

// kicker is the line printed above the title of the seeds' pages.
const kicker = "speed test matrix"

// classifySection returns the kind of a section heading, and whether the
// heading is a known one.
func classifySection(text string) (sectionKind, bool) {
	// Numbering and icons before the name do not count ("2. Engine").
	t := strings.TrimLeftFunc(normKey(text), func(r rune) bool { return !unicode.IsLetter(r) })
	for _, s := range knownSections {
		if t == s.name || strings.HasPrefix(t, s.name+" ") {
			return s.kind, true
		}
	}
	return secMeta, false
}

// normKey lowercases s, collapses its whitespace and trims surrounding
// punctuation, for comparing headings and header cells.
func normKey(s string) string {
	s = strings.ToLower(collapse(s))
	return strings.TrimFunc(s, func(r rune) bool {
		return unicode.IsSpace(r) || r == ':' || r == '.' || r == '#' || r == '*'
	})
}

// collapse trims s and collapses each run of white space (including
// no-break spaces from &nbsp;) to one space, and drops zero-width and
// soft-hyphen characters.
func collapse(s string) string {
	if collapsed(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	space := false
	for _, r := range s {
		switch {
		case r == '\u200b' || r == '\u200c' || r == '\u200d' || r == '\ufeff' || r == '\u00ad':
			continue
		case unicode.IsSpace(r):
			space = b.Len() > 0
			continue
		}
		if space {
			b.WriteByte(' ')
			space = false
		}
		b.WriteRune(r)
	}
	return b.String()
}

// collapsed reports whether collapse would return s unchanged: ASCII
// with single spaces between words (the common case, checked cheaply).
func collapsed(s string) bool {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c >= 0x80, c < ' ':
			return false
		case c == ' ' && (i == 0 || i == len(s)-1 || s[i+1] == ' '):
			return false
		}
	}
	return true
}

// assemble reads the blocks of a document into a rawDoc. what names the
// format's title element in error messages ("an h1 heading").
func assemble(blocks []block, name string, lastLine int, what string) (*rawDoc, error) {
	a := &assembler{doc: &rawDoc{}, name: name}
	for i := range blocks {
		if blocks[i].Kind == blockText && sectionLabel(blocks, i) {
			// A line that only names a section ("<p><b>Engine</b></p>",
			// a styled div) heads it like a heading would.
			blocks[i].Kind, blocks[i].Level = blockHeading, 7
		}
	}
	title := findTitle(blocks)
	if title < 0 {
		return nil, errorf(name, 1, "no title: expected %s naming the model and hardware", what)
	}
	a.doc.Title, a.doc.TitleLine = blocks[title].Text, blocks[title].Line
	a.findSubtitle(blocks, title)

	sec, secLevel, secName := secNone, 0, ""
	var fullHeading, prefillHeading int
	for i := 0; i < len(blocks); i++ {
		b := &blocks[i]
		if i == title || i == a.subtitleIdx {
			continue
		}
		if b.Kind == blockText {
			a.lastText = b.Text
		}
		if b.Kind == blockHeading {
			a.lastText = ""
			kind, known := classifySection(b.Text)
			if !known {
				if p := firstPiece(b); p != b.Text {
					if k, ok := classifySection(p); ok {
						kind, known = k, true
					}
				}
			}
			switch {
			case known:
				// The name as printed, without numbering or an icon.
				label := strings.TrimLeftFunc(b.Text, func(r rune) bool { return !unicode.IsLetter(r) })
				sec, secLevel, secName = kind, b.Level, label
				switch kind {
				case secFull:
					fullHeading = b.Line
				case secPrefill:
					prefillHeading = b.Line
				}
			case sec != secNone && sec != secMeta && b.Level > secLevel:
				// A sub-heading inside a section of figures (a card's
				// label): its text belongs to the section.
				if sec == secPrefill {
					a.prefillPieces = append(a.prefillPieces, blockPieces(b)...)
				}
			case normKey(b.Text) == kicker:
			default:
				sec, secLevel, secName = secMeta, b.Level, b.Text
			}
			continue
		}
		if b.Kind == blockTable {
			if err := a.table(b.Table, sec, secName); err != nil {
				return nil, err
			}
			continue
		}
		switch sec {
		case secNone, secMeta:
			if b.Kind == blockCode {
				if a.looseCode == nil {
					a.looseCode = b
				}
				continue
			}
			if b.PairWithNext && i+1 < len(blocks) && blocks[i+1].Kind == blockText && i+1 != a.subtitleIdx {
				a.field(secName, trimKey(b.Text), blocks[i+1].Text, b.Line)
				i++
				continue
			}
			if k, v, ok := keyValue(b); ok {
				a.field(secName, k, v, b.Line)
			}
		case secLaunch:
			switch {
			case b.Kind == blockCode && !a.launchFromCode:
				a.doc.Launch, a.doc.LaunchLine, a.launchFromCode = b.Text, b.Line, true
			case a.doc.Launch == "" && b.Kind == blockKV:
				a.doc.Launch, a.doc.LaunchLine = collapse(b.Value), b.Line
			case a.doc.Launch == "" && b.Kind != blockCode:
				a.doc.Launch, a.doc.LaunchLine = b.Text, b.Line
			}
		case secPrefill:
			a.prefillPieces = append(a.prefillPieces, blockPieces(b)...)
		}
	}
	a.doc.Prefill = append(a.doc.Prefill, scanPrefill(a.prefillPieces)...)
	if a.doc.Launch == "" && a.looseCode != nil {
		// No Launch command section: a code block elsewhere is the
		// command (the only code the pages print).
		a.doc.Launch, a.doc.LaunchLine = a.looseCode.Text, a.looseCode.Line
	}

	d := a.doc
	if d.Table.Header == nil {
		line := fullHeading
		if line == 0 {
			line = lastLine
		}
		return nil, errorf(name, line, "no All measurements table (a table whose header has Phase, Context, Status …)")
	}
	// The matrix and the prefill figures summarize the full table, so a
	// document may leave them out; a section that prints something that
	// is not one of them is an error.
	if a.decodeTableLine > 0 && d.Matrix == nil {
		return nil, errorf(name, a.decodeTableLine, "Sustained decode: the table is not a matrix (a header of Context, then the numbers of simultaneous requests)")
	}
	if prefillHeading > 0 && len(d.Prefill) == 0 && hasFigures(a.prefillPieces) {
		return nil, errorf(name, prefillHeading, "Prefill: figures not understood (expected \"8K context\", tok/s and TTFT per context length)")
	}
	return d, nil
}

// sectionLabel reports whether text block i is a line that only says a
// section's full name, not part of a key/value pair.
func sectionLabel(blocks []block, i int) bool {
	b := blocks[i]
	if b.LeadKey != "" || b.PairWithNext || i > 0 && blocks[i-1].PairWithNext {
		return false
	}
	t := strings.TrimLeftFunc(normKey(b.Text), func(r rune) bool { return !unicode.IsLetter(r) })
	for _, s := range knownSections {
		if t == s.name && strings.Contains(s.name, " ") || t == s.name && s.kind == secMeta {
			return true
		}
	}
	return t == "prefill"
}

// hasFigures reports whether any piece holds a digit.
func hasFigures(ps []piece) bool {
	for _, p := range ps {
		if strings.ContainsAny(p.Text, "0123456789") {
			return true
		}
	}
	return false
}

// assembler holds the state of assemble.
type assembler struct {
	doc            *rawDoc
	name           string
	subtitleIdx    int
	launchFromCode bool
	prefillPieces  []piece
	matrixLine     int
	// decodeTableLine is the line of the first table of the Sustained
	// decode section, for the error when none of its tables is a matrix.
	decodeTableLine int
	// lastText is the last line of text since the last heading: the
	// caption of a table that follows it.
	lastText string
	// looseCode is the first code block outside the Launch command
	// section, the command when the document has no such section.
	looseCode *block
}

// findTitle returns the index of the title block: an h1 that is not the
// "Speed test matrix" kicker, else a heading before any known section
// that is not the kicker, else the first text after a kicker heading; -1
// when there is none. Among several candidates one that reads "MODEL on
// GPU" wins over the first (a site name in an h1 above the document).
func findTitle(blocks []block) int {
	pick := func(cands []int) int {
		for _, i := range cands {
			if strings.Contains(blocks[i].Text, " on ") {
				return i
			}
		}
		if len(cands) > 0 {
			return cands[0]
		}
		return -1
	}
	var h1s, heads []int
	kickerAt := -1
	inSections := false
	for i, b := range blocks {
		if b.Kind != blockHeading || b.Text == "" {
			continue
		}
		if normKey(b.Text) == kicker {
			if kickerAt < 0 {
				kickerAt = i
			}
			continue
		}
		if _, known := classifySection(b.Text); known {
			inSections = true
			continue
		}
		if b.Level == 1 {
			h1s = append(h1s, i)
		}
		if !inSections {
			heads = append(heads, i)
		}
	}
	if i := pick(h1s); i >= 0 {
		return i
	}
	if i := pick(heads); i >= 0 {
		return i
	}
	if kickerAt >= 0 {
		for i := kickerAt + 1; i < len(blocks) && blocks[i].Kind != blockHeading; i++ {
			if blocks[i].Kind == blockText && blocks[i].Text != "" && !strings.Contains(blocks[i].Text, "·") {
				return i
			}
		}
	}
	return -1
}

// findSubtitle sets the subtitle: the first block after the title, before
// the next heading, whose text holds "·" separators.
func (a *assembler) findSubtitle(blocks []block, title int) {
	a.subtitleIdx = -1
	for i := title + 1; i < len(blocks) && blocks[i].Kind != blockHeading; i++ {
		b := blocks[i]
		if b.Kind == blockTable || b.Kind == blockCode {
			continue
		}
		text := b.Text
		if b.Kind == blockKV {
			text = collapse(b.Text + " " + b.Value)
		}
		if strings.Contains(text, "·") || strings.Contains(text, "•") {
			a.doc.Subtitle, a.doc.SubtitleLine, a.subtitleIdx = text, b.Line, i
			return
		}
	}
}

// firstPiece returns the first piece of a block's text.
func firstPiece(b *block) string {
	if len(b.Pieces) > 0 {
		return b.Pieces[0].Text
	}
	return b.Text
}

// blockPieces returns the pieces of a block, for the prefill scan.
func blockPieces(b *block) []piece {
	switch b.Kind {
	case blockKV:
		return []piece{{b.Text, b.Line}, {b.Value, b.Line}}
	case blockCode:
		return nil
	}
	if len(b.Pieces) == 0 && b.Text != "" {
		return []piece{{b.Text, b.Line}}
	}
	return b.Pieces
}

// keyRe is what a key printed before a colon looks like: short, no
// sentence punctuation, not a number.
var keyRe = regexp.MustCompile(`^[\p{L}][\p{L}\p{N} _()/&+.'-]{0,60}$`)

// keyValue reads a block as a key/value pair: an explicit pair (dt/dd), a
// leading element ("**GPU:** H200", "<span>GPU</span><span>H200</span>")
// or "Key: Value".
func keyValue(b *block) (key, value string, ok bool) {
	switch b.Kind {
	case blockKV:
		return trimKey(b.Text), collapse(b.Value), trimKey(b.Text) != ""
	case blockText, blockItem:
	default:
		return "", "", false
	}
	if b.LeadKey != "" {
		k := trimKey(b.LeadKey)
		v := collapse(strings.TrimLeft(strings.TrimSpace(b.Rest), ":：—–-"))
		if k != "" && (v != "" || strings.HasSuffix(strings.TrimSpace(b.LeadKey), ":")) {
			return k, v, true
		}
	}
	if i := strings.Index(b.Text, ":"); i > 0 {
		k, v := strings.TrimSpace(b.Text[:i]), strings.TrimSpace(b.Text[i+1:])
		if keyRe.MatchString(k) && !strings.HasPrefix(v, "//") {
			return k, v, true
		}
	}
	// "Served model — ling": a dash with spaces around it.
	for _, sep := range []string{" — ", " – ", " - "} {
		if k, v, ok := strings.Cut(b.Text, sep); ok && keyRe.MatchString(strings.TrimSpace(k)) {
			return strings.TrimSpace(k), strings.TrimSpace(v), true
		}
	}
	return "", "", false
}

// trimKey strips the colon and emphasis marks around a printed key.
func trimKey(k string) string {
	return collapse(strings.Trim(collapse(k), ":：*_ "))
}

// field records one metadata pair, except the launch command, which is
// kept apart so the builder can parse and redact it.
func (a *assembler) field(section, key, value string, line int) {
	if nk := normKey(key); nk == "launch command" || nk == "command" || nk == "launch" {
		if a.doc.Launch == "" {
			a.doc.Launch, a.doc.LaunchLine = value, line
		}
		return
	}
	a.doc.Fields = append(a.doc.Fields, rawField{Section: section, Key: key, Value: value, Line: line})
}

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

// Figures inside cells and cards. A number is printed with thousands
// commas and an optional K; a latency with ms or s.
const numPat = `[0-9][0-9,]*(?:\.[0-9]+)?`

var (
	// tokSRe is a throughput: "55K", "325.2", "325.2 tok/s".
	tokSRe = regexp.MustCompile(`(?i)^(` + numPat + `\s*[KM]?)\s*(?:tok/s|tokens/s|tok/sec|t/s|tps)?(?:\s*total)?$`)
	// ttftRe is a time to first token: "149 ms", "149 ms TTFT", "TTFT 149 ms".
	ttftRe = regexp.MustCompile(`(?i)^(?:ttft[:\s]*)?(` + numPat + `\s*(?:ms|s))(?:\s*ttft)?$`)
	// labelRe is a unit or caption printed on its own.
	labelRe = regexp.MustCompile(`(?i)^(?:prompt\s+)?(?:tok/s|tokens/s|tok/sec|t/s|tps|ms|s|ttft|ms ttft|s ttft|total tok/s|throughput|time to first token)$`)
	// sepRe splits one printed text into figures: "325.2 · 41 ms",
	// "55K tok/s, 149 ms TTFT", "325.2 / 41 ms", "325.2 (41 ms)".
	sepRe = regexp.MustCompile(`\s*[·•|;()\[\]]\s*|\s+/\s+|,\s+|\s+[–—-]\s+`)
	// dashRe is a figure printed as missing.
	dashRe = regexp.MustCompile(`^(?:—|–|-|n/a|N/A)$`)
	// ctxRe is a prefill label, "8K context", possibly followed by its
	// figures ("8K context: 55K tok/s, 149 ms TTFT").
	ctxRe = regexp.MustCompile(`(?i)^(` + numPat + `\s*[KM]?)\s*context\b[\s:：—–-]*(.*)$`)
)

// bareRe is a figure without a unit: "55K", "8K", "325.2".
var bareRe = regexp.MustCompile(`^` + numPat + `\s*[KkMm]?$`)

// tokens splits pieces into figures: on separators, dropping blanks and
// joining a unit printed in an element of its own to the bare figure
// before it ("41" + "ms").
func tokens(pieces []string) []string {
	var out []string
	for _, p := range pieces {
		for _, t := range sepRe.Split(p, -1) {
			t = collapse(t)
			if x := strings.Trim(t, " :：—–-,"); x != "" && x != t && !dashRe.MatchString(t) {
				t = x // "— 55K tok/s" after a label, "55K," before the next figure
			}
			if t == "" {
				continue
			}
			if labelRe.MatchString(t) && len(out) > 0 && bareRe.MatchString(out[len(out)-1]) {
				out[len(out)-1] += " " + t
				continue
			}
			out = append(out, t)
		}
	}
	return out
}

// splitCell reads a matrix cell printed in pieces: tok/s and TTFT when
// they are told apart, else the cell's text as Glued (a status such as
// "Looped", or figures run together, which the builder splits).
func splitCell(pieces []string) (tokS, ttft, glued string) {
	ts := tokens(pieces)
	if len(ts) == 1 && dashRe.MatchString(ts[0]) {
		return "", "", ts[0] // "—": nothing measured; the builder reads it as null
	}
	var words []string
	for _, t := range ts {
		switch {
		case labelRe.MatchString(t):
		case ttft == "" && len(ts) > 1 && ttftRe.MatchString(t):
			ttft = strings.TrimSpace(ttftRe.FindStringSubmatch(t)[1])
		case tokS == "" && tokSRe.MatchString(t):
			tokS = strings.TrimSpace(tokSRe.FindStringSubmatch(t)[1])
		case dashRe.MatchString(t):
			if tokS == "" {
				tokS = t
			} else if ttft == "" {
				ttft = t
			}
		default:
			words = append(words, t)
		}
	}
	switch {
	case tokS == "" && ttft == "" && len(words) > 0 && !strings.ContainsAny(words[0], "0123456789"):
		// A status ("Looped", "Over capacity"), maybe with an explanation
		// after it.
		return "", "", words[0]
	case tokS == "":
		// Nothing told apart, or only a latency-looking figure: tok/s and
		// TTFT ran together ("325.241 ms TTFT"); the builder splits it
		// the way that agrees with the full table.
		return "", "", collapse(strings.Join(ts, " "))
	}
	return tokS, ttft, ""
}

// scanPrefill reads prefill figures from the pieces of the Prefill
// section in order: each "8K context" label starts a figure, and the
// throughput and TTFT after it (told apart by their units) fill it.
// Cards, list items, definition lists and lines all print the same
// sequence, so one scan reads them all.
func scanPrefill(ps []piece) []rawPrefill {
	type tok struct {
		text string
		line int
	}
	var ts []tok
	for _, p := range ps {
		for _, t := range tokens([]string{p.Text}) {
			ts = append(ts, tok{t, p.Line})
		}
	}
	// A "context" printed apart from its figure ("<b>8K</b> context", or
	// a "Context" label above "8K") joins the figure: the one before it
	// when the first such word follows a figure, else the one after it.
	isCtxWord := func(t string) bool { nk := normKey(t); return nk == "context" || nk == "context length" }
	before := false
	for i, t := range ts {
		if isCtxWord(t.text) {
			before = i > 0 && bareRe.MatchString(ts[i-1].text)
			break
		}
	}
	joined := ts[:0:0]
	for i := 0; i < len(ts); i++ {
		t := ts[i]
		if !isCtxWord(t.text) {
			joined = append(joined, t)
			continue
		}
		switch {
		case before && len(joined) > 0 && bareRe.MatchString(joined[len(joined)-1].text):
			joined[len(joined)-1].text += " context"
		case !before && i+1 < len(ts) && bareRe.MatchString(ts[i+1].text):
			joined = append(joined, tok{ts[i+1].text + " context", ts[i+1].line})
			i++
		}
	}

	var out []rawPrefill
	var fill func(p *rawPrefill, t string)
	fill = func(p *rawPrefill, t string) {
		switch {
		case labelRe.MatchString(t):
		case p.TTFT == "" && ttftRe.MatchString(t):
			p.TTFT = strings.TrimSpace(ttftRe.FindStringSubmatch(t)[1])
		case p.TokS == "" && tokSRe.MatchString(t):
			p.TokS = strings.TrimSpace(tokSRe.FindStringSubmatch(t)[1])
		case p.TokS == "" && p.TTFT == "" && p.Glued == "" && strings.ContainsAny(t, "0123456789"):
			p.Glued = t
		case p.TokS == "" && p.TTFT == "" && p.Glued == "":
			if _, ok := parseStatus(t); ok {
				p.Glued = t // a cell printed as its status ("Error")
			}
		}
	}
	for _, t := range joined {
		if m := ctxRe.FindStringSubmatch(t.text); m != nil {
			out = append(out, rawPrefill{Context: strings.ReplaceAll(m[1], " ", ""), Line: t.line})
			for _, r := range tokens([]string{m[2]}) {
				fill(&out[len(out)-1], r)
			}
			continue
		}
		if len(out) > 0 {
			fill(&out[len(out)-1], t.text)
		}
	}
	for i := range out {
		p := &out[i]
		if p.TokS == "" && p.TTFT != "" && p.Glued == "" {
			// Only a latency-looking figure: tok/s and TTFT may have run
			// together ("9,756149 ms"); let the builder split it against
			// the full table.
			p.Glued, p.TTFT = p.TTFT, ""
		}
	}
	return out
}
