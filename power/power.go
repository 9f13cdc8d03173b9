package power

import (
	"context"
	"errors"
	"time"
)

// Reading is what a source said at one instant, summed over the GPUs it
// reported.
type Reading struct {
	// At is when the reading was taken (the source's own timestamp when
	// it gives one, else when the answer arrived).
	At time.Time
	// EnergyJ is the sum of the GPUs' energy counters in joules (valid
	// when HasEnergy); only its changes mean anything.
	EnergyJ   float64
	HasEnergy bool
	// PowerW is the sum of the GPUs' power in watts (valid when
	// HasPower).
	PowerW   float64
	HasPower bool
	// GPUs is how many GPUs the reading sums.
	GPUs int
}

// Energy is what a Meter measured over a window.
type Energy struct {
	// J is the energy of every GPU over the window, in joules.
	J float64
	// AvgW is J ÷ the window's length in seconds.
	AvgW float64
	// Method is "counter" (an energy counter's change) or "power"
	// (power samples integrated).
	Method string
	// EdgeJ bounds the error of the interpolation at the window's two
	// edges: the energy drawn in the sample intervals that hold them
	// (zero when an edge falls on a reading).
	EdgeJ float64
	// Readings is how many readings fell inside the window.
	Readings int
	// GPUs is how many GPUs the readings sum.
	GPUs int
}

// Source is a place power figures come from.
type Source interface {
	// Name says where the figures came from (schema.Run.PowerSource):
	// "dcgm URL", "nvidia-smi", "amd-smi", "prometheus URL".
	Name() string
	// Start begins measuring; the Meter samples until Close (or until ctx
	// ends). Start fails when the source does not answer at all.
	Start(ctx context.Context) (Meter, error)
}

// Meter measures energy over windows of the time it has been running.
type Meter interface {
	// Window returns the energy between from and to. It waits, at most
	// for the meter's bound or until ctx ends, for a reading at or after
	// to.
	Window(ctx context.Context, from, to time.Time) (Energy, error)
	// Close stops sampling and releases what the meter holds (a
	// subprocess, idle connections).
	Close() error
}

// Timeouts bound what a source does.
type Timeouts struct {
	// Request bounds one scrape, query or one-shot command (default 5 s).
	Request time.Duration
	// Silence bounds the wait for a streaming command's next line
	// (default 5 s); past it the meter reports the command silent.
	Silence time.Duration
	// Wait bounds how long Window waits for a reading at or after the
	// window's end, beyond one sampling interval (default: Request).
	Wait time.Duration
}

func (t Timeouts) withDefaults() Timeouts {
	if t.Request <= 0 {
		t.Request = 5 * time.Second
	}
	if t.Silence <= 0 {
		t.Silence = 5 * time.Second
	}
	if t.Wait <= 0 {
		t.Wait = t.Request
	}
	return t
}

// ErrNoReadings is returned by Window when the meter has no reading
// around the window's start or end.
var ErrNoReadings = errors.New("no reading around the window")
