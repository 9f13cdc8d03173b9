package ingest

import (
	"fmt"
	"io"
	"sync"
	"time"
)

// ProgressLine is a Progress for a terminal: one line, redrawn in place
// with \r, with the files done of the total, the rate and the time left,
// at most every progressEvery. The command decides whether its standard
// error is a terminal and passes no Progress when it is not, so that
// piped output carries nothing extra. A nil *ProgressLine draws nothing.
type ProgressLine struct {
	w   io.Writer
	now func() time.Time

	mu          sync.Mutex
	start, last time.Time
	drawn       bool // the line is on the screen
	updated     bool // Update was called
}

// progressEvery bounds how often the line is redrawn.
const progressEvery = 200 * time.Millisecond

// NewProgressLine returns a ProgressLine that draws on w; the rate
// counts from now.
func NewProgressLine(w io.Writer) *ProgressLine {
	return &ProgressLine{w: w, now: time.Now, start: time.Now()}
}

// Update redraws the line for done of total files: at the first call, at
// the last (done == total), and otherwise at most every progressEvery.
func (p *ProgressLine) Update(done, total int) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	now := p.now()
	if p.updated && done < total && now.Sub(p.last) < progressEvery {
		return
	}
	p.updated = true
	p.last = now
	fmt.Fprintf(p.w, "\r\033[K%s", progressText(done, total, now.Sub(p.start)))
	p.drawn = true
}

// progressText is the line's text for done of total files after elapsed.
func progressText(done, total int, elapsed time.Duration) string {
	s := fmt.Sprintf("ingest: %d/%d files", done, total)
	if done == 0 || elapsed <= 0 {
		return s
	}
	rate := float64(done) / elapsed.Seconds()
	s += fmt.Sprintf(" · %.0f files/s", rate)
	if done < total {
		left := time.Duration(float64(total-done) / rate * float64(time.Second))
		s += fmt.Sprintf(" · about %v left", max(time.Second, left.Round(time.Second)))
	}
	return s
}

// Clear erases the line, so that a message can be written on stderr; the
// next Update draws it again.
func (p *ProgressLine) Clear() {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.drawn {
		fmt.Fprint(p.w, "\r\033[K")
		p.drawn = false
		p.last = time.Time{}
	}
}

// Finish erases the line.
func (p *ProgressLine) Finish() { p.Clear() }
