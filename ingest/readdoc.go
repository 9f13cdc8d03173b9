package ingest

import (
	"errors"
	"fmt"
	"io/fs"
	"os"

	"speedmatrix/parse"
)

// readDoc opens the document at path, whose os.Stat is fi (nil when it
// failed). A regular file of at most
// parse.MaxDocumentBytes is read whole (os.ReadFile) and closed at once:
// b holds its bytes (cut at parse.MaxDocumentBytes+1 when it grew
// meanwhile, so that it is still named as too large). Anything else (a
// larger file, a directory, a device) comes back open as f, for the
// parser to read as a stream (named pipes are openPipe's). Errors are the
// ones os.Open and a read of the *os.File would give: "open FILE:
// reason", "FILE: read: read FILE: reason". Either way the soft memory
// limit is first raised for the file's size (roomFor).
//
// Note: raw system calls (one openat, one fstat, two reads and a close,
// against os.Stat and os.ReadFile's open with its poller set-up) bought
// 1.10× CPU per document of the whole ingest at 1,000 documents (471 →
// 428 µs, 8 interleaved rounds) and 1.23× at 100,000 (285 → 233 µs, 5
// rounds), the same peak RSS: under the 1.25× a piece of our own must buy
// (docs/performance-ingest-pieces.md), so os.ReadFile does the work.
func readDoc(path string, fi fs.FileInfo) (b []byte, f *os.File, err error) {
	if fi != nil && fi.Mode().IsRegular() && fi.Size() <= parse.MaxDocumentBytes {
		roomFor(fi.Size())
		b, err = os.ReadFile(path)
		if err != nil {
			var pe *fs.PathError
			if errors.As(err, &pe) && pe.Op == "open" {
				return nil, nil, err
			}
			return nil, nil, fmt.Errorf("%s: read: %w", path, err)
		}
		return b[:min(len(b), parse.MaxDocumentBytes+1)], nil, nil
	}
	f, err = os.Open(path)
	if err != nil {
		return nil, nil, err // *PathError reads "open FILE: reason"
	}
	if fi, err := f.Stat(); err == nil {
		roomFor(fi.Size())
	}
	return nil, f, nil
}
