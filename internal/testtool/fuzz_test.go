package testtool

import (
	"flag"
	"testing"
)

// TestCapFuzzMinimize checks that the cap applies when the command line
// left the flag alone (go test without -fuzzminimizetime).
func TestCapFuzzMinimize(t *testing.T) {
	f := flag.Lookup("test.fuzzminimizetime")
	if f == nil {
		t.Fatal("no test.fuzzminimizetime flag")
	}
	old := f.Value.String()
	defer flag.Set("test.fuzzminimizetime", old)
	CapFuzzMinimize()
	if got := f.Value.String(); got != FuzzMinimize.String() {
		t.Errorf("after CapFuzzMinimize: %s, want %s", got, FuzzMinimize)
	}
}
