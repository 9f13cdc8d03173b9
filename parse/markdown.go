package parse

import (
	"bytes"
	"strings"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	east "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
	"golang.org/x/net/html"

	"speedmatrix/schema"
)

func init() { extractors[schema.FormatMarkdown] = extractMarkdown }

// markdown parses CommonMark with GFM tables; heading attributes ("##
// Hardware {#hw}") are read as attributes, not as part of the section
// name. goldmark's parser sets itself up once and keeps each document's
// state in a context of its own, so one serves concurrent calls
// (TestExtractConcurrently).
var markdown = goldmark.New(goldmark.WithExtensions(extension.Table, extension.Strikethrough),
	goldmark.WithParserOptions(parser.WithAttribute()))

// extractMarkdown reads the Markdown form of a speed-test matrix by
// walking goldmark's syntax tree (never by matching table lines with
// patterns): headings name the sections, lists and two-column tables hold
// the metadata, a code block the launch command, GFM tables the matrix
// and the full table. The same rules as the HTML form apply (assemble).
func extractMarkdown(b []byte, name string) (*rawDoc, error) {
	idx := newLineIndex(b)
	if err := mdGuard(b, name, idx); err != nil {
		return nil, err
	}
	w := &mdWalker{src: b, idx: idx}
	b = w.frontMatter(b)
	w.src = b
	root := markdown.Parser().Parse(text.NewReader(b))
	w.walk(root)
	return assemble(w.blocks, name, idx.count(), "a # heading")
}

// Bounds on what a line may hold before goldmark sees it. goldmark's
// time grows with the square of the unclosed link brackets on one line
// and of the depth of nested block quotes and lists (a 64 KiB line of
// "[a](" takes seconds), and no speed-test document comes near them.
const (
	mdMaxBrackets = 512 // "[" on one line
	mdMaxQuotes   = 32  // leading ">" on one line
	mdMaxIndent   = 256 // leading columns of white space
)

// mdGuard rejects input that would make goldmark slow, at the line that
// would.
func mdGuard(b []byte, name string, idx *lineIndex) error {
	start := 0
	for start <= len(b) {
		end := bytes.IndexByte(b[start:], '\n')
		if end < 0 {
			end = len(b)
		} else {
			end += start
		}
		line := b[start:end]
		if n := bytes.Count(line, []byte("[")); n > mdMaxBrackets {
			return errorf(name, idx.line(start), "%d link brackets on one line (more than %d): not a speed-test document", n, mdMaxBrackets)
		}
		quotes, cols := 0, 0
	prefix:
		for _, c := range line {
			switch c {
			case '>':
				quotes++
			case '-', '*', '+':
				// list markers; a thematic break of many dashes is fine
			case ' ':
				cols++
			case '\t':
				cols += 4
			default:
				break prefix
			}
		}
		if quotes > mdMaxQuotes || cols > mdMaxIndent {
			return errorf(name, idx.line(start), "nested %d block quotes deep, %d columns in (more than %d, %d): not a speed-test document", quotes, cols, mdMaxQuotes, mdMaxIndent)
		}
		start = end + 1
	}
	return nil
}

// frontMatter reads a YAML front matter block ("---" lines around
// "key: value" lines, as static site generators write) into lines of
// text, its title into the title heading, and returns b with the block
// blanked out (lines kept) so goldmark does not read "---" as a heading
// underline.
func (w *mdWalker) frontMatter(b []byte) []byte {
	rest := bytes.TrimPrefix(b, []byte("\ufeff"))
	if !bytes.HasPrefix(rest, []byte("---\n")) && !bytes.HasPrefix(rest, []byte("---\r\n")) {
		return b
	}
	start := len(b) - len(rest)
	off := start + bytes.IndexByte(rest, '\n') + 1
	for off < len(b) {
		end := bytes.IndexByte(b[off:], '\n')
		if end < 0 {
			end = len(b)
		} else {
			end += off
		}
		line := strings.TrimRight(string(b[off:end]), "\r")
		if line == "---" || line == "..." {
			out := append([]byte(nil), b...)
			for i := start; i < end; i++ {
				if out[i] != '\n' && out[i] != '\r' {
					out[i] = ' '
				}
			}
			return out
		}
		if k, v, ok := strings.Cut(line, ":"); ok && keyRe().MatchString(strings.TrimSpace(k)) {
			k, v = strings.TrimSpace(k), strings.Trim(strings.TrimSpace(v), `"'`)
			if strings.EqualFold(k, "title") {
				w.blocks = append(w.blocks, block{Kind: blockHeading, Level: 1, Text: v, Line: w.idx.line(off),
					Pieces: []piece{{v, w.idx.line(off)}}})
			} else if v != "" {
				w.blocks = append(w.blocks, block{Kind: blockText, Text: k + ": " + v, Line: w.idx.line(off),
					Pieces: []piece{{k + ": " + v, w.idx.line(off)}}})
			}
		}
		off = end + 1
	}
	w.blocks = nil // no closing line: not front matter
	return b
}

// mdWalker turns a goldmark tree into blocks.
type mdWalker struct {
	src    []byte
	idx    *lineIndex
	blocks []block
}

// line returns the source line of a node: its first line segment, its
// position, or that of its first descendant that has one.
func (w *mdWalker) line(n ast.Node) int {
	if n.Type() == ast.TypeBlock {
		if l := n.Lines(); l != nil && l.Len() > 0 {
			return w.idx.line(l.At(0).Start)
		}
	}
	if p := n.Pos(); p >= 0 {
		return w.idx.line(p)
	}
	if t, ok := n.(*ast.Text); ok {
		return w.idx.line(t.Segment.Start)
	}
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		if l := w.line(c); l > 0 {
			return l
		}
	}
	return 0
}

// walk reads the block children of n.
func (w *mdWalker) walk(n ast.Node) {
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		w.node(c)
	}
}

// node reads one block node.
func (w *mdWalker) node(c ast.Node) {
	switch c := c.(type) {
	case *ast.Heading:
		b := blockOf(toFrags(w.frags(c)), w.line(c), blockHeading)
		b.Level = c.Level
		w.blocks = append(w.blocks, b)
	case *ast.Paragraph, *ast.TextBlock:
		w.paragraph(c)
	case *ast.List:
		w.list(c)
	case *ast.FencedCodeBlock, *ast.CodeBlock:
		w.code(c)
	case *east.Table:
		w.table(c)
	case *ast.HTMLBlock:
		w.html(c)
	case *ast.ThematicBreak, *ast.LinkReferenceDefinition:
	default:
		w.walk(c)
	}
}

// paragraph appends each line of a paragraph as a line of text: pages
// write one pair or one figure per line ("**GPU:** H200", "8K context:
// 55K tok/s, 149 ms TTFT"). A line that is only a code span is code.
func (w *mdWalker) paragraph(n ast.Node) {
	fs := w.frags(n)
	start := 0
	for i := 0; i <= len(fs); i++ {
		if i < len(fs) && (i == start || !fs[i].br) {
			continue
		}
		if i == start {
			break
		}
		part := fs[start:i]
		start = i
		part[0].br = false
		if len(part) == 1 && part[0].code {
			w.blocks = append(w.blocks, block{Kind: blockCode, Text: strings.TrimSpace(part[0].text), Line: part[0].line})
			continue
		}
		if b := blockOf(toFrags(part), part[0].line, blockText); b.Text != "" {
			w.blocks = append(w.blocks, b)
		}
	}
}

// list reads list items: the first paragraph of an item is the item's
// text; nested lists, code and tables are read after it.
func (w *mdWalker) list(n *ast.List) {
	for it := n.FirstChild(); it != nil; it = it.NextSibling() {
		first := true
		for c := it.FirstChild(); c != nil; c = c.NextSibling() {
			switch c.(type) {
			case *ast.Paragraph, *ast.TextBlock:
				if first {
					first = false
					fs := toFrags(w.frags(c))
					if b := blockOf(fs, w.line(c), blockItem); b.Text != "" {
						w.blocks = append(w.blocks, b)
					}
					continue
				}
				w.paragraph(c)
			default:
				w.node(c)
			}
		}
	}
}

// code appends a fenced or indented code block, its text as printed.
func (w *mdWalker) code(n ast.Node) {
	var b strings.Builder
	lines := n.Lines()
	for i := 0; i < lines.Len(); i++ {
		seg := lines.At(i)
		b.Write(seg.Value(w.src))
	}
	if t := strings.TrimSpace(b.String()); t != "" {
		w.blocks = append(w.blocks, block{Kind: blockCode, Text: t, Line: w.line(n)})
	}
}

// table appends a GFM table: the header row and the data rows.
func (w *mdWalker) table(n *east.Table) {
	t := &table{Line: w.line(n)}
	for r := n.FirstChild(); r != nil; r = r.NextSibling() {
		var cells []cell
		for c := r.FirstChild(); c != nil; c = c.NextSibling() {
			if c.Lines().Len() == 0 {
				// goldmark pads a short row with cells that were never
				// printed; leave them out so a truncated row shows as one.
				continue
			}
			fs := toFrags(w.frags(c))
			cl := cell{Text: joinFrags(fs), Line: w.line(c)}
			for _, f := range fs {
				if s := collapse(f.text); s != "" {
					cl.Pieces = append(cl.Pieces, s)
				}
			}
			cells = append(cells, cl)
		}
		line := w.line(r)
		if line == 0 && len(cells) > 0 {
			line = cells[0].Line
		}
		if _, ok := r.(*east.TableHeader); ok {
			t.Header, t.HeaderLine = cells, line
			continue
		}
		t.Rows = append(t.Rows, row{Cells: cells, Line: line})
	}
	if t.Line == 0 {
		t.Line = t.HeaderLine
	}
	w.blocks = append(w.blocks, block{Kind: blockTable, Line: t.Line, Table: t})
}

// html reads a raw HTML block (a table or a list pasted into the
// Markdown) with the HTML extractor's walker, lines counted in the
// Markdown document.
func (w *mdWalker) html(n *ast.HTMLBlock) {
	lines := n.Lines()
	if lines.Len() == 0 {
		return
	}
	var src []byte
	for i := 0; i < lines.Len(); i++ {
		seg := lines.At(i)
		src = append(src, seg.Value(w.src)...)
	}
	if n.HasClosure() {
		cl := n.ClosureLine
		src = append(src, cl.Value(w.src)...)
	}
	first := lines.At(0)
	base := first.Start
	root, err := html.Parse(bytes.NewReader(annotateLinesAt(src, w.idx, base)))
	if err != nil {
		return
	}
	hw := &htmlWalker{}
	hw.walk(root)
	w.blocks = append(w.blocks, hw.blocks...)
}

// mdFrag is a fragment of Markdown inline text; code marks a code span.
type mdFrag struct {
	frag
	code bool
}

func toFrags(ms []mdFrag) []frag {
	out := make([]frag, len(ms))
	for i, m := range ms {
		out[i] = m.frag
	}
	return out
}

// frags returns the inline text of n split at every inline element
// (emphasis, code span, link, raw HTML tag) and line break. Backslash
// escapes and character references are resolved ("\|" in a table cell
// is "|", "&middot;" is "·"); code spans keep their text as printed.
func (w *mdWalker) frags(n ast.Node) []mdFrag {
	if t, ok := n.FirstChild().(*ast.Text); ok && t.NextSibling() == nil && !t.SoftLineBreak() && !t.HardLineBreak() {
		// One run of text, as most table cells are.
		s := string(t.Segment.Value(w.src))
		if !t.IsRaw() {
			s = unescapeMarkdown(t.Segment.Value(w.src))
		}
		if collapse(s) == "" {
			return nil
		}
		return []mdFrag{{frag: frag{text: s, line: w.idx.line(t.Segment.Start)}}}
	}
	var out []mdFrag
	var cur strings.Builder
	curLine, curTop, curElem := 0, 0, false
	br, space, pending := false, false, false
	emit := func() {
		if pending {
			out = append(out, mdFrag{frag: frag{text: cur.String(), line: curLine, top: curTop, elem: curElem, br: br, space: space}})
			br, space = false, false
		}
		cur.Reset()
		pending = false
	}
	add := func(s string, line, top int, elem bool) {
		if !pending {
			curLine, curTop, curElem = line, top, elem
		}
		cur.WriteString(s)
		pending = true
	}
	var visit func(c ast.Node, top int, elem bool)
	visit = func(c ast.Node, top int, elem bool) {
		switch c := c.(type) {
		case *ast.Text:
			v := c.Segment.Value(w.src)
			s := string(v)
			if !c.IsRaw() {
				s = unescapeMarkdown(v)
			}
			add(s, w.idx.line(c.Segment.Start), top, elem)
			if c.HardLineBreak() || c.SoftLineBreak() {
				emit()
				br = true
			}
		case *ast.String:
			add(string(c.Value), w.line(c), top, elem)
		case *ast.CodeSpan:
			emit()
			var b strings.Builder
			for t := c.FirstChild(); t != nil; t = t.NextSibling() {
				if tx, ok := t.(*ast.Text); ok {
					b.Write(tx.Segment.Value(w.src))
					if tx.SoftLineBreak() {
						b.WriteByte(' ')
					}
				}
			}
			out = append(out, mdFrag{frag: frag{text: b.String(), line: w.line(c), top: top, elem: true, br: br, space: space}, code: true})
			br, space = false, false
		case *ast.RawHTML:
			emit()
			var raw []byte
			for i := 0; i < c.Segments.Len(); i++ {
				seg := c.Segments.At(i)
				raw = append(raw, seg.Value(w.src)...)
			}
			if isBreakTag(raw) {
				br = true
			}
		case *ast.AutoLink:
			emit()
			add(string(c.Label(w.src)), w.line(c), top, true)
			emit()
		case *ast.Image:
		default:
			emit()
			for x := c.FirstChild(); x != nil; x = x.NextSibling() {
				visit(x, top, elem)
			}
			emit()
		}
	}
	i := 0
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		_, isText := c.(*ast.Text)
		_, isString := c.(*ast.String)
		visit(c, i, !isText && !isString)
		i++
	}
	emit()
	return dropBlank(out, func(m *mdFrag) *frag { return &m.frag })
}

// isBreakTag reports whether raw inline HTML is a line break tag.
func isBreakTag(raw []byte) bool {
	t := strings.ToLower(strings.Join(strings.Fields(string(raw)), ""))
	return t == "<br>" || t == "<br/>" || strings.HasPrefix(t, "<br") && strings.HasSuffix(t, ">") && len(t) > 3 && !isNameByte(t[3])
}

func isNameByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-'
}

// unescapeMarkdown resolves backslash escapes and character references
// in Markdown text, as a renderer would: "\|" is "|", "&nbsp;" a no-break
// space. An escaped "&" stays literal.
func unescapeMarkdown(v []byte) string {
	if bytes.IndexByte(v, '\\') < 0 && bytes.IndexByte(v, '&') < 0 {
		return string(v)
	}
	var b strings.Builder
	start := 0
	for i := 0; i < len(v); i++ {
		if v[i] == '\\' && i+1 < len(v) && isASCIIPunct(v[i+1]) {
			b.WriteString(html.UnescapeString(string(v[start:i])))
			b.WriteByte(v[i+1])
			i++
			start = i + 1
		}
	}
	b.WriteString(html.UnescapeString(string(v[start:])))
	return b.String()
}

func isASCIIPunct(c byte) bool {
	return c >= '!' && c <= '/' || c >= ':' && c <= '@' || c >= '[' && c <= '`' || c >= '{' && c <= '~'
}
