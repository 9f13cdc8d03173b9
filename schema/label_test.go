package schema

import "testing"

func TestStatusLabel(t *testing.T) {
	for s, want := range map[Status]string{
		StatusValid: "Valid", StatusLooped: "Looped", StatusOverCapacity: "Over capacity",
		StatusSkipped: "Skipped", StatusError: "Error", "weird": "weird",
	} {
		if got := s.Label(); got != want {
			t.Errorf("%q.Label() = %q, want %q", s, got, want)
		}
	}
}
