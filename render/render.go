package render

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"speedmatrix/schema"
)

// ByExtension returns the writer for a file name's extension: Text for
// .txt, Markdown for .md or .markdown, HTML for .html or .htm.
func ByExtension(path string) (func(io.Writer, *schema.Matrix) error, error) {
	ext := strings.ToLower(filepath.Ext(path))
	switch ext {
	case ".txt", ".text":
		return Text, nil
	case ".md", ".markdown":
		return Markdown, nil
	case ".html", ".htm":
		return HTML, nil
	}
	return nil, fmt.Errorf("render: %q: unknown document extension %q (want .txt, .md or .html)", path, ext)
}
