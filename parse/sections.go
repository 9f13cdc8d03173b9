package parse

import (
	"strings"
	"unicode"
)

// sectionKind classifies a section heading.
type sectionKind int

const (
	secNone    sectionKind = iota // before the first section
	secMeta                       // Hardware, Engine, Run and any unknown section
	secLaunch                     // Launch command
	secPrefill                    // Prefill
	secDecode                     // Sustained decode
	secFull                       // All measurements
	secServe                      // Serve by request rate: a view of the serve rows
)

// knownSections maps normalized heading texts to their section kinds.
// A heading matches when its text equals a name or starts with it
// followed by a space ("Sustained decode throughput").
var knownSections = []struct {
	name string
	kind sectionKind
}{
	{"hardware", secMeta},
	{"engine", secMeta},
	{"run", secMeta},
	{"launch command", secLaunch},
	{"launch", secLaunch},
	{"command", secLaunch},
	{"prefill", secPrefill},
	{"prompt processing", secPrefill},
	{"sustained decode", secDecode},
	{"decode", secDecode},
	{"serve by request rate", secServe},
	{"request rates", secServe},
	{"all measurements", secFull},
	{"measurements", secFull},
}

// kicker is the line printed above the title of the seeds' pages.
const kicker = "speed test matrix"

// classifySection returns the kind of a section heading, and whether the
// heading is a known one.
func classifySection(text string) (sectionKind, bool) {
	// Numbering and icons before the name do not count ("2. Engine").
	t := strings.TrimLeftFunc(normKey(text), func(r rune) bool { return !unicode.IsLetter(r) })
	for _, s := range knownSections {
		if t == s.name || strings.HasPrefix(t, s.name+" ") {
			return s.kind, true
		}
	}
	return secMeta, false
}

// normKey lowercases s, collapses its whitespace and trims surrounding
// punctuation, for comparing headings and header cells.
func normKey(s string) string {
	s = strings.ToLower(collapse(s))
	return strings.TrimFunc(s, func(r rune) bool {
		return unicode.IsSpace(r) || r == ':' || r == '.' || r == '#' || r == '*'
	})
}

// collapse trims s and collapses each run of white space (including
// no-break spaces from &nbsp;) to one space, and drops zero-width and
// soft-hyphen characters.
func collapse(s string) string {
	if collapsed(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	space := false
	for _, r := range s {
		switch {
		case r == '\u200b' || r == '\u200c' || r == '\u200d' || r == '\ufeff' || r == '\u00ad':
			continue
		case unicode.IsSpace(r):
			space = b.Len() > 0
			continue
		}
		if space {
			b.WriteByte(' ')
			space = false
		}
		b.WriteRune(r)
	}
	return b.String()
}

// collapsed reports whether collapse would return s unchanged: ASCII
// with single spaces between words (the common case, checked cheaply).
func collapsed(s string) bool {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c >= 0x80, c < ' ':
			return false
		case c == ' ' && (i == 0 || i == len(s)-1 || s[i+1] == ' '):
			return false
		}
	}
	return true
}
