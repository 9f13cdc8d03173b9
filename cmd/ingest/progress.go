package ingestcmd

import (
	"io"
	"os"

	"golang.org/x/term"

	"speedmatrix/ingest"
)

// stderrIsTerminal reports whether w is a terminal (a variable so that
// tests can pretend).
var stderrIsTerminal = func(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// newProgress returns the progress line (files done of the total, rate,
// time left) for stderr when it is a terminal, and nil otherwise: piped
// or redirected, stderr gets nothing but the messages.
func newProgress(stderr io.Writer) *ingest.ProgressLine {
	if !stderrIsTerminal(stderr) {
		return nil
	}
	return ingest.NewProgressLine(stderr)
}
