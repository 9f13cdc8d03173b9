//go:build unix

package ingest

import (
	"fmt"
	"io/fs"
	"os"
	"syscall"

	"speedmatrix/parse"
)

// readDoc opens the document at path. A regular file is read whole and
// closed at once: b holds its bytes (up to parse.MaxDocumentBytes+1, so
// that a larger one is still named as too large). Anything else (a pipe,
// a FIFO, /dev/stdin, a directory) comes back open as f, for the parser
// to read as a stream. Errors are the ones os.Open and a read of the
// *os.File would give: "open FILE: reason", "FILE: read: read FILE:
// reason". Either way the soft memory limit is first raised for the
// file's size (roomFor).
//
// Note: os.Open makes a file ready for the runtime's poller, which a
// regular file never is: per file 4 fcntl calls and an epoll_ctl that
// fails, a pollable descriptor and a cleanup; reading it through the
// parser's Stat and a bytes.Buffer added a second fstat and a buffer
// 512 bytes larger than the file. Here one openat, one fstat, two reads
// (the second sees the end: a short read of a regular file is not
// trusted as its end) and a close. Figures for 1,000 seed documents are
// in the README (issue 12, the syscalls).
func readDoc(path string) (b []byte, f *os.File, err error) {
	var fd int
	for {
		fd, err = syscall.Open(path, syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		return nil, nil, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	var st syscall.Stat_t
	for {
		err = syscall.Fstat(fd, &st)
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil || st.Mode&syscall.S_IFMT != syscall.S_IFREG {
		// As os.Open's file: its Stat fails or it is no regular file.
		f = os.NewFile(uintptr(fd), path)
		if fi, err := f.Stat(); err == nil {
			roomFor(fi.Size())
		}
		return nil, f, nil
	}
	roomFor(st.Size)
	b, err = readFD(fd, min(st.Size, parse.MaxDocumentBytes))
	syscall.Close(fd) // read only: nothing to lose
	if err != nil {
		return nil, nil, fmt.Errorf("%s: read: %w", path, &fs.PathError{Op: "read", Path: path, Err: err})
	}
	return b, nil, nil
}

// readFD reads fd to its end, or to parse.MaxDocumentBytes+1 bytes,
// into a buffer of size+1 bytes (size is what fstat said: the last byte
// is room to see the end, or that the file grew, which makes it grow:
// a file of /proc says 0 bytes and holds more).
func readFD(fd int, size int64) ([]byte, error) {
	const limit = parse.MaxDocumentBytes + 1
	b := make([]byte, size+1)
	n := 0
	for {
		if n == len(b) {
			if n >= limit {
				break
			}
			b = append(b, make([]byte, min(max(n, 512), limit-n))...)
		}
		k, err := syscall.Read(fd, b[n:])
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return nil, err
		}
		if k == 0 {
			break
		}
		n += k
	}
	return b[:n], nil
}
