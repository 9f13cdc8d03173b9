//go:build unix

package ingest

import (
	"context"
	"os"
	"syscall"
	"time"
)

// openPipe opens the named pipe at path for reading, waiting at most wait
// (and no longer than ctx) for a writer. open(2) waits without a bound,
// so it runs aside; when the wait is over, the pipe is opened for writing
// without blocking and closed at once, which ends that open(2) (the pipe
// then reads empty), and the call fails naming the pipe.
func openPipe(ctx context.Context, path string, wait time.Duration) (*os.File, error) {
	type opened struct {
		f   *os.File
		err error
	}
	done := make(chan opened, 1)
	go func() {
		f, err := os.Open(path)
		done <- opened{f, err}
	}()
	timer := time.NewTimer(wait)
	defer timer.Stop()
	var cause error
	select {
	case o := <-done:
		return o.f, o.err
	case <-timer.C:
		cause = errPipeTimeout
	case <-ctx.Done():
		cause = ctx.Err()
	}
	if w, err := os.OpenFile(path, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
		w.Close()
	}
	// ENXIO (no reader) means the open has just returned: it is on done.
	if o := <-done; o.f != nil {
		o.f.Close()
	}
	return nil, pipeError(path, wait, cause)
}
