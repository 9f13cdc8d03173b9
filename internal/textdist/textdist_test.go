package textdist

import "testing"

// TestLevenshtein checks the distance on the cases suggestions meet.
func TestLevenshtein(t *testing.T) {
	for _, tt := range []struct {
		a, b string
		want int
	}{
		{"", "", 0}, {"archive", "archive", 0}, {"archiv", "archive", 1}, {"htm", "html", 1},
		{"H200", "H100", 1}, {"kitten", "sitting", 3}, {"", "abc", 3}, {"abc", "", 3}, {"flaw", "lawn", 2},
	} {
		if got := Levenshtein(tt.a, tt.b); got != tt.want {
			t.Errorf("Levenshtein(%q, %q) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
		if got := Levenshtein(tt.b, tt.a); got != tt.want {
			t.Errorf("Levenshtein(%q, %q) = %d, want %d (symmetric)", tt.b, tt.a, got, tt.want)
		}
	}
}
