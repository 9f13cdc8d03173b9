package parse

import (
	"regexp"
	"strings"
	"sync"
	"unicode"
)

// assemble reads the blocks of a document into a rawDoc. what names the
// format's title element in error messages ("an h1 heading").
func assemble(blocks []block, name string, lastLine int, what string) (*rawDoc, error) {
	a := &assembler{doc: &rawDoc{}, name: name}
	for i := range blocks {
		if blocks[i].Kind == blockText && sectionLabel(blocks, i) {
			// A line that only names a section ("<p><b>Engine</b></p>",
			// a styled div) heads it like a heading would.
			blocks[i].Kind, blocks[i].Level = blockHeading, 7
		}
	}
	title := findTitle(blocks)
	if title < 0 {
		return nil, errorf(name, 1, "no title: expected %s naming the model and hardware", what)
	}
	a.doc.Title, a.doc.TitleLine = blocks[title].Text, blocks[title].Line
	a.findSubtitle(blocks, title)

	sec, secLevel, secName := secNone, 0, ""
	var fullHeading, prefillHeading int
	for i := 0; i < len(blocks); i++ {
		b := &blocks[i]
		if i == title || i == a.subtitleIdx {
			continue
		}
		if b.Kind == blockText {
			a.lastText = b.Text
		}
		if b.Kind == blockHeading {
			a.lastText = ""
			kind, known := classifySection(b.Text)
			if !known {
				if p := firstPiece(b); p != b.Text {
					if k, ok := classifySection(p); ok {
						kind, known = k, true
					}
				}
			}
			switch {
			case known:
				// The name as printed, without numbering or an icon.
				label := strings.TrimLeftFunc(b.Text, func(r rune) bool { return !unicode.IsLetter(r) })
				sec, secLevel, secName = kind, b.Level, label
				switch kind {
				case secFull:
					fullHeading = b.Line
				case secPrefill:
					prefillHeading = b.Line
				}
			case sec != secNone && sec != secMeta && b.Level > secLevel:
				// A sub-heading inside a section of figures (a card's
				// label): its text belongs to the section.
				if sec == secPrefill {
					a.prefillPieces = append(a.prefillPieces, blockPieces(b)...)
				}
			case normKey(b.Text) == kicker:
			default:
				sec, secLevel, secName = secMeta, b.Level, b.Text
			}
			continue
		}
		if b.Kind == blockTable {
			if err := a.table(b.Table, sec, secName); err != nil {
				return nil, err
			}
			continue
		}
		switch sec {
		case secNone, secMeta:
			if b.Kind == blockCode {
				if a.looseCode == nil {
					a.looseCode = b
				}
				continue
			}
			if b.PairWithNext && i+1 < len(blocks) && blocks[i+1].Kind == blockText && i+1 != a.subtitleIdx {
				a.field(secName, trimKey(b.Text), blocks[i+1].Text, b.Line)
				i++
				continue
			}
			if k, v, ok := keyValue(b); ok {
				a.field(secName, k, v, b.Line)
			}
		case secLaunch:
			switch {
			case b.Kind == blockCode && !a.launchFromCode:
				a.doc.Launch, a.doc.LaunchLine, a.launchFromCode = b.Text, b.Line, true
			case a.doc.Launch == "" && b.Kind == blockKV:
				a.doc.Launch, a.doc.LaunchLine = collapse(b.Value), b.Line
			case a.doc.Launch == "" && b.Kind != blockCode:
				a.doc.Launch, a.doc.LaunchLine = b.Text, b.Line
			}
		case secPrefill:
			a.prefillPieces = append(a.prefillPieces, blockPieces(b)...)
		}
	}
	a.doc.Prefill = append(a.doc.Prefill, scanPrefill(a.prefillPieces)...)
	if a.doc.Launch == "" && a.looseCode != nil {
		// No Launch command section: a code block elsewhere is the
		// command (the only code the pages print).
		a.doc.Launch, a.doc.LaunchLine = a.looseCode.Text, a.looseCode.Line
	}

	d := a.doc
	if d.Table.Header == nil {
		line := fullHeading
		if line == 0 {
			line = lastLine
		}
		return nil, errorf(name, line, "no All measurements table (a table whose header has Phase, Context, Status …)")
	}
	// The matrix and the prefill figures summarize the full table, so a
	// document may leave them out; a section that prints something that
	// is not one of them is an error.
	if a.decodeTableLine > 0 && d.Matrix == nil {
		return nil, errorf(name, a.decodeTableLine, "Sustained decode: the table is not a matrix (a header of Context, then the numbers of simultaneous requests)")
	}
	if prefillHeading > 0 && len(d.Prefill) == 0 && hasFigures(a.prefillPieces) {
		return nil, errorf(name, prefillHeading, "Prefill: figures not understood (expected \"8K context\", tok/s and TTFT per context length)")
	}
	return d, nil
}

// sectionLabel reports whether text block i is a line that only says a
// section's full name, not part of a key/value pair.
func sectionLabel(blocks []block, i int) bool {
	b := blocks[i]
	if b.LeadKey != "" || b.PairWithNext || i > 0 && blocks[i-1].PairWithNext {
		return false
	}
	t := strings.TrimLeftFunc(normKey(b.Text), func(r rune) bool { return !unicode.IsLetter(r) })
	for _, s := range knownSections {
		if t == s.name && strings.Contains(s.name, " ") || t == s.name && s.kind == secMeta {
			return true
		}
	}
	return t == "prefill"
}

// hasFigures reports whether any piece holds a digit.
func hasFigures(ps []piece) bool {
	for _, p := range ps {
		if strings.ContainsAny(p.Text, "0123456789") {
			return true
		}
	}
	return false
}

// assembler holds the state of assemble.
type assembler struct {
	doc            *rawDoc
	name           string
	subtitleIdx    int
	launchFromCode bool
	prefillPieces  []piece
	matrixLine     int
	// decodeTableLine is the line of the first table of the Sustained
	// decode section, for the error when none of its tables is a matrix.
	decodeTableLine int
	// lastText is the last line of text since the last heading: the
	// caption of a table that follows it.
	lastText string
	// looseCode is the first code block outside the Launch command
	// section, the command when the document has no such section.
	looseCode *block
}

// findTitle returns the index of the title block: an h1 that is not the
// "Speed test matrix" kicker, else a heading before any known section
// that is not the kicker, else the first text after a kicker heading; -1
// when there is none. Among several candidates one that reads "MODEL on
// GPU" wins over the first (a site name in an h1 above the document).
func findTitle(blocks []block) int {
	pick := func(cands []int) int {
		for _, i := range cands {
			if strings.Contains(blocks[i].Text, " on ") {
				return i
			}
		}
		if len(cands) > 0 {
			return cands[0]
		}
		return -1
	}
	var h1s, heads []int
	kickerAt := -1
	inSections := false
	for i, b := range blocks {
		if b.Kind != blockHeading || b.Text == "" {
			continue
		}
		if normKey(b.Text) == kicker {
			if kickerAt < 0 {
				kickerAt = i
			}
			continue
		}
		if _, known := classifySection(b.Text); known {
			inSections = true
			continue
		}
		if b.Level == 1 {
			h1s = append(h1s, i)
		}
		if !inSections {
			heads = append(heads, i)
		}
	}
	if i := pick(h1s); i >= 0 {
		return i
	}
	if i := pick(heads); i >= 0 {
		return i
	}
	if kickerAt >= 0 {
		for i := kickerAt + 1; i < len(blocks) && blocks[i].Kind != blockHeading; i++ {
			if blocks[i].Kind == blockText && blocks[i].Text != "" && !strings.Contains(blocks[i].Text, "·") {
				return i
			}
		}
	}
	return -1
}

// findSubtitle sets the subtitle: the first block after the title, before
// the next heading, whose text holds "·" separators.
func (a *assembler) findSubtitle(blocks []block, title int) {
	a.subtitleIdx = -1
	for i := title + 1; i < len(blocks) && blocks[i].Kind != blockHeading; i++ {
		b := blocks[i]
		if b.Kind == blockTable || b.Kind == blockCode {
			continue
		}
		text := b.Text
		if b.Kind == blockKV {
			text = collapse(b.Text + " " + b.Value)
		}
		if strings.Contains(text, "·") || strings.Contains(text, "•") {
			a.doc.Subtitle, a.doc.SubtitleLine, a.subtitleIdx = text, b.Line, i
			return
		}
	}
}

// firstPiece returns the first piece of a block's text.
func firstPiece(b *block) string {
	if len(b.Pieces) > 0 {
		return b.Pieces[0].Text
	}
	return b.Text
}

// blockPieces returns the pieces of a block, for the prefill scan.
func blockPieces(b *block) []piece {
	switch b.Kind {
	case blockKV:
		return []piece{{b.Text, b.Line}, {b.Value, b.Line}}
	case blockCode:
		return nil
	}
	if len(b.Pieces) == 0 && b.Text != "" {
		return []piece{{b.Text, b.Line}}
	}
	return b.Pieces
}

// keyRe is what a key printed before a colon looks like: short, no
// sentence punctuation, not a number.
//
// Note: compiled when first used, not when the program starts: its 60
// repeats of \p{L} take 4–6 ms to compile (a loop of 20 compiles, twice),
// two thirds of parse's init in `perf record` of a one-document ingest
// process, which every process importing parse paid though only HTML and
// Markdown documents use it; compiled, it holds 1.29 MB live
// (runtime.MemStats.HeapAlloc after a collection, before and after),
// which ingest's GOGC of 400 turned into ~6 MB more heap.
var keyRe = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^[\p{L}][\p{L}\p{N} _()/&+.'-]{0,60}$`)
})

// keyValue reads a block as a key/value pair: an explicit pair (dt/dd), a
// leading element ("**GPU:** H200", "<span>GPU</span><span>H200</span>")
// or "Key: Value".
func keyValue(b *block) (key, value string, ok bool) {
	switch b.Kind {
	case blockKV:
		return trimKey(b.Text), collapse(b.Value), trimKey(b.Text) != ""
	case blockText, blockItem:
	default:
		return "", "", false
	}
	if b.LeadKey != "" {
		k := trimKey(b.LeadKey)
		v := collapse(strings.TrimLeft(strings.TrimSpace(b.Rest), ":：—–-"))
		if k != "" && (v != "" || strings.HasSuffix(strings.TrimSpace(b.LeadKey), ":")) {
			return k, v, true
		}
	}
	if i := strings.Index(b.Text, ":"); i > 0 {
		k, v := strings.TrimSpace(b.Text[:i]), strings.TrimSpace(b.Text[i+1:])
		if keyRe().MatchString(k) && !strings.HasPrefix(v, "//") {
			return k, v, true
		}
	}
	// "Served model — ling": a dash with spaces around it.
	for _, sep := range []string{" — ", " – ", " - "} {
		if k, v, ok := strings.Cut(b.Text, sep); ok && keyRe().MatchString(strings.TrimSpace(k)) {
			return strings.TrimSpace(k), strings.TrimSpace(v), true
		}
	}
	return "", "", false
}

// trimKey strips the colon and emphasis marks around a printed key.
func trimKey(k string) string {
	return collapse(strings.Trim(collapse(k), ":：*_ "))
}

// field records one metadata pair, except the launch command, which is
// kept apart so the builder can parse and redact it.
func (a *assembler) field(section, key, value string, line int) {
	if nk := normKey(key); nk == "launch command" || nk == "command" || nk == "launch" {
		if a.doc.Launch == "" {
			a.doc.Launch, a.doc.LaunchLine = value, line
		}
		return
	}
	a.doc.Fields = append(a.doc.Fields, rawField{Section: section, Key: key, Value: value, Line: line})
}
