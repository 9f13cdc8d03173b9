package runner

import (
	"crypto/rand"
	"encoding/hex"
	"strconv"
	"sync/atomic"
)

// RequestIDHeader is the header every streaming request carries: an id
// that names the run, the cell and the request, so that a sample can be
// matched to the engine's own log line (vLLM takes it as its request id;
// engines that do not know it ignore it) and a proxy can tell which cell
// a request belonged to however late it reached it.
const RequestIDHeader = "X-Request-Id"

// requestIDs hands out request ids of the form
// sm-<nonce>-<label>-<n>: nonce is random per client (two runs against
// one server never share an id), label names the cell ("decode-8K-c4",
// "probe") and n counts the client's requests, so that no two requests
// of a run, concurrent or not, share an id.
//
// Note: uniqueness matters, not only for logs: vLLM takes the header as
// its engine request id (vllm-project/vllm#10968), and two running
// requests with one id break its engine (vllm-project/vllm#10583).
type requestIDs struct {
	prefix string
	n      atomic.Int64
}

func newRequestIDs() *requestIDs {
	var b [4]byte
	// Note: crypto/rand never fails on Linux (it panics in the
	// unthinkable case); a fixed prefix would still give unique ids
	// within the run.
	_, _ = rand.Read(b[:])
	return &requestIDs{prefix: "sm-" + hex.EncodeToString(b[:]) + "-"}
}

// next returns the next id for label.
func (r *requestIDs) next(label string) string {
	if label == "" {
		label = "req"
	}
	n := r.n.Add(1)
	b := make([]byte, 0, len(r.prefix)+len(label)+12)
	b = append(b, r.prefix...)
	b = append(b, label...)
	b = append(b, '-')
	b = strconv.AppendInt(b, n, 10)
	return string(b)
}

// Prefix returns the part every id of the client starts with
// ("sm-1a2b3c4d-"), to grep an engine's log for the run's requests.
func (r *requestIDs) Prefix() string { return r.prefix }

// RequestIDPrefix returns the prefix of the X-Request-Id of every request
// the client sends.
func (c *Client) RequestIDPrefix() string { return c.ids.Prefix() }

// CellRequestLabel is the label a decode cell's request ids carry:
// "decode-<context label>-c<concurrency>".
func CellRequestLabel(contextLabel string, concurrency int) string {
	return "decode-" + contextLabel + "-c" + strconv.Itoa(concurrency)
}
