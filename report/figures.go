package report

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"speedmatrix/analysis"
)

// How a figure is printed: grouped in thousands for people, with the
// precision it was measured or printed with (analysis.SigFigs), and
// unrounded for machines (Raw).

// num formats a figure with thousands separators and one decimal; "—"
// for NaN.
func num(v float64) string { return group(v, 1) }

func group(v float64, prec int) string {
	if math.IsNaN(v) {
		return "—"
	}
	if math.IsInf(v, 0) {
		if v > 0 {
			return "∞"
		}
		return "-∞"
	}
	s := strconv.FormatFloat(math.Abs(v), 'f', prec, 64)
	intPart, frac, _ := strings.Cut(s, ".")
	var b strings.Builder
	if v < 0 && strings.Trim(s, "0.") != "" {
		b.WriteByte('-')
	}
	for i, r := range intPart {
		if i > 0 && (len(intPart)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	if frac != "" {
		b.WriteString("." + frac)
	}
	return b.String()
}

// Raw prints a figure for machines: the shortest text that reads back
// as the stored value rounded to 12 significant figures (which drops
// binary noise such as 19.199999999999996), "" for NaN, "+Inf"/"-Inf"
// for infinities.
func Raw(v float64) string {
	if math.IsNaN(v) {
		return ""
	}
	s := strconv.FormatFloat(v, 'g', 12, 64)
	if f, err := strconv.ParseFloat(s, 64); err == nil {
		return strconv.FormatFloat(f, 'g', -1, 64)
	}
	return s
}

// RawPtr is Raw of *p, "" for nil.
func RawPtr(p *float64) string {
	if p == nil {
		return ""
	}
	return Raw(*p)
}

func rawInt(n int32) string {
	if n == 0 {
		return ""
	}
	return strconv.Itoa(int(n))
}

// pctSig is pct for a change computed from figures with sig
// significant figures: a ratio of 2 figures ("0.27") gives a whole
// percentage ("-73%").
func pctSig(v float64, sig int) string {
	if sig >= 3 || math.IsNaN(v) {
		return pct(v)
	}
	return fmt.Sprintf("%+.0f%%", v)
}

func pct(v float64) string {
	if math.IsNaN(v) {
		return "—"
	}
	return fmt.Sprintf("%+.1f%%", v)
}

// pctSign is the "%" after a percentage, or nothing when there is none.
func pctSign(v float64) string {
	if math.IsNaN(v) {
		return ""
	}
	return "%"
}

// FormatSig formats v with at most sig significant figures, grouped in
// thousands and never in exponent form: 13000 with 2 gives "13,000",
// 4207.1 with 5 "4,207.1", 0.2708 with 2 "0.27".
func FormatSig(v float64, sig int) string {
	if math.IsNaN(v) || math.IsInf(v, 0) || v == 0 {
		return group(v, 0)
	}
	mag := int(math.Floor(math.Log10(math.Abs(v))))
	dec := max(sig-1-mag, 0)
	r := math.Pow(10, float64(sig-1-mag))
	v = math.Round(v*r) / r
	return group(v, dec)
}

// FormatValue prints a figure with the precision it was printed with:
// FormatSig below analysis.MaxSigFigs, else one decimal as every table
// does.
func FormatValue(v float64, sig int) string {
	if sig < analysis.MaxSigFigs {
		return FormatSig(v, sig)
	}
	return num(v)
}

// FormatRatio prints a ratio with the precision of its inputs
// (analysis.RatioSigFigs), by the one rule ratioSig states.
func FormatRatio(r float64, base, value int) string {
	return FormatSig(r, ratioSig(analysis.RatioSigFigs(base, value)))
}

// ratioText prints a ratio by the one rule ratioSig states, with a times
// sign: "0.62×".
func ratioText(v float64, sig int) string {
	return FormatSig(v, ratioSig(sig)) + "×"
}

// ratioSig is the one precision rule for ratios, in every table,
// sentence and CSV cell that prints one: the significant figures of the
// less precise input (analysis.RatioSigFigs), never fewer than two (a
// one-figure "0.3×" hid a 10% difference) nor more than
// analysis.MaxSigFigs.
//
// Note: two rows may still print a ratio to different precision when
// their inputs were printed so (a document's "13,000" against a run's
// 13,021.4): the precision says what the inputs can carry.
func ratioSig(sig int) int {
	return min(max(sig, 2), analysis.MaxSigFigs)
}

// concurrency prints a cell's number of simultaneous requests, "—" for
// none recorded.
func concurrency(n int32) string {
	if n == 0 {
		return "—"
	}
	return strconv.Itoa(int(n))
}

// LoadText prints the load of the cell k names: its concurrency ("16"),
// the request rate of a serve row ("4/s", "∞/s"), both ("16 @4/s"), or
// "—" when the source recorded neither (a summary over all of a tool's
// stages), never a rate of 0/s.
func LoadText(k analysis.Key) string {
	rate := ""
	switch {
	case math.IsInf(k.RequestRate, 1):
		rate = "∞/s"
	case k.RequestRate != 0:
		rate = strconv.FormatFloat(k.RequestRate, 'g', -1, 64) + "/s"
	}
	switch {
	case rate == "":
		return concurrency(k.Concurrency)
	case k.Concurrency == 0:
		return rate
	}
	return concurrency(k.Concurrency) + " @" + rate
}

// ServeLoadText prints a serving point's load as its curve reads it:
// "16" or "4/s", "∞/s", "—" when the source recorded none (LoadText).
func ServeLoadText(c analysis.ServeCurve, p analysis.ServePoint) string {
	k := p.Key
	if !c.ByRate && math.IsInf(k.RequestRate, 1) {
		// A closed loop of N streams: the rate is no load of its own.
		k.RequestRate = 0
	}
	return LoadText(k)
}
