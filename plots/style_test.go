package plots

import (
	"fmt"
	"testing"
)

// TestRunStylesDistinct: every run of a comparison of up to 16 runs gets
// its own pair of line pattern and marker.
func TestRunStylesDistinct(t *testing.T) {
	seen := map[string]int{}
	for i := range 16 {
		k := fmt.Sprintf("%v %T", runDash(i), runGlyph(i))
		if j, ok := seen[k]; ok {
			t.Errorf("runs %d and %d are both drawn %s", j, i, k)
		}
		seen[k] = i
	}
}
