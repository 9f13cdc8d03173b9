package testtool

import (
	"flag"
	"testing"
	"time"
)

// FuzzMinimize is how long the fuzzing engine minimizes one input when
// the command line does not say (go test's default is 60s).
const FuzzMinimize = time.Second

// CapFuzzMinimize sets -test.fuzzminimizetime to FuzzMinimize unless the
// command line set it. Call it from TestMain after flag.Parse.
//
// Note: the engine minimizes every input that widens coverage before it
// counts it, for up to the minimize time; with the default 60s, a 3-minute
// run of a parser whose inputs are documents spent nearly all its time
// minimizing and ran 5–43 inputs. A crasher can still be minimized for
// longer with -fuzzminimizetime on the command line.
func CapFuzzMinimize() {
	set := false
	flag.Visit(func(f *flag.Flag) {
		if f.Name == "test.fuzzminimizetime" {
			set = true
		}
	})
	if !set && flag.Lookup("test.fuzzminimizetime") != nil {
		_ = flag.Set("test.fuzzminimizetime", FuzzMinimize.String())
	}
}

// MainCappingFuzz is a TestMain body: it parses the flags, caps the
// engine's minimization (CapFuzzMinimize) and runs the tests, returning
// the exit code.
func MainCappingFuzz(m *testing.M) int {
	flag.Parse()
	CapFuzzMinimize()
	return m.Run()
}
