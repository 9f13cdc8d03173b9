package runner

import (
	"errors"
	"fmt"
	"sync/atomic"
)

// DefaultLineBufferBytes is the default bound on the memory a client's
// SSE readers hold, all streams together, for lines longer than their
// initial buffers.
const DefaultLineBufferBytes = 256 << 20

// errLineBudget marks a stream that failed because its line could not
// grow within the client's shared line-buffer budget.
var errLineBudget = errors.New("sse: line buffers over budget")

// lineBudget bounds the bytes that all the SSE readers of one client
// hold beyond their initial buffers. A reader reserves what it grows
// before it allocates and gives it back when it shrinks, so the total
// held for long lines never passes limit, whatever the concurrency.
//
// Note: the budget is first come, first served: a stream that would pass
// it fails (its request is an error with the reason below) while the
// streams that already hold long lines go on. A per-stream quota
// (limit/C) would make one legitimately long line fail at high
// concurrency even while the rest of the budget is free; the shared pool
// lets it through and still bounds the total. maxLineBytes still caps one
// line.
type lineBudget struct {
	limit int64
	used  atomic.Int64
	peak  atomic.Int64 // highest used, for tests and reports
}

// newLineBudget returns a budget of limit bytes (DefaultLineBufferBytes
// when limit ≤ 0).
func newLineBudget(limit int64) *lineBudget {
	if limit <= 0 {
		limit = DefaultLineBufferBytes
	}
	return &lineBudget{limit: limit}
}

// take reserves n bytes; it reports false, reserving nothing, when that
// would pass the limit.
func (b *lineBudget) take(n int64) bool {
	for {
		u := b.used.Load()
		if u+n > b.limit {
			return false
		}
		if b.used.CompareAndSwap(u, u+n) {
			for {
				p := b.peak.Load()
				if u+n <= p || b.peak.CompareAndSwap(p, u+n) {
					return true
				}
			}
		}
	}
}

// give returns n reserved bytes.
func (b *lineBudget) give(n int64) { b.used.Add(-n) }

// overBudget is the error of a line that cannot grow: it says how long
// the line had grown and what the budget is.
func (b *lineBudget) overBudget(have int) error {
	return fmt.Errorf("%w: a line passed %s while the client's line buffers, shared by all its streams, were full (%s in all; ClientConfig.LineBufferBytes)",
		errLineBudget, mib(int64(have)), mib(b.limit))
}

// mib formats a byte count in MiB (KiB below 1 MiB).
func mib(n int64) string {
	if n < 1<<20 {
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d MiB", n>>20)
}
