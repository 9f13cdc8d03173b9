package parse

// This file tells the headings and footnotes of the text form apart
// from its other lines.

import (
	"bytes"
	"strings"
	"unicode"
	"unicode/utf8"
)

// textSections maps a normalized heading to its kind. Unknown headings
// followed by "- Key" lines are field sections too.
var textSections = map[string]textSection{
	"hardware": tsFields, "engine": tsFields, "run": tsFields, "system": tsFields,
	"software": tsFields, "server": tsFields, "model": tsFields, "settings": tsFields,
	"launch command": tsLaunch, "launch": tsLaunch, "command": tsLaunch, "server command": tsLaunch,
	"prefill": tsPrefill, "prompt processing": tsPrefill,
	"sustained decode": tsDecode, "decode": tsDecode,
	"all measurements": tsTable, "measurements": tsTable, "full results": tsTable,
	"serve by request rate": tsServe, "request rates": tsServe,
}

// sectionOf returns the kind of a heading line, or false when the line is
// not a known heading.
func sectionOf(line string) (textSection, bool) {
	if !mayBeHeading(line) {
		return 0, false
	}
	return headingSection(line)
}

// headingSection is sectionOf without mayBeHeading's filter.
func headingSection(line string) (textSection, bool) {
	var buf [64]byte
	h := appendNormHeading(buf[:0], line, maxHeading+1)
	if k, ok := textSections[string(h)]; ok {
		return k, true
	}
	// "Sustained decode throughput", "All measurements (46 cells)": a
	// short line starting with a heading of two or more words.
	if len(h) <= maxHeading && !bytes.HasSuffix(h, []byte(".")) {
		for _, name := range multiWordSections {
			if len(h) > len(name) && h[len(name)] == ' ' && string(h[:len(name)]) == name {
				return textSections[name], true
			}
		}
	}
	return 0, false
}

// mayBeHeading is false for a line that cannot be a heading of
// textSections: its first byte (past ASCII space) is ASCII and not a
// letter, and every heading starts with one. Every line of a document
// is tried as a heading; most ("- Type", "| 8K | …", "16K context…")
// end here. So does a line whose first word is ASCII letters followed by
// an ASCII byte (or nothing) and is not the first word of a heading
// ("Latencies are medians…", "Looped: the model…").
//
// Note: those lines were normalized up to maxHeading bytes and looked up,
// 0.14–0.22 of 1.5 s in profiles of BenchmarkExtractText/000 (`-test.benchtime
// 60000x`), 0.09 after.
func mayBeHeading(line string) bool {
	for i := 0; i < len(line); i++ {
		switch c := line[i]; {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			continue
		case c >= utf8.RuneSelf:
			return true // a Unicode space, or a letter that lower-cases to one
		case c|0x20 >= 'a' && c|0x20 <= 'z':
			j := i
			for j < len(line) && line[j]|0x20 >= 'a' && line[j]|0x20 <= 'z' {
				j++
			}
			if j < len(line) && line[j] >= utf8.RuneSelf || j-i > len(firstWordBuf{}) {
				return true // the word may go on (a letter that is not ASCII)
			}
			var w firstWordBuf
			for k := i; k < j; k++ {
				w[k-i] = line[k] | 0x20
			}
			return headingFirstWord(string(w[:j-i]))
		default:
			return false
		}
	}
	return false
}

// firstWordBuf holds a lower-cased word that headingFirstWord may accept
// (the longest is "measurements").
type firstWordBuf [12]byte

// headingFirstWord reports whether w is the first word of a key of
// textSections (TestHeadingFirstWords checks the list against them).
func headingFirstWord(w string) bool {
	switch w {
	case "hardware", "engine", "run", "system", "software", "server", "model", "settings",
		"launch", "command", "prefill", "prompt", "sustained", "decode", "all", "measurements",
		"full", "serve", "request":
		return true
	}
	return false
}

// multiWordSections are the headings that are matched as a prefix too;
// one-word ones ("Run", "Decode") are not, as prose starts with them.
var multiWordSections = []string{"launch command", "sustained decode", "all measurements", "prompt processing", "server command", "serve by request rate", "request rates"}

// maxHeading is the longest normalized line sectionOf reads as a
// heading (the known headings themselves are shorter).
const maxHeading = 48

// appendNormHeading appends normHeading(s) (textheadings_test.go: the
// heading lower-cased, without surrounding space and a trailing colon,
// its words joined by single spaces) to dst without allocating (every
// line of a document is tried as a heading). It
// stops once it has appended more than limit bytes: the rest of a long
// line (a launch command, a footnote) cannot make it a heading.
//
// Note: an ASCII start of more than limit bytes normalizes alike on
// either path, so stopping there before seeing a later non-ASCII byte
// gives a result as long as normHeading's would be: too long for both.
func appendNormHeading(dst []byte, s string, limit int) []byte {
	t := trimSpace(s)
	// ASCII: lower-case, drop trailing ':' and ' ', and join the fields
	// (runs of ASCII white space) with single spaces.
	s = strings.TrimRight(t, ": ")
	start := len(dst)
	space := false
	for i := 0; i < len(s); i++ {
		if len(dst)-start > limit {
			return dst
		}
		c := s[i]
		if c >= utf8.RuneSelf {
			return appendNormRunes(dst, start, s[i:], space, limit)
		}
		switch c {
		case ' ', '\t', '\n', '\v', '\f', '\r':
			space = true
			continue
		}
		if space && len(dst) > start {
			dst = append(dst, ' ')
		}
		space = false
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		dst = append(dst, c)
	}
	return dst
}

// appendNormRunes goes on with appendNormHeading from s, the rest of
// the line from its first non-ASCII byte, rune by rune as normHeading does
// (strings.ToLower writes an invalid byte as U+FFFD; strings.Fields splits
// at unicode.IsSpace); space says a blank came before s.
//
// Note: normHeading itself allocated three copies of such a line (the
// seeds' subtitle with its "·", lines with "—" or "×"): a sixth of a
// seed's text extraction (0.28 of 1.64 s in a profile of
// BenchmarkParseText).
func appendNormRunes(dst []byte, start int, s string, space bool, limit int) []byte {
	for _, r := range s { // an invalid byte is utf8.RuneError, as in strings.Map
		if len(dst)-start > limit {
			return dst
		}
		if unicode.IsSpace(r) {
			space = true
			continue
		}
		if space && len(dst) > start {
			dst = append(dst, ' ')
		}
		space = false
		dst = utf8.AppendRune(dst, unicode.ToLower(r))
	}
	return dst
}

// footnotePrefixes start the explanatory lines under the tables
// (isFootnote knows their first letters).
var footnotePrefixes = []string{"looped:", "over capacity:", "skipped:", "error:", "ttft is measured", "latencies are", "total tok/s is", "note:"}

func isFootnote(line string) bool {
	if len(line) > 0 && line[0] < utf8.RuneSelf {
		// The first letters of footnotePrefixes, in either case.
		switch line[0] | 0x20 {
		case 'l', 'o', 's', 'e', 't', 'n':
		default:
			return false
		}
	}
	for i := 0; i < len(line) && i < 20; i++ {
		if line[i] >= utf8.RuneSelf {
			// Lower-casing may turn a non-ASCII letter into an ASCII one.
			l := strings.ToLower(line)
			for _, p := range footnotePrefixes {
				if strings.HasPrefix(l, p) {
					return true
				}
			}
			return false
		}
	}
	// The prefixes are ASCII and at most 20 bytes: compare the line's
	// ASCII start without case.
	for _, p := range footnotePrefixes {
		if len(line) >= len(p) && strings.EqualFold(line[:len(p)], p) {
			return true
		}
	}
	return false
}
