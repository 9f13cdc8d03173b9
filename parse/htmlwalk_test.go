package parse

import (
	"fmt"
	"strings"
	"testing"

	"golang.org/x/net/html"
)

// walkHTML runs the walker over page (line-annotated as extractHTML does)
// and prints each block as "kind line text[=value]" (tables as their
// header and rows), one per line.
func walkHTML(t *testing.T, page string) string {
	t.Helper()
	idx := newLineIndex([]byte(page))
	root, err := html.Parse(strings.NewReader(string(annotateLines([]byte(page), idx))))
	if err != nil {
		t.Fatal(err)
	}
	w := &htmlWalker{}
	w.walk(root)
	var out []string
	for _, b := range w.blocks {
		s := fmt.Sprintf("%d %d %s", b.Kind, b.Line, b.Text)
		if b.Kind == blockKV {
			s += "=" + b.Value
		}
		if b.Table != nil {
			var hs []string
			for _, h := range b.Table.Header {
				hs = append(hs, h.Text)
			}
			s += "[" + strings.Join(hs, "|") + "]"
			for _, r := range b.Table.Rows {
				var cs []string
				for _, c := range r.Cells {
					cs = append(cs, c.Text)
				}
				s += fmt.Sprintf(" %d:%s", r.Line, strings.Join(cs, "|"))
			}
		}
		out = append(out, s)
	}
	return strings.Join(out, "\n")
}

// TestHTMLWalk: each element kind becomes its block with the line it
// starts on, whitespace collapsed; scripts and styles are skipped.
func TestHTMLWalk(t *testing.T) {
	for _, c := range []struct {
		name, page, want string
	}{
		{"heading and paragraph",
			"<h1>Qwen on 1× H200</h1>\n<p>Decode  test:\n  sustained</p>",
			"0 1 Qwen on 1× H200\n1 2 Decode test: sustained"},
		{"definition list pairs",
			"<dl>\n<dt>GPU</dt><dd>H200</dd>\n<dt>VRAM</dt>\n<dd>141 GB</dd>\n</dl>",
			"3 2 GPU=H200\n3 3 VRAM=141 GB"},
		{"list items",
			"<ul>\n<li>one</li>\n<li>two <b>bold</b></li>\n</ul>",
			"2 2 one\n2 3 two bold"},
		{"table with its rows' lines",
			"<table>\n<tr><th>Context</th><th>tok/s</th></tr>\n<tr><td>8K</td><td>55K</td></tr>\n<tr><td>16K</td><td>41K</td></tr>\n</table>",
			"5 1 [Context|tok/s] 3:8K|55K 4:16K|41K"},
		{"script and style skipped",
			"<style>h1{}</style><script>var x</script>\n<h2>Run</h2>",
			"0 2 Run"},
		{"code keeps its whitespace",
			"<pre>vllm serve m \\\n  --tp 2</pre>",
			"4 1 vllm serve m \\\n  --tp 2"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := walkHTML(t, c.page); got != c.want {
				t.Errorf("blocks:\n%s\nwant:\n%s", got, c.want)
			}
		})
	}
}
