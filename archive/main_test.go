package archive

import (
	"flag"
	"os"
	"testing"

	"speedmatrix/internal/testtool"
)

// TestMain caps the fuzzing engine's minimization (testtool.CapFuzzMinimize).
func TestMain(m *testing.M) {
	flag.Parse()
	testtool.CapFuzzMinimize()
	os.Exit(m.Run())
}
