//go:build unix

package ingest

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"syscall"
	"testing"
	"time"

	"speedmatrix/internal/testtool"
	"speedmatrix/parse"
)

// TestNamedPipeBounded: a named pipe (FIFO) given as a file is not
// waited for forever. Nothing opens it for writing: the document fails
// after the wait, naming the pipe and what to do; a writer opens it and
// writes nothing: the read fails after the wait. The document after it
// is read either way. The test bounds its own wait, and unblocks an open
// still waiting when it ends.
func TestNamedPipeBounded(t *testing.T) {
	const wait = 200 * time.Millisecond
	seed := testtool.SeedPaths(t)[0]
	for _, tc := range []struct {
		name   string
		writer bool // a writer opens the pipe and writes nothing
		want   string
	}{
		{"no writer", false, ": a named pipe (FIFO) that nothing opened for writing within 200ms: start its writer first"},
		{"silent writer", true, ": read: nothing was written for 200ms"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "pipe")
			if err := syscall.Mkfifo(p, 0o600); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { // ends an open(2) that still waits for a writer
				if w, err := os.OpenFile(p, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
					w.Close()
				}
			})
			if tc.writer {
				// The test holds the pipe open for writing (O_RDWR does not
				// wait for a reader) before the read starts, and writes
				// nothing: a writer goroutine that the machine's load kept
				// from its open(2) for longer than the wait would turn
				// this case into the one without a writer.
				w, err := os.OpenFile(p, os.O_RDWR, 0)
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { w.Close() })
			}
			done := make(chan []*Doc, 1)
			go func() { done <- Parse(t.Context(), []string{p, seed}, Options{PipeWait: wait}) }()
			var docs []*Doc
			select {
			case docs = <-done:
			case <-time.After(20 * wait):
				t.Fatalf("ingest of a named pipe %s still waits after %v", tc.name, 20*wait)
			}
			if err := docs[0].Err; err == nil || !strings.HasPrefix(err.Error(), p+tc.want) {
				t.Errorf("error %v, want %q", err, p+tc.want)
			}
			if docs[1].Err != nil || len(docs[1].Runs) != 1 {
				t.Errorf("the document after the pipe: %v", docs[1].Err)
			}
		})
	}
}

// TestReadDocFIFO reads a document from a named pipe, which is no
// regular file: handed back open, and parsed as the same file's bytes.
func TestReadDocFIFO(t *testing.T) {
	seed := testtool.ReadSeed(t, 1)
	p := filepath.Join(t.TempDir(), "pipe")
	if err := syscall.Mkfifo(p, 0o600); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		w, err := os.OpenFile(p, os.O_WRONLY, 0) // waits for the reader
		if err == nil {
			_, err = w.WriteString(seed)
			if cerr := w.Close(); err == nil {
				err = cerr
			}
		}
		done <- err
	}()
	ms, _, err := (&pipeline{stream: true}).parseFile(t.Context(), p)
	if err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	want, err := parse.ParseBytes([]byte(seed), p, "")
	if err != nil {
		t.Fatal(err)
	}
	if len(ms) != 1 || !reflect.DeepEqual(ms[0], want) {
		t.Fatal("a document read from a pipe parsed differently from its bytes")
	}
}

// TestReadListFIFO: a list of files (-files-from) that is a named pipe
// is read as a document is: from its writer, and with no writer it fails
// after the wait, naming the pipe, instead of waiting forever. The test
// bounds its own wait.
func TestReadListFIFO(t *testing.T) {
	const wait = 200 * time.Millisecond
	for _, tc := range []struct {
		name   string
		writer bool
		want   []string
		err    string
	}{
		{"writer", true, []string{"a.txt", "b c.md"}, ""},
		{"no writer", false, nil, ": a named pipe (FIFO) that nothing opened for writing within 200ms"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "list")
			if err := syscall.Mkfifo(p, 0o600); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { // ends an open(2) that still waits for a writer
				if w, err := os.OpenFile(p, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
					w.Close()
				}
			})
			if tc.writer {
				go func() {
					if w, err := os.OpenFile(p, os.O_WRONLY, 0); err == nil {
						w.WriteString("a.txt\r\n\nb c.md\n")
						w.Close()
					}
				}()
			}
			type result struct {
				names []string
				err   error
			}
			done := make(chan result, 1)
			// With a writer the wait is long: the read returns when the
			// writer has written, however late load lets it open the pipe.
			w := wait
			if tc.writer {
				w = PipeWait
			}
			go func() {
				names, err := ReadList(t.Context(), p, w)
				done <- result{names, err}
			}()
			var r result
			select {
			case r = <-done:
			case <-time.After(20 * w):
				t.Fatalf("reading a list from a named pipe (%s) still waits after %v", tc.name, 20*w)
			}
			switch {
			case tc.err == "" && r.err != nil:
				t.Fatal(r.err)
			case tc.err != "" && (r.err == nil || !strings.HasPrefix(r.err.Error(), p+tc.err)):
				t.Fatalf("error %v, want %q", r.err, p+tc.err)
			}
			if !reflect.DeepEqual(r.names, tc.want) {
				t.Errorf("names %q, want %q", r.names, tc.want)
			}
		})
	}
}
