package parse

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"io"
	"io/fs"
	"strings"

	"speedmatrix/internal/source"
	"speedmatrix/peers"
	"speedmatrix/schema"
)

// MaxDocumentBytes bounds how much of one input is read. Published
// matrices are a few KiB; the bound keeps a wrong file (a disk image, a
// log) from exhausting memory.
const MaxDocumentBytes = 64 << 20

// Formats lists the values Parse accepts for its format argument, besides
// "" (detect from content).
var Formats = append([]string{schema.FormatText, schema.FormatHTML, schema.FormatMarkdown}, peers.Formats...)

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
		ms, ok, err := peers.Read(b, name, format)
		if err != nil {
			return nil, nil, err
		}
		if ok {
			// peers stamped and identified them; admit may redact or clear
			// a figure, so the id is taken again from what is kept.
			for _, m := range ms {
				if err := admit(m, name, true); err != nil {
					return nil, nil, err
				}
				identify(m)
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
	source.Stamp(m, sum, name, format)
}

// identify sets the run id of a parsed matrix and of its measurements.
func identify(m *schema.Matrix) *schema.Matrix { return source.Identify(m) }

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
