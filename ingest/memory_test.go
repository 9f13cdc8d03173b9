package ingest

import (
	"os"
	"runtime/debug"
	"testing"
)

// TestTuneMemory checks that TuneMemory sets the collector's target and
// soft limit when the environment does not, leaves them when it does,
// lets roomFor move the limit only when it set it, and puts everything
// back.
func TestTuneMemory(t *testing.T) {
	gcNow := func() int { p := debug.SetGCPercent(100); debug.SetGCPercent(p); return p }
	limitNow := func() int64 { return debug.SetMemoryLimit(-1) }
	for _, tc := range []struct {
		name      string
		env       bool // GOGC and GOMEMLIMIT set
		wantGC    int
		wantLimit int64
	}{
		{"unset", false, gcPercent, memLimit},
		{"set", true, 77, 1 << 40},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, k := range []string{"GOGC", "GOMEMLIMIT"} {
				t.Setenv(k, "x") // restored after the test
				if !tc.env {
					os.Unsetenv(k)
				}
			}
			defer debug.SetGCPercent(debug.SetGCPercent(77))
			defer debug.SetMemoryLimit(debug.SetMemoryLimit(1 << 40))
			restore := TuneMemory()
			if gcNow() != tc.wantGC || limitNow() != tc.wantLimit {
				t.Errorf("GC %d, limit %d; want %d, %d", gcNow(), limitNow(), tc.wantGC, tc.wantLimit)
			}
			roomFor(60 << 20) // a streamed document: the limit moves by 1.5×
			want := tc.wantLimit
			if !tc.env {
				want = memLimit + 90<<20
			}
			if limitNow() != want {
				t.Errorf("after roomFor(60 MB): limit %d, want %d", limitNow(), want)
			}
			restore()
			if gcNow() != 77 || limitNow() != 1<<40 || ownLimit.Load() {
				t.Errorf("after restore: GC %d, limit %d, own %v; want 77, %d, false", gcNow(), limitNow(), ownLimit.Load(), int64(1<<40))
			}
		})
	}
}
