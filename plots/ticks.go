package plots

import (
	"math"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
)

// Log2Ticks marks every power of two in range (1, 2, 4 … 128), the
// concurrency levels of a speed-test matrix. plot.LogTicks labels only
// powers of ten, which would leave a 1–128 axis with two labels.
// When the range spans more than 10 octaves only every other power is
// labelled. Format turns a value into its label; nil means FormatCount.
type Log2Ticks struct {
	Format func(float64) string
}

// Ticks implements plot.Ticker.
func (t Log2Ticks) Ticks(min, max float64) []plot.Tick {
	if min <= 0 || max <= 0 || min > max || math.IsInf(min, 0) || math.IsInf(max, 0) {
		return nil
	}
	format := t.Format
	if format == nil {
		format = FormatCount
	}
	lo := int(math.Ceil(math.Log2(min) - 1e-9))
	hi := int(math.Floor(math.Log2(max) + 1e-9))
	step := 1
	if hi-lo > 10 {
		step = 2
	}
	var ticks []plot.Tick
	for e := lo; e <= hi; e++ {
		v := math.Ldexp(1, e)
		tk := plot.Tick{Value: v}
		if (e-lo)%step == 0 {
			tk.Label = format(v)
		}
		ticks = append(ticks, tk)
	}
	return ticks
}

// Log125Ticks marks 1, 2 and 5 times each power of ten on a logarithmic
// axis (and 3 when the axis spans two decades or less), with minor ticks
// at the other integers; over more than three decades only the powers of
// ten are labelled.
type Log125Ticks struct{}

// Ticks implements plot.Ticker.
func (Log125Ticks) Ticks(min, max float64) []plot.Tick {
	if min <= 0 || max <= 0 || min > max || math.IsInf(min, 0) || math.IsInf(max, 0) {
		return nil
	}
	lo := int(math.Floor(math.Log10(min)))
	hi := int(math.Ceil(math.Log10(max)))
	onlyDecades := hi-lo > 3
	withThree := hi-lo <= 2
	var ticks []plot.Tick
	for e := lo; e <= hi; e++ {
		base := math.Pow(10, float64(e))
		for m := 1; m <= 9; m++ {
			v := float64(m) * base
			if v < min*(1-1e-9) || v > max*(1+1e-9) {
				continue
			}
			tk := plot.Tick{Value: v}
			if m == 1 || (!onlyDecades && (m == 2 || m == 5)) || (withThree && m == 3) {
				tk.Label = FormatNumber(v)
			}
			ticks = append(ticks, tk)
		}
	}
	return ticks
}

// commaTicks marks a linear axis at a round step chosen for about six
// labels (1, 2, 2.5 or 5 × 10ⁿ) with minor ticks between them, labelled
// with thousands separators ("12,000"). plot.DefaultTicks often labels
// only three values.
type commaTicks struct{}

// Ticks implements plot.Ticker.
func (commaTicks) Ticks(min, max float64) []plot.Tick {
	if !(max > min) || math.IsInf(min, 0) || math.IsInf(max, 0) {
		return nil
	}
	raw := (max - min) / 6
	mag := math.Pow(10, math.Floor(math.Log10(raw)))
	step := 10 * mag
	minors := 2
	for _, m := range []struct {
		f float64
		n int
	}{{1, 2}, {2, 2}, {2.5, 5}, {5, 5}} {
		if m.f*mag >= raw {
			step, minors = m.f*mag, m.n
			break
		}
	}
	minor := step / float64(minors)
	var ticks []plot.Tick
	for i := math.Ceil(min / minor); i*minor <= max+minor*1e-9; i++ {
		v := i * minor
		tk := plot.Tick{Value: v}
		if r := math.Round(v / step); math.Abs(v/step-r) < 1e-9 {
			tk.Value = r * step
			if tk.Value == 0 {
				tk.Value = 0 // not −0 (math.Round of a small negative)
			}
			tk.Label = FormatNumber(tk.Value)
		}
		ticks = append(ticks, tk)
	}
	return ticks
}

// widenAxis gives an axis whose data span one value (a serving curve of
// one rate) a range its ticker can label: ±10% on a linear axis (gonum's
// ±1 around 1,245 tok/s labelled "1,244 1,245 1,245 1,246"), and a
// logarithmic axis a range holding at least two of 1, 2 and 5 × 10ⁿ (TTFT
// 81–83 ms had no label at all).
func widenAxis(a *plot.Axis, log bool) {
	lo, hi := a.Min, a.Max
	if math.IsInf(lo, 0) || math.IsInf(hi, 0) || math.IsNaN(lo) || math.IsNaN(hi) || lo > hi {
		return
	}
	if log {
		if lo <= 0 {
			return
		}
		labels := 0
		for _, tk := range (Log125Ticks{}).Ticks(lo, hi) {
			if tk.Label != "" {
				labels++
			}
		}
		if labels < 2 {
			// 1, 2, 5 are at most 2.5× apart: 2.5× either side holds
			// two of them.
			a.Min, a.Max = lo/2.5, hi*2.5
		}
		return
	}
	if lo == hi {
		d := math.Abs(lo) / 10
		if d == 0 {
			d = 1
		}
		a.Min, a.Max = lo-d, hi+d
	}
}

// thinTicks keeps every tick mark and the labels that fit: a label that
// would sit closer than gap (a fraction of the axis, after scaling with
// norm) to the previous labelled tick goes one line lower ("123K" and,
// under it, "128K": each point keeps its own tick), and is dropped only
// when the previous label is on that lower line already. A label that
// repeats the previous one is dropped: no two ticks print the same text.
// The first labelled tick is always kept.
func thinTicks(ticks []plot.Tick, min, max, gap float64, norm plot.Normalizer) []plot.Tick {
	out := make([]plot.Tick, len(ticks))
	copy(out, ticks)
	last := math.Inf(-1)
	lastLabel, lowered := "", false
	for i := range out {
		if out[i].Label == "" {
			continue
		}
		if out[i].Label == lastLabel {
			out[i].Label = ""
			continue
		}
		pos := norm.Normalize(min, max, out[i].Value)
		if pos-last < gap {
			if lowered {
				out[i].Label = ""
				continue
			}
			lastLabel, lowered = out[i].Label, true
			out[i].Label = "\n" + out[i].Label
			last = pos
			continue
		}
		last, lastLabel, lowered = pos, out[i].Label, false
	}
	return out
}

// FormatCount formats a power-of-two count such as a concurrency or a
// context length: 1, 2 … 512, 1K, 2K, 64K, 1M (binary multiples), and
// any other value as FormatNumber does.
func FormatCount(v float64) string {
	switch {
	case v >= 1<<20 && math.Mod(v, 1<<20) == 0:
		return strconv.FormatFloat(v/(1<<20), 'f', -1, 64) + "M"
	case v >= 1<<10 && math.Mod(v, 1<<10) == 0:
		return strconv.FormatFloat(v/(1<<10), 'f', -1, 64) + "K"
	}
	return FormatNumber(v)
}

// FormatNumber formats v for a tick or a cell: thousands separators from
// 1,000, no decimals from 100, one decimal from 10, two below (trailing
// zeros trimmed): 13,000; 325; 47.4; 0.47.
func FormatNumber(v float64) string {
	if math.IsNaN(v) {
		return "—"
	}
	a := math.Abs(v)
	var s string
	switch {
	case a >= 100:
		s = strconv.FormatFloat(math.Round(v), 'f', 0, 64)
	case a >= 10:
		s = strconv.FormatFloat(v, 'f', 1, 64)
	default:
		s = strconv.FormatFloat(v, 'f', 2, 64)
	}
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	return groupThousands(s)
}

// groupThousands inserts commas into the integer part of a decimal string.
func groupThousands(s string) string {
	neg := strings.HasPrefix(s, "-")
	if neg {
		s = s[1:]
	}
	intPart, frac, hasFrac := strings.Cut(s, ".")
	var b strings.Builder
	for i, r := range intPart {
		if i > 0 && (len(intPart)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	out := b.String()
	if hasFrac {
		out += "." + frac
	}
	if neg {
		out = "−" + out
	}
	return out
}
