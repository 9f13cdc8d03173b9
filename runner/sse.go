package runner

import (
	"bytes"
	"errors"
	"io"
	"time"
)

// maxLineBytes bounds one SSE line. Real servers send lines of a few
// hundred bytes, but a chunk carrying a long tool call or many speculative
// tokens can reach megabytes; past this bound the stream is an error rather
// than unbounded memory.
const maxLineBytes = 64 << 20

// errLineTooLong reports an SSE line over maxLineBytes.
var errLineTooLong = errors.New("sse: line longer than 64 MiB")

// sseReader splits a text/event-stream body into the payloads of its
// "data:" lines and stamps each with the time the bytes that completed it
// arrived (read before any JSON is decoded).
//
// Note: bufio.Scanner is not used because its token limit turns a long line
// into an error and its split function hides when a read returned; this
// reader grows its buffer for long lines and records the arrival time of
// every read. Each data line is dispatched as one event: OpenAI-compatible
// servers put one JSON object on one line, and dispatching at the line
// (rather than at the blank line that ends the event) keeps the timestamp
// of the bytes that carried it and avoids a copy.
type sseReader struct {
	r     io.Reader
	buf   []byte
	start int       // first unconsumed byte
	end   int       // end of valid bytes
	scan  int       // bytes before scan hold no '\n' (from start)
	at    time.Time // arrival time of the most recent read
	err   error
	reads int // number of reads that returned bytes
	// small is the initial buffer, which buf returns to once a long line
	// is consumed; the bytes buf holds beyond it (held) are reserved from
	// budget, the client's bound on all its streams' line buffers (nil:
	// no bound but maxLineBytes).
	small  []byte
	held   int64
	budget *lineBudget
}

// newSSEReader returns a reader over r with an initial buffer of size bytes
// (grown on demand for long lines).
func newSSEReader(r io.Reader, buf []byte) *sseReader {
	if cap(buf) < 4096 {
		buf = make([]byte, 32<<10)
	}
	buf = buf[:cap(buf)]
	return &sseReader{r: r, buf: buf, small: buf}
}

// reset points the reader at a new body, keeping its initial buffer.
func (s *sseReader) reset(r io.Reader) {
	s.release()
	s.r, s.start, s.end, s.scan, s.err, s.reads = r, 0, 0, 0, nil, 0
	s.at = time.Time{}
}

// release drops a buffer grown for a long line, returning its bytes to
// the budget; the reader goes back to its initial buffer, so its content
// is lost (call it between bodies, or when what is left fits, see fill).
func (s *sseReader) release() {
	if len(s.buf) != len(s.small) {
		s.buf = s.small
	}
	if s.held > 0 {
		s.budget.give(s.held)
		s.held = 0
	}
}

// next returns the payload of the next data line (without "data:" and one
// optional space, and without the line ending) and the arrival time of the
// read that completed the line. The payload aliases the reader's buffer and
// is valid until the next call. At the end of the body it returns io.EOF;
// a final line without a newline is still returned first.
func (s *sseReader) next() ([]byte, time.Time, error) {
	for {
		line, ok := s.line()
		if !ok {
			if s.err != nil {
				if s.err == io.EOF && s.end > s.start {
					// A last line without its newline.
					line = s.buf[s.start:s.end]
					if n := len(line); line[n-1] == '\r' {
						line = line[:n-1]
					}
					s.start = s.end
					s.scan = s.end
					if p, ok := dataPayload(line); ok {
						return p, s.at, nil
					}
				}
				return nil, s.at, s.err
			}
			if err := s.fill(); err != nil {
				s.err = err
			}
			continue
		}
		if p, ok := dataPayload(line); ok {
			return p, s.at, nil
		}
		// Comments (": keep-alive"), "event:", "id:", "retry:" and blank
		// lines carry no tokens.
	}
}

// line returns the next complete line in the buffer, if any.
func (s *sseReader) line() ([]byte, bool) {
	if s.scan < s.start {
		s.scan = s.start
	}
	i := bytes.IndexByte(s.buf[s.scan:s.end], '\n')
	if i < 0 {
		s.scan = s.end
		return nil, false
	}
	nl := s.scan + i
	line := s.buf[s.start:nl]
	s.start = nl + 1
	s.scan = s.start
	if n := len(line); n > 0 && line[n-1] == '\r' {
		line = line[:n-1]
	}
	return line, true
}

// fill reads more bytes, compacting or growing the buffer first.
func (s *sseReader) fill() error {
	switch {
	case len(s.buf) != len(s.small) && s.end-s.start < len(s.small)/2:
		// The long line is consumed and what is left fits the initial
		// buffer: the grown one goes back to the budget.
		n := copy(s.small, s.buf[s.start:s.end])
		s.scan -= s.start
		s.start, s.end = 0, n
		s.release()
	case s.start > 0 && (s.start == s.end || s.end == len(s.buf)):
		n := copy(s.buf, s.buf[s.start:s.end])
		s.scan -= s.start
		s.start, s.end = 0, n
	}
	if s.end == len(s.buf) {
		if len(s.buf) >= maxLineBytes {
			return errLineTooLong
		}
		if s.budget != nil {
			need := int64(2*len(s.buf)-len(s.small)) - s.held
			if !s.budget.take(need) {
				return s.budget.overBudget(len(s.buf))
			}
			s.held += need
		}
		nb := make([]byte, 2*len(s.buf))
		copy(nb, s.buf[s.start:s.end])
		s.scan -= s.start
		s.end -= s.start
		s.start = 0
		s.buf = nb
	}
	n, err := s.r.Read(s.buf[s.end:])
	if n > 0 {
		s.at = time.Now()
		s.end += n
		s.reads++
	}
	// A read of 0 bytes and no error is allowed by io.Reader; the caller
	// loops and reads again.
	return err
}

var dataPrefix = []byte("data:")

// dataPayload returns the payload of a "data:" line.
func dataPayload(line []byte) ([]byte, bool) {
	if !bytes.HasPrefix(line, dataPrefix) {
		return nil, false
	}
	p := line[len(dataPrefix):]
	if len(p) > 0 && p[0] == ' ' {
		p = p[1:]
	}
	return p, true
}
