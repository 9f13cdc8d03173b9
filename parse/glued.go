package parse

import "strings"

// maxGlued bounds the length of a glued cell the splitter tries.
const maxGlued = 64

// split is one way to read a cell: tok/s text and TTFT text.
type split struct{ tok, ttft string }

// splitGlued lists the ways a matrix cell or prefill figure can be read
// as tok/s followed by TTFT. "6,091.1 783 ms" (any separator) has one;
// "6,091.1783 ms TTFT", printed without a separator, has one per split
// point that leaves a well-formed tok/s figure and a well-formed TTFT.
func splitGlued(s string) []split {
	return appendSplits(nil, s)
}

// appendSplits appends the splits of s (see splitGlued) to dst.
func appendSplits(dst []split, s string) []split {
	eachSplit(s, 0, func(sp split) bool {
		dst = append(dst, sp)
		return true
	})
	return dst
}

// eachSplit calls yield with each split of s (see splitGlued) until it
// returns false. A glued cell's split after hint bytes of its figures
// comes first when there is one (0: none); the others follow in order.
func eachSplit(s string, hint int, yield func(split) bool) {
	s = trimSpace(s)
	ttft := false
	if hasSuffixFold(s, "ttft") {
		s, ttft = trimSpace(s[:len(s)-4]), true
	}
	// A figure printed as missing beside one that is not ("40K— TTFT",
	// "—149 ms TTFT"): the dash cannot be part of a number.
	if a, ok := strings.CutSuffix(s, "—"); ok && ttft && a != "" {
		yield(split{trimSpace(a), "—"})
		return
	}
	if b, ok := strings.CutPrefix(s, "—"); ok && b != "" {
		yield(split{"—", trimSpace(b)})
		return
	}
	for _, sep := range []string{"tok/s", "·", "•", ";", "/"} {
		if a, b, ok := strings.Cut(s, sep); ok {
			yield(split{trimSpace(a), strings.Trim(trimSpace(b), ",·;")})
			return
		}
	}
	unit, full := "", s
	for _, u := range []string{"ms", "s"} {
		if strings.HasSuffix(s, u) {
			unit, s = u, trimSpace(s[:len(s)-len(u)])
			break
		}
	}
	// A TTFT "b unit" is the tail of full when one space separated the
	// unit (as printed, "325.241 ms"): no need to build it.
	spaced := unit != "" && full[len(s):] == " "+unit
	if k := lastBlank(s); k >= 0 {
		yield(split{trimSpace(s[:k]), trimSpace(s[k:]) + " " + unit})
		return
	}
	if len(s) > maxGlued {
		return // no pair of figures is this long; do not try O(n²) splits
	}
	if unit == "" && !ttft {
		if !yield(split{s, ""}) { // a tok/s figure alone
			return
		}
	}
	// at yields the split after k bytes when both parts are well-formed
	// figures; it returns false when yield did.
	at := func(k int) bool {
		a, b := s[:k], s[k:]
		// Only the form matters here; appendReadings reads the values.
		qa, bad := checkQuantity(trimSpace(a))
		if bad != qOK || qa.Null || qa.Unit != "" {
			return true
		}
		if b[0] == '-' || b[0] == '+' {
			return true
		}
		qb, bad := checkQuantity(trimSpace(b))
		if bad != qOK || qb.Null || qb.Unit != "" {
			return true
		}
		if spaced {
			return yield(split{a, full[k:]})
		}
		return yield(split{a, b + " " + unit})
	}
	if hint > 0 && hint < len(s) && !at(hint) {
		return
	}
	for k := 1; k < len(s); k++ {
		if k != hint && !at(k) {
			return
		}
	}
}

// lastBlank is strings.LastIndexAny(s, " \t\u00a0") without decoding
// s rune by rune from its end (LastIndexAny does for a set that is not
// ASCII): a no-break space is the bytes C2 A0, which decode as one rune
// from the end whatever precedes them.
func lastBlank(s string) int {
	for i := len(s) - 1; i >= 0; i-- {
		switch s[i] {
		case ' ', '\t':
			return i
		case 0xa0:
			if i > 0 && s[i-1] == 0xc2 {
				return i - 1
			}
		}
	}
	return -1
}

// hasSuffixFold reports whether s ends in the lower-case ASCII suffix,
// matched without case.
func hasSuffixFold(s, suffix string) bool {
	if len(s) < len(suffix) {
		return false
	}
	t := s[len(s)-len(suffix):]
	for i := 0; i < len(t); i++ {
		c := t[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != suffix[i] {
			return false
		}
	}
	return true
}

// cellReading is a cell read one way.
type cellReading struct {
	tok, ttft         quantity
	tokText, ttftText string
}

// readings parses the splits of a cell; ill-formed ones are dropped.
func readings(splits []split) []cellReading {
	return appendReadings(nil, splits)
}

// appendReadings appends the readings of splits (see readings) to dst.
func appendReadings(dst []cellReading, splits []split) []cellReading {
	for _, sp := range splits {
		tok, bad := scanQuantity(trimSpace(sp.tok))
		if bad != qOK {
			continue
		}
		tok, cbad := tok.conv(kindRate)
		if cbad != convOK {
			continue
		}
		r := cellReading{tok: tok, tokText: sp.tok, ttft: quantity{Null: true}, ttftText: trimSpace(sp.ttft)}
		if r.ttftText != "" {
			t, bad := scanQuantity(trimSpace(strings.TrimSpace(strings.TrimSuffix(strings.TrimSuffix(r.ttftText, "TTFT"), "ttft"))))
			if bad != qOK {
				continue
			}
			t, cbad := t.conv(kindMillis)
			if cbad != convOK {
				continue
			}
			r.ttft = t
		}
		dst = append(dst, r)
	}
	return dst
}
