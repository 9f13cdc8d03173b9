package runner

import (
	"fmt"
	"io"
	"sync"
	"time"

	"speedmatrix/schema"
)

// Progress is one progress event of a run.
type Progress struct {
	// Cell is the 1-based index of the cell among Cells.
	Cell, Cells int
	// Phase is what the runner is doing: "prompt", "prefill", "scout",
	// "ramp-up", "queue drain", "measure" or "done".
	Phase       string
	PhaseName   schema.Phase
	Label       string
	Concurrency int
	// Elapsed is the time since the cell started; Tokens the tokens
	// streamed so far in it.
	Elapsed time.Duration
	Tokens  int64
	// Done events carry the cell's status and total tok/s.
	Done   bool
	Status schema.Status
	TokS   float64
}

// ProgressPrinter writes progress to a terminal (one rewritten line with
// cell i of n, phase, elapsed, time left and current tok/s) or, when not
// a terminal, one quiet line per finished cell. With the run's Schedule
// (Plan), each finished cell's line says about how long the rest will
// take (Schedule.Left, from what the finished cells took).
type ProgressPrinter struct {
	W        io.Writer
	Terminal bool

	mu        sync.Mutex
	start     time.Time
	lastTok   int64
	lastAt    time.Duration
	rate      float64
	lastPrint time.Time
	sched     *Schedule
	took      []time.Duration
	stepStart time.Time // when the step in progress began (the last step's end)
}

// Plan takes the run's schedule (Config.Plan): the time left is estimated
// from it.
func (p *ProgressPrinter) Plan(s Schedule) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.sched = &s
	p.took = make([]time.Duration, len(s.Steps))
	p.stepStart = time.Now()
}

// left is the time the steps from cell (1-based) on are expected to take,
// less the time cell has run so far when it is not finished, as words
// ("" without a schedule).
func (p *ProgressPrinter) left(cell int, finished bool, now time.Time) string {
	if p.sched == nil || cell > len(p.sched.Steps) {
		return ""
	}
	done := cell - 1
	if finished {
		done = cell
	}
	d, unknown := p.sched.Left(done, p.took)
	if !finished {
		d = max(0, d-now.Sub(p.stepStart))
	}
	switch {
	case d == 0 && unknown == 0:
		return ""
	case unknown > 0 && d == 0:
		return plural(unknown, "load") + " of unknown length left"
	case unknown > 0:
		return fmt.Sprintf("%s left before %s whose length the probes decide", About(d), plural(unknown, "more load"))
	}
	return About(d) + " left"
}

// Print handles one event.
func (p *ProgressPrinter) Print(ev Progress) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.start.IsZero() {
		p.start = time.Now()
	}
	cell := fmt.Sprintf("cell %d/%d %s %s", ev.Cell, ev.Cells, ev.PhaseName, ev.Label)
	if ev.PhaseName == schema.PhaseDecode {
		cell += fmt.Sprintf(" ×%d", ev.Concurrency)
	}
	if ev.Done {
		line := fmt.Sprintf("%s: %s", cell, ev.Status)
		if ev.TokS > 0 {
			line += fmt.Sprintf(", %.1f tok/s", ev.TokS)
		}
		if p.sched != nil && ev.Cell >= 1 && ev.Cell <= len(p.took) {
			now := time.Now()
			p.took[ev.Cell-1] = now.Sub(p.stepStart)
			p.stepStart = now
			if left := p.left(ev.Cell, true, now); left != "" {
				line += " · " + left
			}
		}
		if p.Terminal {
			fmt.Fprintf(p.W, "\r\033[K%s\n", line)
		} else {
			fmt.Fprintln(p.W, line)
		}
		p.lastTok, p.lastAt, p.rate = 0, 0, 0
		return
	}
	if !p.Terminal {
		return
	}
	if ev.Elapsed > p.lastAt && ev.Tokens >= p.lastTok {
		dt := (ev.Elapsed - p.lastAt).Seconds()
		if dt > 0.2 {
			p.rate = float64(ev.Tokens-p.lastTok) / dt
			p.lastTok, p.lastAt = ev.Tokens, ev.Elapsed
		}
	}
	if time.Since(p.lastPrint) < 200*time.Millisecond {
		return
	}
	p.lastPrint = time.Now()
	elapsed := time.Since(p.start).Round(time.Second)
	left := p.left(ev.Cell, false, p.lastPrint)
	if left == "" {
		left = "time left unknown"
	}
	fmt.Fprintf(p.W, "\r\033[K%s · %s · elapsed %v · %s · %.0f tok/s", cell, ev.Phase, elapsed, left, p.rate)
}
