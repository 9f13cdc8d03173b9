package ingest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"time"
)

// PipeWait is how long Files and Parse wait, unless Options.PipeWait
// says otherwise, for a named pipe (FIFO) given as a file to be opened by
// a writer, and then for each read of it or of a device to return
// something.
const PipeWait = 10 * time.Second

// openDoc opens the document at path: a regular file comes back read
// whole (b, see readDoc), anything else open (r) for the parser to read
// as a stream. A named pipe is opened without waiting for a writer
// forever (see openPipe), and the reads of a pipe or a device that can
// wait each wait at most wait for their bytes (see idleReader).
//
// Note: open(2) of a FIFO for reading waits until a writer opens it, with
// no timeout; ingest of a FIFO nobody wrote to waited there forever,
// without a message.
func openDoc(ctx context.Context, path string, wait time.Duration) (b []byte, r io.ReadCloser, err error) {
	var f *os.File
	fi, serr := os.Stat(path)
	if serr != nil {
		fi = nil // os.Open names the error
	}
	if fi != nil && fi.Mode()&fs.ModeNamedPipe != 0 {
		if f, err = openPipe(ctx, path, wait); err != nil {
			return nil, nil, err
		}
	} else if b, f, err = readDoc(path, fi); f == nil {
		return b, nil, err
	}
	return nil, &idleReader{f: f, wait: wait}, nil
}

// errPipeTimeout is the cause of an open of a named pipe that no writer
// opened in time.
var errPipeTimeout = errors.New("timed out")

// pipeError explains a named pipe that no writer opened within wait.
func pipeError(path string, wait time.Duration, cause error) error {
	return fmt.Errorf("%s: a named pipe (FIFO) that nothing opened for writing within %v: start its writer first, or give the document on standard input (FILE -): %w", path, wait, cause)
}

// idleReader reads f, failing a read that waits more than wait for its
// first byte, where f's kind allows a deadline (a pipe, a terminal; a
// regular file or a directory never waits, and reads without one).
type idleReader struct {
	f    *os.File
	wait time.Duration
}

func (r *idleReader) Read(p []byte) (int, error) {
	deadline := r.f.SetReadDeadline(time.Now().Add(r.wait)) == nil
	n, err := r.f.Read(p)
	if deadline && errors.Is(err, os.ErrDeadlineExceeded) {
		// The parser names the file: "FILE: read: nothing was written …".
		return n, fmt.Errorf("nothing was written for %v: %w", r.wait, os.ErrDeadlineExceeded)
	}
	return n, err
}

func (r *idleReader) Close() error { return r.f.Close() }
