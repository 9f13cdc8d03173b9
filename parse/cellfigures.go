package parse

import (
	"regexp"
	"strings"
)

// Figures inside cells and cards. A number is printed with thousands
// commas and an optional K; a latency with ms or s.
const numPat = `[0-9][0-9,]*(?:\.[0-9]+)?`

var (
	// tokSRe is a throughput: "55K", "325.2", "325.2 tok/s".
	tokSRe = regexp.MustCompile(`(?i)^(` + numPat + `\s*[KM]?)\s*(?:tok/s|tokens/s|tok/sec|t/s|tps)?(?:\s*total)?$`)
	// ttftRe is a time to first token: "149 ms", "149 ms TTFT", "TTFT 149 ms".
	ttftRe = regexp.MustCompile(`(?i)^(?:ttft[:\s]*)?(` + numPat + `\s*(?:ms|s))(?:\s*ttft)?$`)
	// labelRe is a unit or caption printed on its own.
	labelRe = regexp.MustCompile(`(?i)^(?:prompt\s+)?(?:tok/s|tokens/s|tok/sec|t/s|tps|ms|s|ttft|ms ttft|s ttft|total tok/s|throughput|time to first token)$`)
	// sepRe splits one printed text into figures: "325.2 · 41 ms",
	// "55K tok/s, 149 ms TTFT", "325.2 / 41 ms", "325.2 (41 ms)".
	sepRe = regexp.MustCompile(`\s*[·•|;()\[\]]\s*|\s+/\s+|,\s+|\s+[–—-]\s+`)
	// dashRe is a figure printed as missing.
	dashRe = regexp.MustCompile(`^(?:—|–|-|n/a|N/A)$`)
	// ctxRe is a prefill label, "8K context", possibly followed by its
	// figures ("8K context: 55K tok/s, 149 ms TTFT").
	ctxRe = regexp.MustCompile(`(?i)^(` + numPat + `\s*[KM]?)\s*context\b[\s:：—–-]*(.*)$`)
)

// bareRe is a figure without a unit: "55K", "8K", "325.2".
var bareRe = regexp.MustCompile(`^` + numPat + `\s*[KkMm]?$`)

// tokens splits pieces into figures: on separators, dropping blanks and
// joining a unit printed in an element of its own to the bare figure
// before it ("41" + "ms").
func tokens(pieces []string) []string {
	var out []string
	for _, p := range pieces {
		for _, t := range sepRe.Split(p, -1) {
			t = collapse(t)
			if x := strings.Trim(t, " :：—–-,"); x != "" && x != t && !dashRe.MatchString(t) {
				t = x // "— 55K tok/s" after a label, "55K," before the next figure
			}
			if t == "" {
				continue
			}
			if labelRe.MatchString(t) && len(out) > 0 && bareRe.MatchString(out[len(out)-1]) {
				out[len(out)-1] += " " + t
				continue
			}
			out = append(out, t)
		}
	}
	return out
}

// splitCell reads a matrix cell printed in pieces: tok/s and TTFT when
// they are told apart, else the cell's text as Glued (a status such as
// "Looped", or figures run together, which the builder splits).
func splitCell(pieces []string) (tokS, ttft, glued string) {
	ts := tokens(pieces)
	if len(ts) == 1 && dashRe.MatchString(ts[0]) {
		return "", "", ts[0] // "—": nothing measured; the builder reads it as null
	}
	var words []string
	for _, t := range ts {
		switch {
		case labelRe.MatchString(t):
		case ttft == "" && len(ts) > 1 && ttftRe.MatchString(t):
			ttft = strings.TrimSpace(ttftRe.FindStringSubmatch(t)[1])
		case tokS == "" && tokSRe.MatchString(t):
			tokS = strings.TrimSpace(tokSRe.FindStringSubmatch(t)[1])
		case dashRe.MatchString(t):
			if tokS == "" {
				tokS = t
			} else if ttft == "" {
				ttft = t
			}
		default:
			words = append(words, t)
		}
	}
	switch {
	case tokS == "" && ttft == "" && len(words) > 0 && !strings.ContainsAny(words[0], "0123456789"):
		// A status ("Looped", "Over capacity"), maybe with an explanation
		// after it.
		return "", "", words[0]
	case tokS == "":
		// Nothing told apart, or only a latency-looking figure: tok/s and
		// TTFT ran together ("325.241 ms TTFT"); the builder splits it
		// the way that agrees with the full table.
		return "", "", collapse(strings.Join(ts, " "))
	}
	return tokS, ttft, ""
}

// scanPrefill reads prefill figures from the pieces of the Prefill
// section in order: each "8K context" label starts a figure, and the
// throughput and TTFT after it (told apart by their units) fill it.
// Cards, list items, definition lists and lines all print the same
// sequence, so one scan reads them all.
func scanPrefill(ps []piece) []rawPrefill {
	type tok struct {
		text string
		line int
	}
	var ts []tok
	for _, p := range ps {
		for _, t := range tokens([]string{p.Text}) {
			ts = append(ts, tok{t, p.Line})
		}
	}
	// A "context" printed apart from its figure ("<b>8K</b> context", or
	// a "Context" label above "8K") joins the figure: the one before it
	// when the first such word follows a figure, else the one after it.
	isCtxWord := func(t string) bool { nk := normKey(t); return nk == "context" || nk == "context length" }
	before := false
	for i, t := range ts {
		if isCtxWord(t.text) {
			before = i > 0 && bareRe.MatchString(ts[i-1].text)
			break
		}
	}
	joined := ts[:0:0]
	for i := 0; i < len(ts); i++ {
		t := ts[i]
		if !isCtxWord(t.text) {
			joined = append(joined, t)
			continue
		}
		switch {
		case before && len(joined) > 0 && bareRe.MatchString(joined[len(joined)-1].text):
			joined[len(joined)-1].text += " context"
		case !before && i+1 < len(ts) && bareRe.MatchString(ts[i+1].text):
			joined = append(joined, tok{ts[i+1].text + " context", ts[i+1].line})
			i++
		}
	}

	var out []rawPrefill
	var fill func(p *rawPrefill, t string)
	fill = func(p *rawPrefill, t string) {
		switch {
		case labelRe.MatchString(t):
		case p.TTFT == "" && ttftRe.MatchString(t):
			p.TTFT = strings.TrimSpace(ttftRe.FindStringSubmatch(t)[1])
		case p.TokS == "" && tokSRe.MatchString(t):
			p.TokS = strings.TrimSpace(tokSRe.FindStringSubmatch(t)[1])
		case p.TokS == "" && p.TTFT == "" && p.Glued == "" && strings.ContainsAny(t, "0123456789"):
			p.Glued = t
		case p.TokS == "" && p.TTFT == "" && p.Glued == "":
			if _, ok := parseStatus(t); ok {
				p.Glued = t // a cell printed as its status ("Error")
			}
		}
	}
	for _, t := range joined {
		if m := ctxRe.FindStringSubmatch(t.text); m != nil {
			out = append(out, rawPrefill{Context: strings.ReplaceAll(m[1], " ", ""), Line: t.line})
			for _, r := range tokens([]string{m[2]}) {
				fill(&out[len(out)-1], r)
			}
			continue
		}
		if len(out) > 0 {
			fill(&out[len(out)-1], t.text)
		}
	}
	for i := range out {
		p := &out[i]
		if p.TokS == "" && p.TTFT != "" && p.Glued == "" {
			// Only a latency-looking figure: tok/s and TTFT may have run
			// together ("9,756149 ms"); let the builder split it against
			// the full table.
			p.Glued, p.TTFT = p.TTFT, ""
		}
	}
	return out
}
