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
	r := math.Pow(10, float64(sig-1-mag))
	v = math.Round(v*r) / r
	if math.Abs(v) >= math.Pow(10, float64(mag+1)) {
		mag++ // 0.99951 rounds to 1.00, not "1.000": one figure moved left
	}
	return group(v, max(sig-1-mag, 0))
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

// RatioFigs is the one precision rule for ratios: every ratio the
// report prints (tables, sentences, bounds, matrices, heatmap cells,
// text, Markdown and HTML alike) has three significant figures, whatever
// the precision of its inputs: 0.289×, 1.03×, 12.5×, 0.00434×, 128×.
//
// Note: the rule was the fewer significant figures of the two inputs
// (at least two), which printed "≥ 0.27×" in one row and "≥ 0.2894×" in
// the next (issue 24): two figures hid a 3% change (1.0×), four claimed
// more than a median carries. Three resolve 1% near parity, finer than
// the default ±3% band "same" reads in. The inputs' precision is kept
// where it decides something: the change column's whole percentages
// (pctSig), the sig_figs of the JSON, the figures as printed in CSV.
const RatioFigs = 3

// FormatRatio prints a ratio by the one rule RatioFigs states, without
// the times sign: "0.289".
func FormatRatio(r float64) string {
	return FormatSig(r, RatioFigs)
}

// ratioText prints a ratio by the one rule RatioFigs states, with a
// times sign: "0.289×".
func ratioText(v float64) string {
	return FormatRatio(v) + "×"
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
