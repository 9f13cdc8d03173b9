package render

import (
	"bytes"
	"io"
	"strings"

	"speedmatrix/schema"
)

// Text writes m as the seeds' flattened text: the page's headings, key
// and value lines and tables with no separator where the page had an
// element boundary ("INT45 contexts", "325.241 ms TTFT", a table header
// glued onto its caption), and no newline at the end. For a matrix parsed
// from a seed the output is the seed, byte for byte.
func Text(w io.Writer, m *schema.Matrix) error {
	var b bytes.Buffer
	writeText(&b, newView(m))
	_, err := w.Write(b.Bytes())
	return err
}

func writeText(b *bytes.Buffer, v *view) {
	line := func(parts ...string) {
		for _, p := range parts {
			b.WriteString(p)
		}
		b.WriteByte('\n')
	}
	line(kicker)
	line(v.Title)
	if sub := v.subtitle(); sub != "" {
		line(sub)
	}
	serve := func() {
		if v.Serve == nil {
			return
		}
		line(secServe)
		b.WriteString(v.ServeCaption) // glued to the header, as the seeds' captions are
		textTable(b, v.Serve)
	}
	for i, s := range v.Sections {
		if i == v.ServeAt {
			serve()
		}
		if s.Name != "" { // pairs printed before any heading
			line(s.Name)
		}
		for _, f := range s.Fields {
			line("- ", f.Key)
			if f.Key == "Commit" {
				line(f.Value) // the seeds print the commit without a dash
			} else {
				line("- ", f.Value)
			}
		}
	}
	if v.ServeAt == len(v.Sections) {
		serve()
	}
	if v.Launch != "" {
		line(secLaunch)
		line(v.Launch)
	}
	if len(v.Prefill) > 0 {
		line(secPrefill)
		b.WriteString(prefillCap)
		for _, p := range v.Prefill {
			if p.Status != "" {
				line(p.Context, " context", p.Status)
				continue
			}
			line(p.Context, " context", p.TokS, p.TTFT, " TTFT")
		}
	}
	if g := v.Grid; g != nil {
		line(secDecode)
		b.WriteString(gridCap)
		textRow(b, append([]string{gridCornerHdr}, g.Cols...))
		textRule(b, len(g.Cols)+1)
		for _, r := range g.Rows {
			cells := []string{r.Context}
			for _, c := range r.Cells {
				if c.Status != "" {
					cells = append(cells, c.Status)
				} else {
					cells = append(cells, c.TokS+c.TTFT+" TTFT")
				}
			}
			textRow(b, cells)
		}
		if len(v.GridNotes) > 0 {
			line(strings.Join(v.GridNotes, " "))
		}
		line(cacheNote)
	}
	line(secAll)
	b.WriteString(tableCap)
	textTable(b, &v.Table)
	if len(v.TableNotes) > 0 {
		b.WriteString(strings.Join(v.TableNotes, " "))
	} else {
		b.Truncate(b.Len() - 1) // the seeds end without a newline
	}
}

// textTable writes t's header, its rule and its rows.
func textTable(b *bytes.Buffer, t *table) {
	textRow(b, t.Header)
	textRule(b, len(t.Header))
	for _, r := range t.Rows {
		textRow(b, r)
	}
}

// textRow writes "| a | b |\n". A "|" inside a cell is escaped as in GFM.
func textRow(b *bytes.Buffer, cells []string) {
	b.WriteByte('|')
	for _, c := range cells {
		b.WriteByte(' ')
		b.WriteString(strings.ReplaceAll(c, "|", `\|`))
		b.WriteString(" |")
	}
	b.WriteByte('\n')
}

// textRule writes the "|---|---|" line under a header of n cells.
func textRule(b *bytes.Buffer, n int) {
	b.WriteByte('|')
	for range n {
		b.WriteString("---|")
	}
	b.WriteByte('\n')
}
