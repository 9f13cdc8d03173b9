//go:build !unix

package ingest

import (
	"context"
	"os"
	"time"
)

// openPipe opens the named pipe at path (see pipe_unix.go; here open does
// not wait for a writer).
func openPipe(ctx context.Context, path string, wait time.Duration) (*os.File, error) {
	return os.Open(path)
}
