package parse

import (
	"strings"
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
