package runner

import (
	"strconv"
	"testing"
)

// TestRoundToPrintsShort checks that rounded figures are the floats
// nearest their decimals, so documents print "1413.3", not
// "1413.3000000000002".
func TestRoundToPrintsShort(t *testing.T) {
	tests := []struct {
		v, step float64
		want    string
	}{
		{1413.2999, 0.1, "1413.3"},
		{60191.74, 0.1, "60191.7"},
		{176.7000001, 0.1, "176.7"},
		{319.70000000000005, 0.1, "319.7"},
		{0.99994, 1e-4, "0.9999"},
		{2.98549, 0.001, "2.985"},
		{7.2, 0.5, "7"},
		{12345, 1, "12345"},
	}
	for _, tt := range tests {
		if got := strconv.FormatFloat(roundTo(tt.v, tt.step), 'f', -1, 64); got != tt.want {
			t.Errorf("roundTo(%v, %v) = %s, want %s", tt.v, tt.step, got, tt.want)
		}
	}
	// Every one-decimal figure up to 100,000 comes out as its shortest form.
	for i := 0; i < 1_000_000; i += 7 {
		v := float64(i)/10 + 0.04
		got := strconv.FormatFloat(roundTo(v, 0.1), 'f', -1, 64)
		want := strconv.FormatFloat(float64(i)/10, 'f', -1, 64)
		if got != want {
			t.Fatalf("roundTo(%v, 0.1) = %s, want %s", v, got, want)
		}
	}
}
