package schema

// Label returns the word the speed-test documents print for a status
// ("Valid", "Over capacity"); unknown statuses print as they are.
func (s Status) Label() string {
	switch s {
	case StatusValid:
		return "Valid"
	case StatusLooped:
		return "Looped"
	case StatusOverCapacity:
		return "Over capacity"
	case StatusSkipped:
		return "Skipped"
	case StatusError:
		return "Error"
	}
	return string(s)
}
