package pqwrite

import (
	"os"
	"testing"

	"speedmatrix/internal/testtool"
)

// TestMain caps the fuzzing engine's minimization (testtool.CapFuzzMinimize).
func TestMain(m *testing.M) { os.Exit(testtool.MainCappingFuzz(m)) }
