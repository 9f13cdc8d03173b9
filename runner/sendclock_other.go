//go:build !linux

package runner

import (
	"context"
	"errors"
	"time"
)

// newPreciseClock has no precise clock to offer here: the runtime timer
// (timerClock) is used.
func newPreciseClock(ctx context.Context, epoch time.Time) (sendClock, error) {
	return nil, errors.New("no precise send clock on this platform")
}

// newSleepClock has no clock_nanosleep here: the runtime timer is used.
func newSleepClock(ctx context.Context, epoch time.Time) (sendClock, error) {
	return nil, errors.New("no clock_nanosleep on this platform")
}
