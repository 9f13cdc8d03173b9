//go:build !unix

package ingest

import "os"

// readDoc opens the document at path for the parser to read (f); b is
// never set here (see readdoc_unix.go, which reads a regular file
// whole with fewer system calls). The soft memory limit is first raised
// for the file's size (roomFor).
func readDoc(path string) (b []byte, f *os.File, err error) {
	f, err = os.Open(path)
	if err != nil {
		return nil, nil, err // *PathError reads "open FILE: reason"
	}
	if fi, err := f.Stat(); err == nil {
		roomFor(fi.Size())
	}
	return nil, f, nil
}
