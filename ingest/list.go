package ingest

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"
)

// ReadList reads the file names listed at path (ingest -files-from), one
// per line; blank lines and a "\r" before a line's end are skipped. The
// list is opened as a document is (openDoc): a named pipe waits at most
// wait (0 is PipeWait) for a writer, and each read of a pipe or device at
// most wait for its bytes.
//
// Note: it was read with os.ReadFile, whose open(2) of a FIFO nobody
// writes to waited forever, without a message.
func ReadList(ctx context.Context, path string, wait time.Duration) ([]string, error) {
	if wait <= 0 {
		wait = PipeWait
	}
	b, r, err := openDoc(ctx, path, wait)
	if err != nil {
		return nil, err
	}
	if r != nil {
		b, err = io.ReadAll(r)
		r.Close()
		if err != nil {
			return nil, fmt.Errorf("%s: read: %w", path, err)
		}
	}
	var out []string
	for _, l := range strings.Split(string(b), "\n") {
		if l = strings.TrimSuffix(l, "\r"); l != "" {
			out = append(out, l)
		}
	}
	return out, nil
}
