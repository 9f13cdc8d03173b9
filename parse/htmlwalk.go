package parse

// The walk of a parsed HTML page into blocks (headings, paragraphs,
// key/value pairs, lists, tables), each with the source line it came
// from; extractHTML (html.go) turns the blocks into a rawDoc.

import (
	"strconv"
	"strings"

	"github.com/PuerkitoBio/goquery"
	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// htmlWalker turns a parsed page into blocks.
type htmlWalker struct {
	blocks []block
}

// walk reads the children of a container: runs of inline content become
// lines of text, other elements are read by kind.
func (w *htmlWalker) walk(n *html.Node) {
	if w.pair(n) {
		return
	}
	var run []*html.Node
	flush := func() {
		if len(run) > 0 {
			w.lines(run, nodeLine(n))
			run = nil
		}
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		switch c.Type {
		case html.TextNode:
			run = append(run, c)
		case html.ElementNode:
			if skipped(c) {
				continue
			}
			if flowing(c) {
				run = append(run, c)
				continue
			}
			flush()
			w.element(c)
		case html.DocumentNode:
			w.walk(c)
		}
	}
	flush()
}

// pair reads a container of exactly two leaf elements and no text of its
// own ("<div><div>GPU</div><div>H200</div></div>") as two lines, the
// first marked as the key of the second.
func (w *htmlWalker) pair(n *html.Node) bool {
	if n.Type != html.ElementNode || inline(n) {
		return false
	}
	var kids []*html.Node
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		switch c.Type {
		case html.TextNode:
			if strings.TrimSpace(c.Data) != "" {
				return false
			}
		case html.ElementNode:
			if skipped(c) {
				continue
			}
			kids = append(kids, c)
		}
	}
	if len(kids) != 2 {
		return false
	}
	for _, k := range kids {
		switch k.DataAtom {
		case atom.Div, atom.P, atom.Dt, atom.Dd, atom.Header, atom.Footer:
		default:
			return false
		}
		for c := k.FirstChild; c != nil; c = c.NextSibling {
			if !flowing(c) {
				return false
			}
		}
		if collapse(textOf(k)) == "" {
			return false
		}
	}
	first := len(w.blocks)
	for _, k := range kids {
		w.one(childNodes(k), nodeLine(k), blockText)
	}
	if len(w.blocks) == first+2 {
		w.blocks[first].PairWithNext = true
	}
	return true
}

// element reads one block-level element.
func (w *htmlWalker) element(n *html.Node) {
	switch n.DataAtom {
	case atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6:
		b := w.inlineBlock(childNodes(n), nodeLine(n), blockHeading)
		b.Level = int(n.Data[1] - '0')
		w.blocks = append(w.blocks, b)
	case atom.Table:
		w.table(n)
	case atom.Pre:
		if t := strings.TrimSpace(strings.ReplaceAll(textOf(n), "\u00a0", " ")); t != "" {
			w.blocks = append(w.blocks, block{Kind: blockCode, Text: t, Line: nodeLine(n)})
		}
	case atom.Dl:
		w.dl(n)
	case atom.Ul, atom.Ol, atom.Menu:
		w.list(n)
	case atom.Li:
		w.item(n)
	case atom.Br, atom.Hr:
	default:
		w.walk(n)
	}
}

// spanAttr reads a colspan or rowspan attribute: 1 when absent or not a
// positive number, at most limit (the HTML limits).
func spanAttr(n *html.Node, key string, limit int) int {
	for _, a := range n.Attr {
		if a.Key == key {
			v, err := strconv.Atoi(strings.TrimSpace(a.Val))
			if err != nil || v < 1 {
				return 1
			}
			return min(v, limit)
		}
	}
	return 1
}

// childNodes returns the children of n.
func childNodes(n *html.Node) []*html.Node {
	var out []*html.Node
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		out = append(out, c)
	}
	return out
}

// textOf returns the text content of n, as goquery's Text.
func textOf(n *html.Node) string {
	return goquery.NewDocumentFromNode(n).Text()
}

// frags returns the text of nodes split at every element boundary.
// line is the line of the container, used until an element gives one.
func frags(nodes []*html.Node, line int) []frag {
	if len(nodes) == 1 && nodes[0].Type == html.TextNode {
		// One run of text, as most table cells are.
		if collapse(nodes[0].Data) == "" {
			return nil
		}
		return []frag{{text: nodes[0].Data, line: max(line, ownLine(nodes[0].Parent))}}
	}
	var out []frag
	var cur strings.Builder
	curLine, curTop, curElem := line, 0, false
	br, space := false, false
	pending := false // cur holds text not yet emitted
	emit := func() {
		if pending {
			out = append(out, frag{text: cur.String(), line: curLine, top: curTop, elem: curElem, br: br, space: space})
			br, space = false, false
		}
		cur.Reset()
		pending = false
	}
	var visit func(n *html.Node, top int, elem bool)
	visit = func(n *html.Node, top int, elem bool) {
		switch n.Type {
		case html.TextNode:
			if !pending {
				curTop, curElem = top, elem
				if l := ownLine(n.Parent); l > 0 && l > curLine {
					curLine = l
				}
			}
			cur.WriteString(n.Data)
			pending = true
		case html.ElementNode:
			if skipped(n) {
				return
			}
			emit()
			if l := ownLine(n); l > 0 {
				curLine = l
			}
			switch {
			case n.DataAtom == atom.Br:
				br = true
				return
			case !inline(n):
				space = true
			}
			for c := n.FirstChild; c != nil; c = c.NextSibling {
				visit(c, top, elem)
			}
			emit()
			if !inline(n) {
				space = true
			}
		}
	}
	for i, n := range nodes {
		visit(n, i, n.Type == html.ElementNode)
	}
	emit()
	return dropBlank(out, func(f *frag) *frag { return f })
}

// inlineBlock makes one block of a run of inline nodes.
func (w *htmlWalker) inlineBlock(nodes []*html.Node, line int, kind blockKind) block {
	return blockOf(frags(nodes, line), line, kind)
}

// one appends the run of nodes as a single block of the given kind.
func (w *htmlWalker) one(nodes []*html.Node, line int, kind blockKind) {
	b := w.inlineBlock(nodes, line, kind)
	if b.Text != "" {
		w.blocks = append(w.blocks, b)
	}
}

// lines appends a run of inline nodes as lines of text, split at <br>.
// A run that is a single code element is a code block.
func (w *htmlWalker) lines(nodes []*html.Node, line int) {
	if code := loneCode(nodes); code != nil {
		if t := strings.TrimSpace(strings.ReplaceAll(textOf(code), "\u00a0", " ")); t != "" {
			w.blocks = append(w.blocks, block{Kind: blockCode, Text: t, Line: nodeLine(code)})
		}
		return
	}
	fs := frags(nodes, line)
	start := 0
	for i := 0; i <= len(fs); i++ {
		if i < len(fs) && (i == start || !fs[i].br) {
			continue
		}
		if i == start {
			break
		}
		part := fs[start:i]
		part[0].br = false
		if b := blockOf(part, part[0].line, blockText); b.Text != "" {
			// "<b>GPU</b><br>H200 NVL": a key alone on its line, its
			// value on the next.
			b.PairWithNext = len(part) == 1 && part[0].elem && i < len(fs)
			w.blocks = append(w.blocks, b)
		}
		start = i
	}
}

// loneCode returns the code element when a run holds nothing else.
func loneCode(nodes []*html.Node) *html.Node {
	var code *html.Node
	for _, n := range nodes {
		switch {
		case n.Type == html.TextNode && collapse(n.Data) == "":
		case n.Type == html.CommentNode:
		case n.Type == html.ElementNode && skipped(n):
		case code == nil && n.Type == html.ElementNode &&
			(n.DataAtom == atom.Code || n.DataAtom == atom.Kbd || n.DataAtom == atom.Samp):
			code = n
		default:
			return nil
		}
	}
	return code
}

// dl reads a definition list: each dt and the dd after it are a pair.
func (w *htmlWalker) dl(n *html.Node) {
	var key *block
	flushKey := func() {
		if key != nil {
			w.blocks = append(w.blocks, *key)
			key = nil
		}
	}
	var visit func(n *html.Node)
	visit = func(n *html.Node) {
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			if c.Type != html.ElementNode || skipped(c) {
				continue
			}
			switch c.DataAtom {
			case atom.Dt:
				flushKey()
				b := w.inlineBlock(childNodes(c), nodeLine(c), blockKV)
				key = &b
			case atom.Dd:
				v := w.inlineBlock(childNodes(c), nodeLine(c), blockText)
				if key == nil {
					if v.Text != "" {
						w.blocks = append(w.blocks, v)
					}
					continue
				}
				key.Value = v.Text
				key.Pieces = append(key.Pieces, v.Pieces...)
				flushKey()
			case atom.Dl:
				flushKey()
				w.dl(c)
			default:
				visit(c) // <div> wrappers around dt/dd pairs
			}
		}
	}
	visit(n)
	flushKey()
}

// list reads the items of a list; anything else inside is walked.
func (w *htmlWalker) list(n *html.Node) {
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c.Type != html.ElementNode || skipped(c) {
			continue
		}
		if c.DataAtom == atom.Li {
			w.item(c)
		} else {
			w.element(c)
		}
	}
}

// item reads a list item: its own text is one block; lists, tables and
// code inside it are read after it.
func (w *htmlWalker) item(n *html.Node) {
	var own, nested []*html.Node
	// split reports whether n holds a list, table or pre.
	var split func(n *html.Node) bool
	split = func(n *html.Node) bool {
		if n.Type != html.ElementNode {
			return false
		}
		switch n.DataAtom {
		case atom.Ul, atom.Ol, atom.Dl, atom.Table, atom.Pre:
			return true
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			if split(c) {
				return true
			}
		}
		return false
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if split(c) {
			nested = append(nested, c)
		} else {
			own = append(own, c)
		}
	}
	w.one(own, nodeLine(n), blockItem)
	for _, c := range nested {
		switch c.DataAtom {
		case atom.Ul, atom.Ol, atom.Dl, atom.Table, atom.Pre:
			w.element(c)
		default:
			w.walk(c)
		}
	}
}

// table reads a table's rows. The header is the last row of thead, else
// the last of the leading rows made only of th cells, else the first row.
func (w *htmlWalker) table(n *html.Node) {
	type tr struct {
		n    *html.Node
		head bool
	}
	var trs []tr
	t := &table{Line: nodeLine(n)}
	var rows func(n *html.Node, head bool)
	rows = func(n *html.Node, head bool) {
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			if c.Type != html.ElementNode {
				continue
			}
			switch c.DataAtom {
			case atom.Tr:
				trs = append(trs, tr{c, head})
			case atom.Thead:
				rows(c, true)
			case atom.Tbody, atom.Tfoot:
				rows(c, head)
			case atom.Caption:
				t.Caption = joinFrags(frags(childNodes(c), nodeLine(c)))
			}
		}
	}
	rows(n, false)
	var all []row
	var allTH []bool
	lastHead := -1
	// carry holds, per column, a cell spanning down from a row above
	// (rowspan) and how many more rows it covers.
	type span struct {
		c    cell
		left int
	}
	var carry []span
	for i, r := range trs {
		var elems []*html.Node
		for c := r.n.FirstChild; c != nil; c = c.NextSibling {
			if c.Type == html.ElementNode && (c.DataAtom == atom.Td || c.DataAtom == atom.Th) {
				elems = append(elems, c)
			}
		}
		var cells []cell
		place := func() { // the cells carried into the next columns
			for len(cells) < len(carry) && carry[len(cells)].left > 0 {
				carry[len(cells)].left--
				cells = append(cells, carry[len(cells)].c)
			}
		}
		th := true
		for _, c := range elems {
			th = th && c.DataAtom == atom.Th
			fs := frags(childNodes(c), nodeLine(c))
			cl := cell{Text: joinFrags(fs), Line: nodeLine(c)}
			for _, f := range fs {
				if s := collapse(f.text); s != "" {
					cl.Pieces = append(cl.Pieces, s)
				}
			}
			cols, rows := spanAttr(c, "colspan", 1000), spanAttr(c, "rowspan", 65534)
			if len(elems) == 1 {
				cols = 1 // a group label across the table stays one cell
			}
			for k := 0; k < cols; k++ {
				place()
				col := len(cells)
				cells = append(cells, cl)
				if rows > 1 {
					for len(carry) <= col {
						carry = append(carry, span{})
					}
					carry[col] = span{cl, rows - 1}
				}
			}
		}
		place()
		all = append(all, row{Cells: cells, Line: nodeLine(r.n)})
		allTH = append(allTH, th && len(cells) > 0)
		if r.head {
			lastHead = i
		}
	}
	if lastHead < 0 {
		for i := range all {
			if !allTH[i] {
				break
			}
			lastHead = i
		}
	}
	if lastHead < 0 && len(all) > 0 {
		lastHead = 0
	}
	if lastHead < 0 {
		return
	}
	t.Header, t.HeaderLine = all[lastHead].Cells, all[lastHead].Line
	for i, r := range all {
		if i > lastHead || (i < lastHead && !trs[i].head && !allTH[i]) {
			t.Rows = append(t.Rows, r)
		}
	}
	w.blocks = append(w.blocks, block{Kind: blockTable, Line: t.Line, Table: t})
}
