//go:build unix

package ingestcmd

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"speedmatrix/ingest"
)

// TestFilesFromFIFONoWriter: -files-from a named pipe nothing writes to
// fails after ingest.PipeWait, naming the pipe, with a usage exit; it
// does not wait forever. The test bounds its own wait, and ends an
// open(2) still waiting when it is over.
func TestFilesFromFIFONoWriter(t *testing.T) {
	p := filepath.Join(t.TempDir(), "list")
	if err := syscall.Mkfifo(p, 0o600); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if w, err := os.OpenFile(p, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			w.Close()
		}
	})
	type result struct {
		code   int
		stderr string
	}
	done := make(chan result, 1)
	go func() {
		var o, e bytes.Buffer
		code := run(t.Context(), []string{"-json", "-files-from", p}, strings.NewReader(""), &o, &e)
		done <- result{code, e.String()}
	}()
	var r result
	select {
	case r = <-done:
	case <-time.After(3 * ingest.PipeWait):
		t.Fatalf("ingest -files-from a named pipe with no writer still waits after %v", 3*ingest.PipeWait)
	}
	want := "ingest: -files-from: " + p + ": a named pipe (FIFO) that nothing opened for writing within " + ingest.PipeWait.String()
	if r.code != exitUsage || !strings.HasPrefix(r.stderr, want) {
		t.Errorf("exit %d, stderr %q; want exit %d and %q", r.code, r.stderr, exitUsage, want)
	}
}
