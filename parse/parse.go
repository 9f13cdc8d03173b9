package parse

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"regexp"
	"strings"

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
// content are *Error values positioned at a line. A result file that holds
// several runs is an error here: ParseAll reads them all.
func Parse(r io.Reader, name, format string) (*schema.Matrix, error) {
	ms, err := ParseAll(r, name, format)
	if err != nil {
		return nil, err
	}
	return single(ms, name)
}

// ParseAll is Parse for files that may hold several runs: an appended
// vLLM or SGLang result file whose results differ in model or
// configuration (--metadata pairs, output length) holds a run for each,
// in order of first appearance. Documents hold one.
func ParseAll(r io.Reader, name, format string) ([]*schema.Matrix, error) {
	b, err := readAll(r)
	if err != nil {
		return nil, fmt.Errorf("%s: read: %w", name, err)
	}
	if len(b) > MaxDocumentBytes {
		return nil, errorf(name, 0, "larger than %d MiB: not a speed-test document", MaxDocumentBytes>>20)
	}
	return ParseAllBytes(b, name, format)
}

// single returns the one run of ms, or an error naming the runs.
func single(ms []*schema.Matrix, name string) (*schema.Matrix, error) {
	if len(ms) == 1 {
		return ms[0], nil
	}
	titles := make([]string, len(ms))
	for i, m := range ms {
		titles[i] = m.Run.Title
	}
	line := 0
	if len(ms) > 1 && len(ms[1].Measurements) > 0 {
		line = int(ms[1].Measurements[0].SourceLine)
	}
	return nil, errorf(name, line, "holds %d runs (%s): ingest it, then choose one by run id or metadata", len(ms), strings.Join(titles, "; "))
}

// readAll reads r up to MaxDocumentBytes+1 bytes. A reader that knows its
// size (an *os.File of a regular file) is read into a buffer of that size
// with room for the final empty read: two read calls per document rather
// than io.ReadAll's growth from 512 bytes (five or six calls and copies
// for a seed), which showed in profiles of ingesting 1,000 documents.
func readAll(r io.Reader) ([]byte, error) {
	size := int64(bytes.MinRead)
	if s, ok := r.(interface{ Stat() (fs.FileInfo, error) }); ok {
		if fi, err := s.Stat(); err == nil && fi.Mode().IsRegular() {
			size = min(fi.Size(), MaxDocumentBytes) + bytes.MinRead
		}
	}
	buf := bytes.NewBuffer(make([]byte, 0, size))
	_, err := buf.ReadFrom(io.LimitReader(r, MaxDocumentBytes+1))
	return buf.Bytes(), err
}

// ParseBytes is Parse for a document already in memory.
func ParseBytes(b []byte, name, format string) (*schema.Matrix, error) {
	ms, err := ParseAllBytes(b, name, format)
	if err != nil {
		return nil, err
	}
	return single(ms, name)
}

// ParseAllBytes is ParseAll for a file already in memory.
//
// Note: a reader that panics on some input is a bug, but it must cost only
// that document: the panic becomes a positioned *Error (line 0: the reader
// did not say where), so a caller ingesting many documents skips this one
// and keeps the others.
func ParseAllBytes(b []byte, name, format string) (ms []*schema.Matrix, err error) {
	defer func() {
		if p := recover(); p != nil {
			ms, err = nil, redactError(errorf(name, 0, "internal error reading this document (please report it with the file): %v", p))
		}
	}()
	return parseAllBytes(b, name, format)
}

// parseAllBytes is ParseAllBytes without the recovery.
func parseAllBytes(b []byte, name, format string) ([]*schema.Matrix, error) {
	ms, _, err := parseAllStream(b, name, format, false, false, nil, nil)
	return ms, err
}

// parseAllStream is parseAllBytes that, when stream is set, reads the
// measurements of a document of more than streamRows rows in pieces: the
// matrix comes without them and rows reads them again (see Rows). owned
// says that nothing writes to b again: a text document's lines are then
// substrings of b itself (extractOwnedText). The matrix's measurements
// are in rc's memory (see Recycler).
//
// Every matrix it returns passed admit (trust.go): redacted and its
// figures checked; every error's text is redacted.
func parseAllStream(b []byte, name, format string, owned, stream bool, see func([]schema.Measurement), rc *Recycler) ([]*schema.Matrix, *Rows, error) {
	ms, rows, err := parseAdmitted(b, name, format, owned, stream, see, rc)
	if err != nil {
		// An error may quote a value without its key: the document's own
		// secret values are known to the redaction of its errors.
		err = redactErrorOf(err, b)
	}
	return ms, rows, err
}

// parseAdmitted is parseAllStream with the error texts as made.
func parseAdmitted(b []byte, name, format string, owned, stream bool, see func([]schema.Measurement), rc *Recycler) ([]*schema.Matrix, *Rows, error) {
	if _, doc := extractors[format]; !doc {
		// Result files of other tools (JSON, JSON Lines, AIPerf CSV).
		ms, ok, err := parsePeerFile(b, name, format)
		if err != nil {
			return nil, nil, err
		}
		if ok {
			for _, m := range ms {
				if err := admit(m, name, true); err != nil {
					return nil, nil, err
				}
				finish(m, b, name, m.Run.SourceFormat)
			}
			return ms, nil, nil
		}
	}
	if format == "" {
		f, err := Detect(b)
		if err != nil {
			return nil, nil, errorf(name, nulLine(b), "%v", err)
		}
		format = f
	}
	extract, ok := extractors[format]
	if !ok {
		return nil, nil, fmt.Errorf("%s: unknown format %q (want one of %v)", name, format, Formats)
	}
	// The source's hash first: the rest reads the document's text only
	// (see extractText), so b can go while a large one is read.
	sum := sha256.Sum256(b)
	sc := getScratch()
	var raw *rawDoc
	var err error
	switch {
	case format == schema.FormatText && owned:
		raw, err = extractOwnedText(b, name, sc)
	case format == schema.FormatText:
		raw, err = extractTextOf(string(b), name, sc)
	default:
		raw, err = extract(b, name)
	}
	if err != nil {
		sc.release()
		return nil, nil, err
	}
	raw.Name, raw.Format = name, format
	if stream && len(raw.Table.Rows) > streamRows {
		// rows reads raw again: sc goes with it, not back to the pool.
		m, rows, err := buildStream(raw, see)
		if err != nil {
			return nil, nil, err
		}
		stamp(m, sum, name, format)
		m.Run.RunID = rows.id
		return []*schema.Matrix{m}, rows, nil
	}
	sc.slabs = rc.take()
	m, err := build(raw, sc)
	slabs := sc.slabs
	sc.slabs = nil
	sc.release() // nothing of raw is read again
	if err != nil {
		rc.put(slabs) // nothing reads the rows
		return nil, nil, err
	}
	rc.hold(m, slabs)
	if err := admit(m, name, false); err != nil {
		return nil, nil, err
	}
	stamp(m, sum, name, format)
	return []*schema.Matrix{identify(m)}, nil, nil
}

// stamp sets a parsed matrix's source: its path, hash and format.
func stamp(m *schema.Matrix, sum [sha256.Size]byte, name, format string) {
	m.Run.SchemaVersion = schema.Version
	m.Run.SourcePath = name
	m.Run.SourceSHA256 = hex.EncodeToString(sum[:])
	m.Run.SourceFormat = format
}

// finish stamps a parsed matrix with its source and its content id.
func finish(m *schema.Matrix, b []byte, name, format string) *schema.Matrix {
	stamp(m, sha256.Sum256(b), name, format)
	return identify(m)
}

// identify sets the run id of a parsed matrix and of its measurements.
func identify(m *schema.Matrix) *schema.Matrix {
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

// What Detect looks for, as patterns anchored at the start of the text:
// an HTML element, an ATX heading, a bold list key, a fence, a setext
// underline. Detect runs them only where a cheap scan finds a candidate
// (a "<", a line starting with "#", "- **", "```" or "~~~", a line above
// "=" or "---"), so that a text document, which has none, is not searched
// five times by backtracking regexps: that was half the time of ingesting
// one. A match can only start at a candidate, so this finds what the
// unanchored patterns (detect_test.go keeps them) find anywhere: HTML
// (?i)<(!doctype\s+html|html|…)[\s>], and with (?m) ^ {0,3}#{1,6}[ \t]+\S,
// ^ {0,3}[-*+][ \t]+\*\*[^*\n]+\*\*, ^ {0,3}(```|~~~) and
// ^\S.*\n(=+|-{3,})[ \t]*$.
var (
	htmlTagAt      = regexp.MustCompile(`(?i)\A<(!doctype\s+html|html|head|body|h[1-6]|table|div|section|article|main|p|dl|ul)[\s>]`)
	mdHeadingAt    = regexp.MustCompile(`\A {0,3}#{1,6}[ \t]+\S`)
	mdBoldKeyAt    = regexp.MustCompile(`\A {0,3}[-*+][ \t]+\*\*[^*\n]+\*\*`)
	mdSetextHeadAt = regexp.MustCompile(`(?m)\A\S.*\n(=+|-{3,})[ \t]*$`)
)

// hasHTMLTag is htmlTag.Match(b).
func hasHTMLTag(b []byte) bool {
	for i := 0; ; i++ {
		j := bytes.IndexByte(b[i:], '<')
		if j < 0 {
			return false
		}
		i += j
		if i+1 < len(b) && mayOpenHTMLTag(b[i+1]) && htmlTagAt.Match(b[i:]) {
			return true
		}
	}
}

// mayOpenHTMLTag reports whether c, the byte after a "<", can start what
// htmlTagAt looks for: "!" or the first letter of a tag name in any case
// ((?i)s also matches U+017F, whose UTF-8 starts with 0xC5). Launch
// commands hold "<redacted>".
func mayOpenHTMLTag(c byte) bool {
	switch c | 0x20 {
	case 'h', 'b', 't', 'd', 's', 'a', 'm', 'p', 'u':
		return true
	}
	return c == '!' || c == 0xC5
}

// anyLine reports whether match holds for some line of b, called with b
// from the line's start to its end.
func anyLine(b []byte, match func(line []byte) bool) bool {
	for i := 0; ; {
		if match(b[i:]) {
			return true
		}
		j := bytes.IndexByte(b[i:], '\n')
		if j < 0 {
			return false
		}
		i += j + 1
	}
}

// skipIndent drops up to three leading spaces.
func skipIndent(b []byte) []byte {
	for n := 0; n < 3 && len(b) > 0 && b[0] == ' '; n++ {
		b = b[1:]
	}
	return b
}

// mdHeadingLine is mdHeading at the start of b.
func mdHeadingLine(b []byte) bool {
	t := skipIndent(b)
	return len(t) > 0 && t[0] == '#' && mdHeadingAt.Match(b)
}

// mdBoldKeyLine is mdBoldKey at the start of b.
func mdBoldKeyLine(b []byte) bool {
	t := skipIndent(b)
	if len(t) < 2 || (t[0] != '-' && t[0] != '*' && t[0] != '+') || (t[1] != ' ' && t[1] != '\t') {
		return false
	}
	t = t[2:]
	for len(t) > 0 && (t[0] == ' ' || t[0] == '\t') {
		t = t[1:] // bytes.TrimLeft built its set of two bytes per call
	}
	return bytes.HasPrefix(t, []byte("**")) && mdBoldKeyAt.Match(b)
}

// mdFenceLine is mdFence at the start of b.
func mdFenceLine(b []byte) bool {
	t := skipIndent(b)
	return bytes.HasPrefix(t, []byte("```")) || bytes.HasPrefix(t, []byte("~~~"))
}

// mdSetextLine is mdSetextHead at the start of b: the next line starts
// with "=" or "---".
func mdSetextLine(b []byte) bool {
	j := bytes.IndexByte(b, '\n')
	if j < 0 {
		return false
	}
	next := b[j+1:]
	return (bytes.HasPrefix(next, []byte("=")) || bytes.HasPrefix(next, []byte("---"))) && mdSetextHeadAt.Match(b)
}

// mdAnyLine reports whether a line of b shows Markdown: a heading, a
// bold list key, a fence or a setext heading. One pass over the lines
// asks all four (four passes were most of Detect's time), with one search
// for each line's end: a setext underline is looked for at the start of
// the line it would be (mdSetextLine searches for the next line).
//
// Note: the second search per line (mdSetextLine's) was a quarter of
// Detect's time in a profile of Ingest1000/command (0.05 of 0.18 s);
// TestDetectScannersMatchPatterns compares mdAnyLine with the patterns.
// A line is asked only when its first byte after the indent can start
// one of the four (mdLineStart), and only what that byte can start: most
// lines of a text document start none, and asking each of them all made
// Detect twice as slow (`parse.test -test.run XXX -test.bench 'Detect$'
// -test.benchtime 100000x`, 4 interleaved rounds: 4.9 → 2.6 µs for seed
// 000, 4.2 → 2.2 for 001; the gate alone 2.7 and 2.6).
func mdAnyLine(b []byte) bool {
	prev := -1 // the start of the line before, when there is one
	for i := 0; ; {
		line := b[i:]
		if t := skipIndent(line); len(t) > 0 && mdLineStart[t[0]] {
			switch t[0] {
			case '#':
				if mdHeadingLine(line) {
					return true
				}
			case '-', '*', '+':
				if mdBoldKeyLine(line) {
					return true
				}
			case '`', '~':
				if mdFenceLine(line) {
					return true
				}
			}
			// An underline has no indent: t is line.
			if prev >= 0 && (bytes.HasPrefix(line, []byte("=")) || bytes.HasPrefix(line, []byte("---"))) && mdSetextHeadAt.Match(b[prev:]) {
				return true
			}
		}
		j := bytes.IndexByte(line, '\n')
		if j < 0 {
			return false
		}
		prev, i = i, i+j+1
	}
}

// mdLineStart holds the bytes that can begin a line mdAnyLine looks for,
// after its indent: a heading's "#", a bold key's list marker, a fence's
// "`" or "~", a setext underline's "=" or "-".
var mdLineStart = [256]bool{'#': true, '-': true, '*': true, '+': true, '`': true, '~': true, '=': true}

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
	case mdHeadingLine(firstLine(t)):
		// A document that opens with a Markdown heading is Markdown even
		// when it embeds HTML (a raw <table>, a <div> wrapper).
		return schema.FormatMarkdown, nil
	case hasHTMLTag(head):
		return schema.FormatHTML, nil
	case mdAnyLine(head):
		return schema.FormatMarkdown, nil
	}
	return schema.FormatText, nil
}
