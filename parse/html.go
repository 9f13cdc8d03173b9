package parse

import (
	"bytes"
	"strconv"

	"github.com/PuerkitoBio/goquery"
	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	"speedmatrix/schema"
)

func init() { extractors[schema.FormatHTML] = extractHTML }

// lineAttr is the attribute annotateLines adds to every start tag: the
// 1-based source line of the tag.
const lineAttr = "data-sm-line"

// extractHTML reads the page a speed-test matrix is published as. The
// page is read by its structure, never by CSS class, id or position:
// headings name the sections, header cells name the tables (see
// assemble); wrappers, attributes, entities, comments and white space do
// not matter.
func extractHTML(b []byte, name string) (*rawDoc, error) {
	idx := newLineIndex(b)
	root, err := html.Parse(bytes.NewReader(annotateLines(b, idx)))
	if err != nil {
		return nil, errorf(name, 0, "not readable as HTML: %v", err)
	}
	doc := goquery.NewDocumentFromNode(root)
	w := &htmlWalker{}
	for _, n := range doc.Nodes {
		w.walk(n)
	}
	if !hasHeading(w.blocks) {
		// A page without headings: its <title> names the document.
		if t := doc.Find("title").First(); t.Length() > 0 && collapse(t.Text()) != "" {
			title := collapse(t.Text())
			line := nodeLine(t.Nodes[0])
			w.blocks = append([]block{{Kind: blockHeading, Level: 1, Text: title, Line: line, Pieces: []piece{{title, line}}}}, w.blocks...)
		}
	}
	return assemble(w.blocks, name, idx.count(), "an h1 heading")
}

// hasHeading reports whether any block is a heading.
func hasHeading(blocks []block) bool {
	for _, b := range blocks {
		if b.Kind == blockHeading {
			return true
		}
	}
	return false
}

// annotateLines returns b with a data-sm-line="N" attribute added to every
// start tag, N the tag's 1-based line in b.
//
// Note: html.Parse keeps no positions, so the tokenizer (the same rules
// the parser uses, including raw text in script, style, title and
// textarea) finds the tags first; everything else is copied byte for
// byte. An attribute of the same name already in the document comes
// after ours, and the first one wins.
func annotateLines(b []byte, idx *lineIndex) []byte {
	return annotateLinesAt(b, idx, 0)
}

// annotateLinesAt is annotateLines for HTML that starts at byte offset
// base of the document idx indexes (an HTML block inside Markdown).
func annotateLinesAt(b []byte, idx *lineIndex, base int) []byte {
	out := make([]byte, 0, len(b)+len(b)/4+64)
	z := html.NewTokenizer(bytes.NewReader(b))
	off := 0
	for {
		tt := z.Next()
		if tt == html.ErrorToken {
			break
		}
		raw := z.Raw()
		if tt == html.StartTagToken || tt == html.SelfClosingTagToken {
			i := 1
			for i < len(raw) && !isHTMLSpace(raw[i]) && raw[i] != '/' && raw[i] != '>' {
				i++
			}
			out = append(out, raw[:i]...)
			out = append(out, ' ')
			out = append(out, lineAttr...)
			out = append(out, '=', '"')
			out = strconv.AppendInt(out, int64(idx.line(base+off)), 10)
			out = append(out, '"')
			out = append(out, raw[i:]...) // "/>" may follow a quoted value directly
		} else {
			out = append(out, raw...)
		}
		off += len(raw)
	}
	if off < len(b) {
		out = append(out, b[off:]...)
	}
	return out
}

func isHTMLSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f'
}

// nodeLine returns the source line of n: its own data-sm-line, else that
// of its first annotated descendant (an element the parser implied, such
// as tbody), else that of its nearest annotated ancestor; 0 when none.
func nodeLine(n *html.Node) int {
	if l := ownLine(n); l > 0 {
		return l
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c.Type == html.ElementNode {
			if l := nodeLine(c); l > 0 {
				return l
			}
		}
	}
	for p := n.Parent; p != nil; p = p.Parent {
		if l := ownLine(p); l > 0 {
			return l
		}
	}
	return 0
}

func ownLine(n *html.Node) int {
	if n.Type != html.ElementNode {
		return 0
	}
	for _, a := range n.Attr {
		if a.Key == lineAttr && a.Namespace == "" {
			l, _ := strconv.Atoi(a.Val)
			return l
		}
	}
	return 0
}

// skipped reports whether an element holds nothing a reader sees as
// content: scripts, styles, form controls, graphics, hidden elements.
// Buttons stay: sortable tables put their header text in them.
func skipped(n *html.Node) bool {
	switch n.DataAtom {
	case atom.Head, atom.Script, atom.Style, atom.Template, atom.Noscript, atom.Title,
		atom.Select, atom.Input, atom.Textarea, atom.Svg, atom.Canvas,
		atom.Iframe, atom.Object, atom.Math, atom.Img:
		return true
	}
	for _, a := range n.Attr {
		if a.Key == "hidden" && a.Namespace == "" {
			return true
		}
	}
	return false
}

// inline reports whether an element flows inside a line of text.
func inline(n *html.Node) bool {
	switch n.DataAtom {
	case atom.A, atom.Abbr, atom.B, atom.Bdi, atom.Bdo, atom.Br, atom.Cite, atom.Code,
		atom.Data, atom.Dfn, atom.Em, atom.Font, atom.I, atom.Kbd, atom.Label, atom.Mark,
		atom.Q, atom.S, atom.Samp, atom.Small, atom.Span, atom.Strike, atom.Strong,
		atom.Sub, atom.Sup, atom.Time, atom.Tt, atom.U, atom.Var, atom.Wbr, atom.Del,
		atom.Ins, atom.Nobr, atom.Output, atom.Meter, atom.Progress, atom.Big, atom.Button:
		return true
	}
	return false
}

// flowing reports whether a node and everything in it is inline content.
func flowing(n *html.Node) bool {
	switch n.Type {
	case html.TextNode, html.CommentNode:
		return true
	case html.ElementNode:
		if skipped(n) {
			return true
		}
		if !inline(n) {
			return false
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			if !flowing(c) {
				return false
			}
		}
		return true
	}
	return false
}
