package parse

import (
	"bytes"
	"fmt"
	"regexp"

	"speedmatrix/schema"
)

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
