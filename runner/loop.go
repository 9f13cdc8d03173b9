package runner

import (
	"bytes"
	"sync"
)

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
// linear time, after a vectorized search that rules out most non-looping
// text, and checks are spaced by a quarter of the tail they scan (at
// least 2 KiB), so the cost is a few operations per byte of text,
// amortized, and a loop is found at most loopWindow/4 bytes after it
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
	step := len(tail) / 4
	if step < 2048 {
		step = 2048
	}
	d.nextCheck = len(d.buf) + step
	p, m := periodicTail(tail)
	if p == 0 {
		return LoopHit{}, false
	}
	return LoopHit{PeriodChars: int64(p), Cycles: int64(m / p)}, true
}

type loopScratch struct {
	rev []byte
	pi  []int32
}

var loopPool = sync.Pool{New: func() any { return new(loopScratch) }}

// loopProbe is the length of the suffix whose earlier occurrence a
// periodic tail implies (the cheap test before the full one).
const loopProbe = 128

// periodicTail returns the period p and length m of the longest suffix of
// s that is p-periodic with m ≥ minLoopChars, m ≥ minLoopCycles·p and
// p ≤ maxLoopPeriod, where p is that suffix's smallest period; p is 0 when
// there is none.
func periodicTail(s []byte) (p, m int) {
	n := len(s)
	if n < minLoopChars {
		return 0, 0
	}
	// A p-periodic tail longer than p + 128 bytes repeats its last
	// 128 bytes p bytes earlier; prose almost never does, so this vectorized
	// search rules most checks out before the linear-time pass.
	if bytes.LastIndex(s[max(0, n-loopProbe-maxLoopPeriod):n-1], s[n-loopProbe:]) < 0 {
		return 0, 0
	}
	sc := loopPool.Get().(*loopScratch)
	defer loopPool.Put(sc)
	if cap(sc.rev) < n {
		sc.rev = make([]byte, n)
		sc.pi = make([]int32, n)
	}
	// r is s reversed, so prefixes of r are suffixes of s; pi is its
	// prefix function (KMP failure function).
	r, pi := sc.rev[:n], sc.pi[:n]
	for i := range r {
		r[i] = s[n-1-i]
	}
	pi[0] = 0
	for i := 1; i < n; i++ {
		k := pi[i-1]
		c := r[i]
		for k > 0 && r[k] != c {
			k = pi[k-1]
		}
		if r[k] == c {
			k++
		}
		pi[i] = k
	}
	for m := n; m >= minLoopChars; m-- {
		p := m - int(pi[m-1])
		if p <= maxLoopPeriod && m >= minLoopCycles*p {
			return p, m
		}
	}
	return 0, 0
}
