package render

import (
	"bytes"
	"html"
	"io"
	"strings"

	"speedmatrix/schema"
)

// HTML writes m as a complete, self-contained HTML page (inline CSS, no
// script, nothing fetched): an h1 title, an h2 per section, key/value
// pairs as dl/dt/dd, the launch command in pre/code, the prefill figures
// as small cards, and the decode matrix and the full table as tables with
// header cells, each matrix cell holding its tok/s and TTFT in separate
// spans. A reader finds everything by heading and header text; the
// classes are for the style sheet only.
func HTML(w io.Writer, m *schema.Matrix) error {
	var b bytes.Buffer
	writeHTML(&b, newView(m))
	_, err := w.Write(b.Bytes())
	return err
}

// htmlStyle is the page's whole style sheet.
const htmlStyle = `body{font:15px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;color:#1b1f24;background:#fff;margin:0}
main{max-width:1200px;margin:0 auto;padding:24px}
.kicker{text-transform:uppercase;letter-spacing:.08em;font-size:12px;color:#57606a;margin:0}
h1{font-size:26px;margin:4px 0}
.subtitle{color:#57606a;margin:0 0 16px}
.subtitle span+span::before{content:" · "}
h2{font-size:18px;margin:28px 0 8px;border-bottom:1px solid #d0d7de;padding-bottom:4px}
.meta{display:flex;flex-wrap:wrap;gap:0 32px}
dl{display:grid;grid-template-columns:max-content auto;gap:2px 12px;margin:0}
dt{color:#57606a}dd{margin:0}
pre{background:#f6f8fa;padding:12px;overflow-x:auto;white-space:pre-wrap;word-break:break-all}
.cards{display:flex;flex-wrap:wrap;gap:8px}
.card{border:1px solid #d0d7de;border-radius:6px;padding:8px 12px;min-width:110px}
.card .ctx,.card .ttft{display:block;color:#57606a;font-size:13px}
.card .toks{display:block;font-size:20px;font-weight:600}
.caption{color:#57606a;margin:4px 0}
table{border-collapse:collapse;font-variant-numeric:tabular-nums}
th,td{border:1px solid #d0d7de;padding:4px 8px;text-align:right;white-space:nowrap}
th{background:#f6f8fa}
td.status{color:#9a6700;text-align:center}
.cell .toks{display:block;font-weight:600}
.cell .ttft{display:block;color:#57606a;font-size:12px}
.scroll{overflow-x:auto}
.note{color:#57606a;font-size:13px}
.serve{font-size:14px}
.serve th,.serve td{padding:3px 5px}
.serve thead th{white-space:normal;vertical-align:bottom}
`

func writeHTML(b *bytes.Buffer, v *view) {
	e := html.EscapeString
	w := func(parts ...string) {
		for _, p := range parts {
			b.WriteString(p)
		}
	}
	w("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n",
		"<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n",
		"<title>", e(v.Title), " · ", kicker, "</title>\n<style>\n", htmlStyle, "</style>\n</head>\n<body>\n<main>\n")
	w("<header>\n<p class=\"kicker\">", kicker, "</p>\n<h1>", e(v.Title), "</h1>\n")
	if len(v.SubtitleHead)+len(v.SubtitleTail) > 0 {
		// Note: two adjacent spans with no text between them, the style
		// sheet drawing the separator, as on the page the seeds were
		// flattened from: its text content is the seeds' subtitle line
		// ("INT45 contexts").
		w("<p class=\"subtitle\">")
		parts := [][]string{v.SubtitleHead, v.SubtitleTail}
		if !v.SubtitleGlued {
			parts = [][]string{{v.subtitle()}} // one element: its text has the separator
		}
		for _, part := range parts {
			if len(part) > 0 {
				w("<span>", e(strings.Join(part, " · ")), "</span>")
			}
		}
		w("</p>\n")
	}
	w("</header>\n")
	serve := func() {
		if v.Serve == nil {
			return
		}
		w("<section>\n<h2>", secServe, "</h2>\n<p class=\"caption\">", e(v.ServeCaption), "</p>\n<div class=\"scroll\">\n<table class=\"serve\">\n<thead><tr>")
		for _, h := range v.Serve.Header {
			w("<th>", e(h), "</th>")
		}
		w("</tr></thead>\n<tbody>\n")
		for _, r := range v.Serve.Rows {
			w("<tr><th>", e(r[0]), "</th><th>", e(r[1]), "</th>")
			for j, c := range r[2:] {
				if v.Serve.Header[2+j] == "Status" && c != StatusLabel(schema.StatusValid) {
					w("<td class=\"status\">", e(c), "</td>") // a failed load stands out
					continue
				}
				w("<td>", e(c), "</td>")
			}
			w("</tr>\n")
		}
		w("</tbody>\n</table>\n</div>\n</section>\n")
	}
	if v.ServeAt == 0 {
		serve()
	}
	if len(v.Sections) > 0 {
		w("<div class=\"meta\">\n")
		for i, s := range v.Sections {
			if i == v.ServeAt && i > 0 {
				// The pairs printed before any heading come first.
				w("</div>\n")
				serve()
				w("<div class=\"meta\">\n")
			}
			w("<section>\n")
			if s.Name != "" { // pairs printed before any heading
				w("<h2>", e(s.Name), "</h2>\n")
			}
			w("<dl>\n")
			for _, f := range s.Fields {
				w("<dt>", e(f.Key), "</dt><dd>", e(f.Value), "</dd>\n")
			}
			w("</dl>\n</section>\n")
		}
		w("</div>\n")
		if v.ServeAt == len(v.Sections) && v.ServeAt > 0 {
			serve()
		}
	}
	if v.Launch != "" {
		w("<section>\n<h2>", secLaunch, "</h2>\n<pre><code>", e(v.Launch), "</code></pre>\n</section>\n")
	}
	if len(v.Prefill) > 0 {
		w("<section>\n<h2>", secPrefill, "</h2>\n<p class=\"caption\">", e(prefillCap), "</p>\n<div class=\"cards\">\n")
		for _, p := range v.Prefill {
			if p.Status != "" {
				w("<div class=\"card\"><span class=\"ctx\">", e(p.Context), " context</span><span class=\"status\">", e(p.Status), "</span></div>\n")
				continue
			}
			w("<div class=\"card\"><span class=\"ctx\">", e(p.Context), " context</span><span class=\"toks\">",
				e(p.TokS), "</span><span class=\"ttft\">", e(p.TTFT), " TTFT</span></div>\n")
		}
		w("</div>\n</section>\n")
	}
	if g := v.Grid; g != nil {
		w("<section>\n<h2>", secDecode, "</h2>\n<p class=\"caption\">", e(gridCap), "</p>\n<div class=\"scroll\">\n<table>\n<thead><tr><th>", gridCornerHdr, "</th>")
		for _, c := range g.Cols {
			w("<th>", e(c), "</th>")
		}
		w("</tr></thead>\n<tbody>\n")
		for _, r := range g.Rows {
			w("<tr><th>", e(r.Context), "</th>")
			for _, c := range r.Cells {
				if c.Status != "" {
					w("<td class=\"status\">", e(c.Status), "</td>")
				} else {
					w("<td class=\"cell\"><span class=\"toks\">", e(c.TokS), "</span><span class=\"ttft\">", e(c.TTFT), " TTFT</span></td>")
				}
			}
			w("</tr>\n")
		}
		w("</tbody>\n</table>\n</div>\n")
		htmlNotes(b, v.GridNotes)
		w("<p class=\"note\">", e(cacheNote), "</p>\n</section>\n")
	}
	w("<section>\n<h2>", secAll, "</h2>\n<p class=\"caption\">", e(tableCap), "</p>\n<div class=\"scroll\">\n<table>\n<thead><tr>")
	for _, h := range v.Table.Header {
		w("<th>", e(h), "</th>")
	}
	w("</tr></thead>\n<tbody>\n")
	for _, r := range v.Table.Rows {
		w("<tr>")
		for _, c := range r {
			w("<td>", e(c), "</td>")
		}
		w("</tr>\n")
	}
	w("</tbody>\n</table>\n</div>\n")
	htmlNotes(b, v.TableNotes)
	w("</section>\n</main>\n</body>\n</html>\n")
}

// htmlNotes writes footnotes, one paragraph each.
func htmlNotes(b *bytes.Buffer, notes []string) {
	for _, n := range notes {
		b.WriteString("<p class=\"note\">" + html.EscapeString(n) + "</p>\n")
	}
}
