package ingest

import (
	"strings"
	"testing"
	"time"
)

// TestProgressLine drives the line with a fake clock: the first and the
// last update are drawn, others at most every progressEvery, with the
// rate and the time left; Clear erases it and the next update redraws.
func TestProgressLine(t *testing.T) {
	var b strings.Builder
	at := time.Unix(1000, 0)
	p := NewProgressLine(&b)
	p.now, p.start = func() time.Time { return at }, at
	step := func(d time.Duration, done, total int) string {
		at = at.Add(d)
		b.Reset()
		p.Update(done, total)
		return b.String()
	}
	tests := []struct {
		name        string
		d           time.Duration
		done, total int
		want        string
	}{
		{"first update drawn", 0, 1, 1000, "\r\033[Kingest: 1/1000 files"},
		{"too soon", 100 * time.Millisecond, 2, 1000, ""},
		{"after the interval: rate and time left", 900 * time.Millisecond, 100, 1000, "\r\033[Kingest: 100/1000 files · 100 files/s · about 9s left"},
		{"too soon again", 100 * time.Millisecond, 120, 1000, ""},
		{"slower: 40 s left", 8900 * time.Millisecond, 200, 1000, "\r\033[Kingest: 200/1000 files · 20 files/s · about 40s left"},
		{"the last is always drawn", time.Millisecond, 1000, 1000, "\r\033[Kingest: 1000/1000 files · 100 files/s"},
	}
	for _, tt := range tests {
		if got := step(tt.d, tt.done, tt.total); got != tt.want {
			t.Errorf("%s: %q, want %q", tt.name, got, tt.want)
		}
	}
	b.Reset()
	p.Clear()
	if b.String() != "\r\033[K" {
		t.Errorf("Clear wrote %q", b.String())
	}
	b.Reset()
	p.Clear()
	p.Finish()
	if b.String() != "" {
		t.Errorf("a cleared line was erased again: %q", b.String())
	}
	if got := step(time.Millisecond, 1000, 1000); !strings.HasPrefix(got, "\r\033[Kingest: 1000/1000") {
		t.Errorf("after Clear the next update is not drawn: %q", got)
	}
}
