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
// cell i of n, phase, elapsed, ETA and current tok/s) or, when not a
// terminal, one quiet line per finished cell.
type ProgressPrinter struct {
	W        io.Writer
	Terminal bool
	// CellTime estimates a decode cell's length for the ETA (window plus
	// ramp-up).
	CellTime time.Duration

	mu        sync.Mutex
	start     time.Time
	lastTok   int64
	lastAt    time.Duration
	rate      float64
	lastPrint time.Time
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
	eta := "?"
	if ev.Cell > 1 {
		per := time.Since(p.start) / time.Duration(ev.Cell-1)
		eta = (per * time.Duration(ev.Cells-ev.Cell+1)).Round(time.Second).String()
	}
	fmt.Fprintf(p.W, "\r\033[K%s · %s · elapsed %v · ETA %s · %.0f tok/s", cell, ev.Phase, elapsed, eta, p.rate)
}
