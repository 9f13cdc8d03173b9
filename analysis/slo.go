package analysis

import "math"

// SLO is a latency target; a zero limit is not checked.
type SLO struct {
	MaxTTFTMs, MaxTBTMs float64
}

// MeetSLO answers "the most simultaneous requests with TTFT ≤ MaxTTFTMs
// and TBT ≤ MaxTBTMs", per context of a run's frontier points (its valid
// decode cells), in context order. A cell lacking a checked latency does
// not qualify.
func MeetSLO(f Frontier, slo SLO) []Best {
	var out []Best
	for _, p := range f.Points {
		if len(out) == 0 || out[len(out)-1].ContextLabel != p.ContextLabel {
			out = append(out, Best{ContextLabel: p.ContextLabel})
		}
		if !within(p.TTFTMs, slo.MaxTTFTMs) || !within(p.TBTMs, slo.MaxTBTMs) {
			continue
		}
		b := &out[len(out)-1]
		if !b.Found || p.Concurrency > b.Cell.Concurrency {
			b.Found, b.Cell = true, p
		}
	}
	return out
}

func within(v, limit float64) bool {
	if limit <= 0 {
		return true
	}
	return !math.IsNaN(v) && v <= limit
}
