package render

import (
	"bytes"
	"io"
	"strings"

	"speedmatrix/schema"
)

// Markdown writes m as a GitHub-flavoured Markdown document: the title as
// "#", one "##" section per part of the page, key/value pairs as
// "- **Key:** value" items, the launch command in a fenced block, and the
// prefill figures, the decode matrix (tok/s and TTFT of a cell split by
// "<br>") and the full table as GFM tables.
func Markdown(w io.Writer, m *schema.Matrix) error {
	var b bytes.Buffer
	writeMarkdown(&b, newView(m))
	_, err := w.Write(b.Bytes())
	return err
}

func writeMarkdown(b *bytes.Buffer, v *view) {
	para := func(parts ...string) {
		for _, p := range parts {
			b.WriteString(p)
		}
		b.WriteString("\n\n")
	}
	para(mdEscape(kicker))
	para("# ", mdEscape(v.Title))
	switch head, tail := strings.Join(v.SubtitleHead, " · "), strings.Join(v.SubtitleTail, " · "); {
	case head != "" && tail != "" && v.SubtitleGlued:
		// Note: the two parts are two elements with nothing between them,
		// as on the page the seeds were flattened from: the engine part a
		// code span, whose box shows the boundary, so the line's text is
		// the seeds' subtitle ("INT45 contexts") and the run id of the
		// Markdown form is the text form's.
		para(mdCode(head), mdEscape(tail))
	case head != "" || tail != "":
		para(mdEscape(v.subtitle()))
	}
	serve := func() {
		if v.Serve == nil {
			return
		}
		para("## ", secServe)
		para(mdEscape(v.ServeCaption))
		mdTable(b, v.Serve)
		b.WriteByte('\n')
	}
	for i, s := range v.Sections {
		if i == v.ServeAt {
			serve()
		}
		if s.Name != "" { // pairs printed before any heading
			para("## ", mdEscape(s.Name))
		}
		for _, f := range s.Fields {
			b.WriteString("- **" + mdEscape(f.Key) + ":** " + mdEscape(f.Value) + "\n")
		}
		b.WriteByte('\n')
	}
	if v.ServeAt == len(v.Sections) {
		serve()
	}
	if v.Launch != "" {
		para("## ", secLaunch)
		fence := "```"
		for strings.Contains(v.Launch, fence) {
			fence += "`"
		}
		para(fence, "sh\n", v.Launch, "\n", fence)
	}
	if len(v.Prefill) > 0 {
		para("## ", secPrefill)
		para(mdEscape(prefillCap))
		mdRow(b, []string{gridCornerHdr, "Prompt tok/s", "TTFT"})
		mdRule(b, 3)
		for _, p := range v.Prefill {
			if p.Status != "" {
				mdRow(b, []string{p.Context, p.Status, ""})
				continue
			}
			mdRow(b, []string{p.Context, p.TokS, p.TTFT})
		}
		b.WriteByte('\n')
	}
	if g := v.Grid; g != nil {
		para("## ", secDecode)
		para(mdEscape(gridCap))
		mdRow(b, append([]string{gridCornerHdr}, g.Cols...))
		mdRule(b, len(g.Cols)+1)
		for _, r := range g.Rows {
			b.WriteString("| " + mdCell(r.Context) + " |")
			for _, c := range r.Cells {
				if c.Status != "" {
					b.WriteString(" " + mdCell(c.Status) + " |")
				} else {
					b.WriteString(" " + mdCell(c.TokS) + "<br>" + mdCell(c.TTFT) + " TTFT |")
				}
			}
			b.WriteByte('\n')
		}
		b.WriteByte('\n')
		for _, n := range v.GridNotes {
			para(mdEscape(n))
		}
		para(mdEscape(cacheNote))
	}
	para("## ", secAll)
	para(mdEscape(tableCap))
	mdTable(b, &v.Table)
	b.WriteByte('\n')
	for _, n := range v.TableNotes {
		para(mdEscape(n))
	}
	b.Truncate(b.Len() - 1) // one newline at the end, not a blank line
}

// mdCode writes s as a code span, with a fence longer than any run of
// backticks inside it.
func mdCode(s string) string {
	fence := "`"
	for strings.Contains(s, fence) {
		fence += "`"
	}
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") {
		s = " " + s + " "
	}
	return fence + s + fence
}

// mdTable writes t as a GFM table: header, rule, rows.
func mdTable(b *bytes.Buffer, t *table) {
	mdRow(b, t.Header)
	mdRule(b, len(t.Header))
	for _, r := range t.Rows {
		mdRow(b, r)
	}
}

func mdRow(b *bytes.Buffer, cells []string) {
	b.WriteByte('|')
	for _, c := range cells {
		b.WriteString(" " + mdCell(c) + " |")
	}
	b.WriteByte('\n')
}

func mdRule(b *bytes.Buffer, n int) {
	b.WriteByte('|')
	for range n {
		b.WriteString("---|")
	}
	b.WriteByte('\n')
}

// mdEscape escapes text so Markdown shows it literally: the inline
// punctuation that could start emphasis, code, links, HTML or an escape.
// An underscore inside a word ("ttft_p90_ms") cannot open emphasis and is
// left alone, for readability.
//
// Note: block markers ("#", "-", "1.") cannot occur at the start of our
// lines except where we put them, so they are not escaped.
func mdEscape(s string) string {
	if !strings.ContainsAny(s, "\\`*_[]<>") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch c {
		case '\\', '`', '*', '[', ']', '<', '>':
			b.WriteByte('\\')
		case '_':
			if i == 0 || i == len(s)-1 || !isWordByte(s[i-1]) || !isWordByte(s[i+1]) {
				b.WriteByte('\\')
			}
		}
		b.WriteByte(c)
	}
	return b.String()
}

func isWordByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c >= 0x80
}

// mdCell escapes text for a GFM table cell: inline punctuation, "|", and
// newlines, which would end the row.
func mdCell(s string) string {
	s = strings.ReplaceAll(mdEscape(s), "|", `\|`)
	return strings.ReplaceAll(s, "\n", " ")
}
