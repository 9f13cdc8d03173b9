package testtool

import (
	"runtime"
	"testing"
)

// TestResetPeakRSS: after this process has touched 64 MB and let it go,
// the reset brings its peak back to near its current RSS.
func TestResetPeakRSS(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("peak RSS reset is Linux's /proc/self/clear_refs")
	}
	before := ResetPeakRSS(t)
	b := make([]byte, 64<<20)
	for i := range b {
		b[i] = 1
	}
	runtime.KeepAlive(b)
	b = nil
	after := ResetPeakRSS(t)
	if before <= 0 || after <= 0 {
		t.Fatalf("VmHWM not read: %v, %v", before, after)
	}
	if after > before+32 {
		t.Errorf("peak after the reset %.0f MB, before the 64 MB touch %.0f MB: not reset", after, before)
	}
}
