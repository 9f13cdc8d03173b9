package runner

import "sync"

// Loop rules, as the seeds' tool applies them: a stream loops when its text
// ends in an exactly periodic tail of at least minLoopCycles cycles and at
// least minLoopChars bytes, with a period of at most maxLoopPeriod bytes.
const (
	minLoopChars  = 4096
	minLoopCycles = 4
	maxLoopPeriod = 32 << 10
	// loopWindow is the longest tail that can matter: a maximal period
	// repeated the minimum number of times.
	loopWindow = maxLoopPeriod * minLoopCycles
)

// LoopHit is the evidence of a loop: the period of the repeated text, how
// many whole cycles of it end the stream, and which text it was in.
type LoopHit struct {
	PeriodChars int64
	Cycles      int64
	Reasoning   bool
}

// loopDetector watches one stream's text (content or reasoning) for an
// exact periodic tail.
//
// Note: it checks every so often rather than per token. A check computes
// the prefix function of the reversed tail (at most loopWindow bytes) in
// linear time, and checks are spaced by an eighth of the tail they scan
// (at least 1 KiB), so the cost is a few operations per byte of text,
// amortized, and a loop is found at most loopWindow/8 bytes after it
// qualifies. Characters are counted as bytes of UTF-8.
type loopDetector struct {
	buf       []byte
	nextCheck int // check when len(buf) reaches this
}

func (d *loopDetector) reset() {
	d.buf = d.buf[:0]
	d.nextCheck = minLoopChars
}

// add appends text (raw JSON string bytes, esc when they hold escapes) and
// reports a loop when the periodic-tail rule holds.
func (d *loopDetector) add(raw []byte, esc bool) (LoopHit, bool) {
	if len(raw) == 0 {
		return LoopHit{}, false
	}
	if esc {
		d.buf = appendUnescaped(d.buf, raw)
	} else {
		d.buf = append(d.buf, raw...)
	}
	if d.nextCheck == 0 {
		d.nextCheck = minLoopChars
	}
	if len(d.buf) < d.nextCheck {
		return LoopHit{}, false
	}
	if len(d.buf) > 2*loopWindow {
		// Keep the tail that can still matter.
		n := copy(d.buf, d.buf[len(d.buf)-loopWindow:])
		d.buf = d.buf[:n]
	}
	tail := d.buf
	if len(tail) > loopWindow {
		tail = tail[len(tail)-loopWindow:]
	}
	step := len(tail) / 8
	if step < 1024 {
		step = 1024
	}
	d.nextCheck = len(d.buf) + step
	p, m := periodicTail(tail)
	if p == 0 {
		return LoopHit{}, false
	}
	return LoopHit{PeriodChars: int64(p), Cycles: int64(m / p)}, true
}

var piPool = sync.Pool{New: func() any { s := make([]int32, 0, 4096); return &s }}

// periodicTail returns the period p and length m of the longest suffix of
// s that is p-periodic with m ≥ minLoopChars, m ≥ minLoopCycles·p and
// p ≤ maxLoopPeriod, where p is that suffix's smallest period; p is 0 when
// there is none.
func periodicTail(s []byte) (p, m int) {
	n := len(s)
	if n < minLoopChars {
		return 0, 0
	}
	pp := piPool.Get().(*[]int32)
	defer piPool.Put(pp)
	if cap(*pp) < n {
		*pp = make([]int32, n)
	}
	pi := (*pp)[:n]
	// r(i) is s read backwards, so prefixes of r are suffixes of s.
	r := func(i int) byte { return s[n-1-i] }
	pi[0] = 0
	for i := 1; i < n; i++ {
		k := int(pi[i-1])
		c := r(i)
		for k > 0 && r(k) != c {
			k = int(pi[k-1])
		}
		if r(k) == c {
			k++
		}
		pi[i] = int32(k)
	}
	for m := n; m >= minLoopChars; m-- {
		p := m - int(pi[m-1])
		if p <= maxLoopPeriod && m >= minLoopCycles*p {
			return p, m
		}
	}
	return 0, 0
}
