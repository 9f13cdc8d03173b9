package parse

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"regexp"

	"speedmatrix/schema"
)

// MaxDocumentBytes bounds how much of one input is read. Published
// matrices are a few KiB; the bound keeps a wrong file (a disk image, a
// log) from exhausting memory.
const MaxDocumentBytes = 64 << 20

// Formats lists the values Parse accepts for its format argument, besides
// "" (detect from content).
var Formats = append([]string{schema.FormatText, schema.FormatHTML, schema.FormatMarkdown}, PeerFormats...)

// Parse reads one speed-test document from r and returns it as a matrix.
// name is used in error messages and stored as the source path. format is
// one of Formats, or "" to detect it from the content. Errors about the
// content are *Error values positioned at a line.
func Parse(r io.Reader, name, format string) (*schema.Matrix, error) {
	b, err := io.ReadAll(io.LimitReader(r, MaxDocumentBytes+1))
	if err != nil {
		return nil, fmt.Errorf("%s: read: %w", name, err)
	}
	if len(b) > MaxDocumentBytes {
		return nil, errorf(name, 0, "larger than %d MiB: not a speed-test document", MaxDocumentBytes>>20)
	}
	return ParseBytes(b, name, format)
}

// ParseBytes is Parse for a document already in memory.
func ParseBytes(b []byte, name, format string) (*schema.Matrix, error) {
	if _, doc := extractors[format]; !doc {
		// Result files of other tools (JSON, JSON Lines, AIPerf CSV).
		m, ok, err := parsePeerFile(b, name, format)
		if err != nil {
			return nil, err
		}
		if ok {
			return finish(m, b, name, m.Run.SourceFormat), nil
		}
	}
	if format == "" {
		f, err := Detect(b)
		if err != nil {
			return nil, errorf(name, nulLine(b), "%v", err)
		}
		format = f
	}
	extract, ok := extractors[format]
	if !ok {
		return nil, fmt.Errorf("%s: unknown format %q (want one of %v)", name, format, Formats)
	}
	raw, err := extract(b, name)
	if err != nil {
		return nil, err
	}
	raw.Name, raw.Format = name, format
	m, err := build(raw)
	if err != nil {
		return nil, err
	}
	return finish(m, b, name, format), nil
}

// finish stamps a parsed matrix with its source and its content id.
func finish(m *schema.Matrix, b []byte, name, format string) *schema.Matrix {
	sum := sha256.Sum256(b)
	m.Run.SchemaVersion = schema.Version
	m.Run.SourcePath = name
	m.Run.SourceSHA256 = hex.EncodeToString(sum[:])
	m.Run.SourceFormat = format
	m.Run.RunID = schema.ComputeRunID(m)
	for i := range m.Measurements {
		m.Measurements[i].RunID = m.Run.RunID
	}
	return m
}

// nulLine is the line of the first NUL byte in the part of b Detect
// reads, or 0 when there is none (an empty document has no line).
func nulLine(b []byte) int {
	i := bytes.IndexByte(b[:min(len(b), 1<<16)], 0)
	if i < 0 {
		return 0
	}
	return 1 + bytes.Count(b[:i], []byte{'\n'})
}

// extractors maps a format to the function that pulls a rawDoc out of a
// document of that format. Each format's file registers itself in init
// (text.go, html.go, markdown.go), so formats are added without touching
// the dispatch.
var extractors = map[string]func(b []byte, name string) (*rawDoc, error){}

var (
	htmlTag      = regexp.MustCompile(`(?i)<(!doctype\s+html|html|head|body|h[1-6]|table|div|section|article|main|p|dl|ul)[\s>]`)
	mdHeading    = regexp.MustCompile(`(?m)^ {0,3}#{1,6}[ \t]+\S`)
	mdBoldKey    = regexp.MustCompile(`(?m)^ {0,3}[-*+][ \t]+\*\*[^*\n]+\*\*`)
	mdFence      = regexp.MustCompile("(?m)^ {0,3}(```|~~~)")
	mdSetextHead = regexp.MustCompile(`(?m)^\S.*\n(=+|-{3,})[ \t]*$`)
)

// firstLine returns b up to its first newline.
func firstLine(b []byte) []byte {
	if i := bytes.IndexByte(b, '\n'); i >= 0 {
		return b[:i]
	}
	return b
}

// Detect tells the format of a document from its content: HTML when it
// holds HTML elements, Markdown when it has ATX headings, bold list keys or
// fenced blocks, else the flattened text of the seeds.
//
// Note: the text form contains GFM-looking table lines too (the page's
// tables were flattened that way), so tables alone do not mean Markdown.
func Detect(b []byte) (string, error) {
	head := b
	if len(head) > 1<<16 {
		head = head[:1<<16]
	}
	t := bytes.TrimLeft(head, "\ufeff \t\r\n")
	if len(t) == 0 {
		return "", fmt.Errorf("empty document")
	}
	if bytes.IndexByte(head, 0) >= 0 {
		return "", fmt.Errorf("binary data (NUL bytes): not a speed-test document")
	}
	switch {
	case t[0] == '<':
		return schema.FormatHTML, nil
	case mdHeading.Match(firstLine(t)):
		// A document that opens with a Markdown heading is Markdown even
		// when it embeds HTML (a raw <table>, a <div> wrapper).
		return schema.FormatMarkdown, nil
	case htmlTag.Match(head):
		return schema.FormatHTML, nil
	case mdHeading.Match(head) || mdBoldKey.Match(head) || mdFence.Match(head) || mdSetextHead.Match(head):
		return schema.FormatMarkdown, nil
	}
	return schema.FormatText, nil
}
