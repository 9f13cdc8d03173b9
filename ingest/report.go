package ingest

import (
	"fmt"
	"io"
	"os"
	"runtime"
)

// Report is what Files says of each run, a line per run in the order of
// the files, once they are committed:
//
//	<run_id>\t<title>\t<rows> rows\tadded|duplicate|reread|error
//
// (a failed document: "-" for the run id, its name for the title).
// Failed says whether a document failed. Close removes its temporary
// file.
type Report struct {
	Failed bool
	lines  runLines
}

// OutcomeReread is the outcome of a run that was not added because the
// archive holds its source under other run ids.
const OutcomeReread = "reread"

// WriteTo writes the report's lines to w.
func (r *Report) WriteTo(w io.Writer) (int64, error) {
	return r.lines.writeTo(w)
}

// Close frees the report.
func (r *Report) Close() error {
	r.lines.close()
	return nil
}

// reportMem is how much of the report ingest keeps in memory before it
// moves it to a temporary file: about 10,000 lines.
var reportMem = 1 << 20 // a variable so tests can spill small reports

// runLines holds the report, a line per run, until the runs are
// committed (a line says "added" only once that is true). The first
// reportMem bytes stay in memory; beyond them the report goes to a
// temporary file, so that the memory of a call does not grow with the
// number of its documents.
//
// Note: at 100,000 documents the report was 10 MB of heap at the end of
// the call, live through its last hundred collections: less room under
// the soft memory limit, so more of them.
type runLines struct {
	buf  []byte
	f    *os.File // the spilled part, when there is one
	path string   // f's name, while it still has one (removed at close)
	// spillErr is why the report could not go to a file; it then stays
	// in memory, which is no worse than before.
	spillErr error
}

// appendf adds a line (format as for fmt.Appendf, ending in "\n").
func (r *runLines) appendf(format string, args ...any) {
	r.buf = fmt.Appendf(r.buf, format, args...)
	if len(r.buf) >= reportMem && r.spillErr == nil {
		r.spill()
	}
}

// spill moves the report's memory to its file, making the file first.
func (r *runLines) spill() {
	if r.f == nil {
		f, err := os.CreateTemp("", "ingest-report-*")
		if err != nil {
			r.spillErr = err
			return
		}
		r.f, r.path = f, f.Name()
		if runtime.GOOS != "windows" { // an open file keeps its data without a name
			if os.Remove(r.path) == nil {
				r.path = ""
			}
		}
	}
	if _, err := r.f.Write(r.buf); err != nil {
		r.spillErr = err // the lines stay in memory; the file keeps what it had
		return
	}
	r.buf = r.buf[:0]
}

// writeTo writes the whole report to w, in order.
func (r *runLines) writeTo(w io.Writer) (int64, error) {
	var n int64
	if r.f != nil {
		if _, err := r.f.Seek(0, io.SeekStart); err != nil {
			return 0, fmt.Errorf("ingest: report: %w", err)
		}
		k, err := io.Copy(w, r.f)
		n += k
		if err != nil {
			return n, fmt.Errorf("ingest: report: %w", err)
		}
	}
	k, err := w.Write(r.buf)
	return n + int64(k), err
}

// close removes the report's file.
func (r *runLines) close() {
	if r.f != nil {
		r.f.Close()
		if r.path != "" {
			os.Remove(r.path)
		}
		r.f = nil
	}
}
