//go:build unix

package testtool

import (
	"runtime"
	"testing"
)

func TestMaxRSSBytes(t *testing.T) {
	want := int64(1000) << 10
	if runtime.GOOS == "darwin" || runtime.GOOS == "ios" {
		want = 1000
	}
	if got := maxRSSBytes(1000); got != want {
		t.Errorf("maxRSSBytes(1000) on %s = %d, want %d", runtime.GOOS, got, want)
	}
}
