//go:build !linux

package sim

import "time"

var monoBase = time.Now()

// pinEngineThread does nothing where precise thread sleeps are not
// available; the engine then paces with time.Sleep.
func pinEngineThread() {}

// monoNow returns nanoseconds on the monotonic clock since package start.
func monoNow() int64 { return int64(time.Since(monoBase)) }

// sleepUntil sleeps until monoNow reaches deadline (ns).
func sleepUntil(deadline int64) {
	if d := time.Duration(deadline - monoNow()); d > 0 {
		time.Sleep(d)
	}
}
