package peers

import (
	"testing"
)

func TestSanitizeJSON(t *testing.T) {
	tests := []struct{ in, want string }{
		{`{"a": Infinity}`, `{"a": "Infinity"}`},
		{`{"a": -Infinity, "b": NaN}`, `{"a": "-Infinity", "b": "NaN"}`},
		{`{"s": "Infinity and NaN stay"}`, `{"s": "Infinity and NaN stay"}`},
		{`{"s": "esc \" Infinity"}`, `{"s": "esc \" Infinity"}`},
		{`[1, 2]`, `[1, 2]`},
	}
	for _, tt := range tests {
		if got := string(sanitizeJSON([]byte(tt.in))); got != tt.want {
			t.Errorf("sanitizeJSON(%s) = %s, want %s", tt.in, got, tt.want)
		}
	}
}
