package power

import (
	"context"
	"fmt"
	"sort"
	"sync"
	"time"
)

// maxReadings bounds the readings a meter keeps: at 100 ms, about 29
// hours. Older readings are dropped (windows are asked for in order, a
// few minutes after they end at most).
const maxReadings = 1 << 20

// series is the readings a meter has taken, in time order, with the last
// error its sampling met. A background sampler appends; Window reads.
type series struct {
	mu       sync.Mutex
	readings []Reading
	lastErr  error
	done     bool // sampling stopped
	// grew is closed and replaced whenever a reading arrives or sampling
	// stops, to wake a waiting Window.
	grew chan struct{}
	// interval is the sampling interval (for the wait bound and the
	// largest gap integrated over).
	interval time.Duration
}

func newSeries(interval time.Duration) *series {
	return &series{grew: make(chan struct{}), interval: interval}
}

// add appends a reading (one older than the last is dropped: clocks do
// not run backwards between readings of one source).
func (s *series) add(r Reading) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if n := len(s.readings); n > 0 && r.At.Before(s.readings[n-1].At) {
		return
	}
	if len(s.readings) >= maxReadings {
		s.readings = append(s.readings[:0], s.readings[len(s.readings)/2:]...)
	}
	s.readings = append(s.readings, r)
	s.lastErr = nil
	close(s.grew)
	s.grew = make(chan struct{})
}

// fail records a sampling error (kept until the next reading).
func (s *series) fail(err error) {
	s.mu.Lock()
	s.lastErr = err
	s.mu.Unlock()
}

// stop marks the sampling ended, with err when it ended by failing.
func (s *series) stop(err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err != nil {
		s.lastErr = err
	}
	if !s.done {
		s.done = true
		close(s.grew)
	}
}

// window waits (at most wait beyond to, or until ctx ends) for a reading
// at or after to, then computes the energy between from and to.
func (s *series) window(ctx context.Context, from, to time.Time, wait time.Duration) (Energy, error) {
	if !to.After(from) {
		return Energy{}, fmt.Errorf("empty window (%v to %v)", from, to)
	}
	bound := time.NewTimer(time.Until(to) + s.interval + wait)
	defer bound.Stop()
	for {
		s.mu.Lock()
		n := len(s.readings)
		have := n > 0 && !s.readings[n-1].At.Before(to)
		done, lastErr, grew := s.done, s.lastErr, s.grew
		var rs []Reading
		if have {
			rs = s.around(from, to)
		}
		s.mu.Unlock()
		if have {
			return integrate(rs, from, to, 5*s.interval)
		}
		if done {
			if lastErr != nil {
				return Energy{}, lastErr
			}
			return Energy{}, fmt.Errorf("%w: sampling stopped before the window's end", ErrNoReadings)
		}
		select {
		case <-grew:
		case <-ctx.Done():
			return Energy{}, context.Cause(ctx)
		case <-bound.C:
			if lastErr != nil {
				return Energy{}, lastErr
			}
			return Energy{}, fmt.Errorf("%w: no reading at or after the window's end within %v", ErrNoReadings, s.interval+wait)
		}
	}
}

// around returns the readings from the last one at or before from to the
// first one at or after to (s.mu held).
func (s *series) around(from, to time.Time) []Reading {
	rs := s.readings
	i := sort.Search(len(rs), func(i int) bool { return rs[i].At.After(from) }) - 1
	if i < 0 {
		i = 0
	}
	j := sort.Search(len(rs), func(j int) bool { return !rs[j].At.Before(to) })
	if j == len(rs) {
		j--
	}
	return append([]Reading(nil), rs[i:j+1]...)
}

// integrate computes the energy between from and to from readings that
// start at or before from and end at or after to: from an energy counter
// when every reading has one, else from power samples no further apart
// than maxGap.
func integrate(rs []Reading, from, to time.Time, maxGap time.Duration) (Energy, error) {
	if len(rs) == 0 || rs[0].At.After(from) {
		return Energy{}, fmt.Errorf("%w: no reading at or before the window's start", ErrNoReadings)
	}
	if rs[len(rs)-1].At.Before(to) {
		return Energy{}, fmt.Errorf("%w: no reading at or after the window's end", ErrNoReadings)
	}
	gpus := rs[0].GPUs
	counter, power := true, true
	for _, r := range rs {
		if r.GPUs != gpus {
			return Energy{}, fmt.Errorf("the GPUs reported changed from %d to %d at %s", gpus, r.GPUs, r.At.Format(time.RFC3339Nano))
		}
		counter = counter && r.HasEnergy
		power = power && r.HasPower
	}
	e := Energy{GPUs: gpus}
	for _, r := range rs {
		if !r.At.Before(from) && !r.At.After(to) {
			e.Readings++
		}
	}
	secs := to.Sub(from).Seconds()
	switch {
	case counter:
		for k := 1; k < len(rs); k++ {
			if rs[k].EnergyJ < rs[k-1].EnergyJ {
				return Energy{}, fmt.Errorf("the energy counter fell by %.3f J at %s (reset?)", rs[k-1].EnergyJ-rs[k].EnergyJ, rs[k].At.Format(time.RFC3339Nano))
			}
		}
		e.Method = "counter"
		start, edgeA := counterAt(rs, from)
		end, edgeB := counterAt(rs, to)
		e.J, e.EdgeJ = end-start, edgeA+edgeB
	case power:
		e.Method = "power"
		for k := 1; k < len(rs); k++ {
			a, b := rs[k-1], rs[k]
			if gap := b.At.Sub(a.At); gap > maxGap && b.At.After(from) && a.At.Before(to) {
				return Energy{}, fmt.Errorf("no power reading for %v inside the window (from %s)", gap.Round(time.Millisecond), a.At.Format(time.RFC3339Nano))
			}
			// The part of [a, b] inside the window, with the power
			// interpolated at its ends.
			lo, hi := maxTime(a.At, from), minTime(b.At, to)
			if !hi.After(lo) {
				continue
			}
			pl, ph := powerAt(a, b, lo), powerAt(a, b, hi)
			j := (pl + ph) / 2 * hi.Sub(lo).Seconds()
			e.J += j
			if a.At.Before(from) || b.At.After(to) {
				e.EdgeJ += (a.PowerW + b.PowerW) / 2 * b.At.Sub(a.At).Seconds()
			}
		}
	default:
		return Energy{}, fmt.Errorf("readings around the window carry neither an energy counter on every one nor a power on every one")
	}
	e.AvgW = e.J / secs
	return e, nil
}

// counterAt interpolates the counter at t between the readings around
// it, and returns the energy of that interval (0 when t is a reading).
func counterAt(rs []Reading, t time.Time) (float64, float64) {
	for k := 1; k < len(rs); k++ {
		a, b := rs[k-1], rs[k]
		if t.Before(a.At) || t.After(b.At) {
			continue
		}
		switch {
		case t.Equal(a.At):
			return a.EnergyJ, 0
		case t.Equal(b.At):
			return b.EnergyJ, 0
		}
		f := float64(t.Sub(a.At)) / float64(b.At.Sub(a.At))
		return a.EnergyJ + f*(b.EnergyJ-a.EnergyJ), b.EnergyJ - a.EnergyJ
	}
	return rs[0].EnergyJ, 0 // a single reading at t
}

func powerAt(a, b Reading, t time.Time) float64 {
	d := b.At.Sub(a.At)
	if d <= 0 {
		return a.PowerW
	}
	f := float64(t.Sub(a.At)) / float64(d)
	return a.PowerW + f*(b.PowerW-a.PowerW)
}

func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

func minTime(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}
