package sim

import (
	"fmt"
	"time"
)

// FaultKind names one way a real server misbehaves.
type FaultKind string

// The faults the simulator can inject.
const (
	// FaultHTTPStatus answers with HTTP Status (400, 429, 500, 503…) and an
	// OpenAI-style error body before streaming anything.
	FaultHTTPStatus FaultKind = "http_status"
	// FaultStreamError sends `data: {"error": {...}}` inside the HTTP 200
	// stream after AfterTokens tokens, then `data: [DONE]`.
	FaultStreamError FaultKind = "stream_error"
	// FaultReset resets the TCP connection (RST) after AfterTokens tokens.
	FaultReset FaultKind = "reset"
	// FaultStall stops writing for Duration after AfterTokens tokens; the
	// engine keeps generating, so the next chunk carries what accumulated.
	FaultStall FaultKind = "stall"
	// FaultNoDone ends the stream without `data: [DONE]`.
	FaultNoDone FaultKind = "no_done"
	// FaultLongLine pads the content of the chunk after AfterTokens tokens
	// to LineBytes bytes (1 MiB when 0); the chunk still counts as the
	// tokens it carries.
	FaultLongLine FaultKind = "long_line"
)

// Fault is one injected fault and when it fires: on every Every-th request
// (1-based arrival number; 0 = not by count) and/or with probability Rate,
// drawn from the profile's Seed and the request number.
type Fault struct {
	Kind  FaultKind
	Every int
	Rate  float64
	// Status is the HTTP status of FaultHTTPStatus.
	Status int
	// AfterTokens is how many tokens are streamed before a mid-stream
	// fault strikes; a fault whose AfterTokens exceeds the answer's length
	// does not strike (the record still names it). At exactly the answer's
	// length it strikes before the usage chunk and [DONE].
	AfterTokens int
	// Duration is how long FaultStall stalls (divided by Speedup).
	Duration time.Duration
	// LineBytes is the content size of FaultLongLine's chunk.
	LineBytes int
}

// String describes the fault for request records.
func (f Fault) String() string {
	switch f.Kind {
	case FaultHTTPStatus:
		return fmt.Sprintf("%s %d", f.Kind, f.Status)
	case FaultStall:
		return fmt.Sprintf("%s %v after %d tokens", f.Kind, f.Duration, f.AfterTokens)
	case FaultNoDone:
		return string(f.Kind)
	default:
		return fmt.Sprintf("%s after %d tokens", f.Kind, f.AfterTokens)
	}
}

// pickFault returns the first fault that fires for request number n, or
// nil.
func (p *Profile) pickFault(n uint64) *Fault {
	for i := range p.Faults {
		f := &p.Faults[i]
		if f.Every > 0 && n%uint64(f.Every) == 0 {
			return f
		}
		if f.Rate > 0 && unitFloat(mix(p.Seed, n, uint64(i)+0x9e37)) < f.Rate {
			return f
		}
	}
	return nil
}

// mix hashes its arguments into 64 well-mixed bits (splitmix64 finalizer).
func mix(a, b, c uint64) uint64 {
	z := a*0x9e3779b97f4a7c15 ^ b*0xbf58476d1ce4e5b9 ^ c*0x94d049bb133111eb
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// unitFloat maps 64 random bits to [0, 1).
func unitFloat(x uint64) float64 { return float64(x>>11) / (1 << 53) }
