package analysis

import (
	"math"
	"strconv"
	"strings"
)

// MaxSigFigs is the precision of a figure whose printed text is not
// known (a measuring run's own figures, a tool's JSON numbers).
const MaxSigFigs = 4

// SigFigs returns how many significant figures cell c printed for mt:
// the digits of the printed text (c's first row's Printed list) whose
// number is the cell's value, such as 2 for "13K" and 5 for "4,207.1".
// It returns MaxSigFigs when no printed text carries the value.
//
// Note: the printed text is matched by its number, not by its column
// header, because each format names its columns differently; a header
// whose number equals the value by chance gives the same precision.
func SigFigs(c *Cell, mt Metric) int {
	if c == nil || len(c.Rows) != 1 {
		return MaxSigFigs // a median of repeats has the precision of no single print
	}
	v, ok := c.Value(mt)
	if !ok {
		return MaxSigFigs
	}
	for _, kv := range c.Rows[0].Printed {
		n, sig, ok := printedNumber(kv.Value)
		if ok && n != 0 && math.Abs(n-v) <= 1e-9*math.Abs(v) {
			return min(sig, MaxSigFigs)
		}
	}
	return MaxSigFigs
}

// printedNumber reads a printed figure ("13K", "4,207.1", "149 ms",
// "1.2M") as its value and its count of significant digits.
func printedNumber(s string) (v float64, sig int, ok bool) {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, ' '); i > 0 {
		s = s[:i] // a unit follows
	}
	mult := 1.0
	switch {
	case strings.HasSuffix(s, "K"):
		mult, s = 1e3, s[:len(s)-1]
	case strings.HasSuffix(s, "M"):
		mult, s = 1e6, s[:len(s)-1]
	}
	s = strings.ReplaceAll(s, ",", "")
	s = strings.TrimPrefix(s, "-")
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || s == "" {
		return 0, 0, false
	}
	digits := strings.TrimLeft(strings.ReplaceAll(s, ".", ""), "0")
	sig = len(digits)
	if sig == 0 {
		sig = 1
	}
	return f * mult, sig, true
}

// RatioSigFigs is the precision a ratio of two printed figures carries:
// the fewer of their significant figures, at least 2.
func RatioSigFigs(a, b int) int { return max(min(a, b), 2) }

// Precision returns the significant figures of both sides of delta d of
// other run oi (MaxSigFigs for a side whose printed text is unknown).
func (c *Comparison) Precision(oi int, d *Delta) (base, value int) {
	k := c.Cells[d.Cell].Key
	mt := c.Metrics[d.Metric]
	return SigFigs(c.Baseline.Get(k), mt), SigFigs(c.Others[oi].Get(k), mt)
}
