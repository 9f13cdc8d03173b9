package power

import (
	"bytes"
	"fmt"
	"io"
)

// readLimited reads r whole, failing past max bytes.
func readLimited(r io.Reader, max int64) ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(r, max+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > max {
		return nil, fmt.Errorf("answer longer than %d bytes", max)
	}
	return b, nil
}

// lineAt returns the 1-based line of byte offset off in b.
func lineAt(b []byte, off int64) int {
	if off > int64(len(b)) {
		off = int64(len(b))
	}
	if off < 0 {
		off = 0
	}
	return bytes.Count(b[:off], []byte("\n")) + 1
}
