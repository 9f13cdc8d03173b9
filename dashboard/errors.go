package dashboard

import (
	"errors"
	"fmt"
	"net/http"

	"speedmatrix/archive"
)

// pageError is an error a page reports with its status and reason.
type pageError struct {
	Status int
	Reason string
}

// Error implements error.
func (e *pageError) Error() string { return e.Reason }

// badRequest is a malformed query: 400 with the reason.
func badRequest(format string, a ...any) error {
	return &pageError{http.StatusBadRequest, fmt.Sprintf(format, a...)}
}

// notFound is a run, view or file that is not there: 404 with the reason.
func notFound(format string, a ...any) error {
	return &pageError{http.StatusNotFound, fmt.Sprintf(format, a...)}
}

// archiveError turns an archive read error into a page error: a run the
// archive no longer holds is 404 (it changed underneath), a lock not
// free in time 503, any other read failure 503 naming the archive.
//
// Note: no error of the archive becomes a 500: a reader sees why the
// page could not be built, and the server stays up.
func archiveError(dir string, err error) error {
	var pe *pageError
	var de *archive.DamagedError
	switch {
	case errors.As(err, &pe):
		return pe
	case errors.Is(err, archive.ErrNotFound):
		return &pageError{http.StatusNotFound, fmt.Sprintf("%v: the archive %s does not hold it (dropped or compacted since the listing was read? reload the Runs view)", err, dir)}
	case errors.Is(err, archive.ErrLockTimeout):
		return &pageError{http.StatusServiceUnavailable, fmt.Sprintf("archive %s is locked by a writer: %v; try again shortly", dir, err)}
	case errors.As(err, &de):
		return &pageError{http.StatusServiceUnavailable, fmt.Sprintf("archive %s: damaged file %s: %v", dir, de.Path, de.Err)}
	default:
		return &pageError{http.StatusServiceUnavailable, fmt.Sprintf("archive %s: %v", dir, err)}
	}
}
