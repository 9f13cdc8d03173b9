//go:build unix

package ingest

import (
	"bytes"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"syscall"
	"testing"

	"speedmatrix/internal/testtool"
	"speedmatrix/parse"
	"speedmatrix/schema"
)

// TestReadDoc checks that readDoc reads a regular file whole (b, no
// open file left) and hands anything else back open (f), with the
// errors os.Open and a read of its file give.
func TestReadDoc(t *testing.T) {
	dir := t.TempDir()
	seed := readSeed(t, 0)
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	big := filepath.Join(dir, "big.bin")
	if err := os.WriteFile(big, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(big, parse.MaxDocumentBytes+100); err != nil { // sparse
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		path    string
		want    []byte // nil: not read whole
		wantLen int    // when want is nil and the file is read whole
		open    bool   // handed back open
	}{
		{"seed", write("seed.txt", seed), []byte(seed), 0, false},
		{"empty", write("empty.txt", ""), []byte{}, 0, false},
		{"larger than the bound", big, nil, parse.MaxDocumentBytes + 1, false},
		{"directory", dir, nil, 0, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b, f, err := readDoc(tc.path)
			if err != nil {
				t.Fatal(err)
			}
			if f != nil {
				defer f.Close()
			}
			if (f != nil) != tc.open {
				t.Fatalf("open file %v, want %v", f != nil, tc.open)
			}
			switch {
			case tc.open:
				if b != nil {
					t.Fatalf("read %d bytes of a file handed back open", len(b))
				}
			case tc.want != nil:
				if b == nil || !bytes.Equal(b, tc.want) {
					t.Fatalf("read %d bytes, want %d", len(b), len(tc.want))
				}
			case len(b) != tc.wantLen:
				t.Fatalf("read %d bytes, want %d", len(b), tc.wantLen)
			}
		})
	}
}

// TestReadDocSameErrors checks that parseFile reports a missing file, a
// directory and a file above the bound as it did through os.Open and
// parse.ParseAllStream.
func TestReadDocSameErrors(t *testing.T) {
	dir := t.TempDir()
	big := filepath.Join(dir, "big.txt")
	if err := os.WriteFile(big, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(big, parse.MaxDocumentBytes+1); err != nil {
		t.Fatal(err)
	}
	old := func(path string) error {
		f, err := os.Open(path)
		if err != nil {
			return err
		}
		defer f.Close()
		_, _, err = parse.ParseAllStream(f, path, "", nil)
		return err
	}
	for _, path := range []string{filepath.Join(dir, "missing.txt"), dir, big} {
		_, _, err := (&pipeline{stream: true}).parseFile(t.Context(), path)
		want := old(path)
		if err == nil || want == nil || err.Error() != want.Error() {
			t.Errorf("%s: error %v, want %v", path, err, want)
		}
		if errors.Is(want, fs.ErrNotExist) != errors.Is(err, fs.ErrNotExist) {
			t.Errorf("%s: errors.Is(ErrNotExist) differs: %v", path, err)
		}
	}
}

// TestReadDocFIFO reads a document from a named pipe, which is no
// regular file: handed back open, and parsed as the same file's bytes.
func TestReadDocFIFO(t *testing.T) {
	seed := readSeed(t, 1)
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

// TestReadFDGrown reads a file that grew after its size was taken:
// everything up to its end is read.
func TestReadFDGrown(t *testing.T) {
	content := bytes.Repeat([]byte("0123456789"), 1000)
	p := filepath.Join(t.TempDir(), "grown.txt")
	if err := os.WriteFile(p, content, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, size := range []int64{0, 1, 10, 9999, 10000} {
		f, err := os.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		b, err := readFD(int(f.Fd()), size)
		f.Close()
		if err != nil || !bytes.Equal(b, content) {
			t.Fatalf("size %d: read %d bytes (%v), want %d", size, len(b), err, len(content))
		}
	}
}

// TestParseFileSameAsReader parses the seeds and other tools' result
// files through readDoc and through an *os.File, in both of parseFile's
// modes: the same matrices.
func TestParseFileSameAsReader(t *testing.T) {
	for _, p := range append(seedPaths(t), peerPaths(t)...) {
		for _, stream := range []bool{true, false} {
			got, _, err := (&pipeline{stream: stream}).parseFile(t.Context(), p)
			f, ferr := os.Open(p)
			if ferr != nil {
				t.Fatal(ferr)
			}
			var want []*schema.Matrix
			var wantErr error
			if stream {
				want, _, wantErr = parse.ParseAllStream(f, p, "", nil)
			} else {
				want, wantErr = parse.ParseAll(f, p, "")
			}
			f.Close()
			if (err == nil) != (wantErr == nil) || err != nil && err.Error() != wantErr.Error() {
				t.Fatalf("%s (stream %v): error %v, want %v", p, stream, err, wantErr)
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("%s (stream %v): matrices differ from a parse of the open file", p, stream)
			}
		}
	}
}

// BenchmarkReadDoc reads 1,000 seed-sized files as parseFile does
// (readDoc) and as it did before (os.Open, Stat, and a bytes.Buffer read
// as parse's readAll does), and reports CPU time per file: run with
// -count to interleave the two.
func BenchmarkReadDoc(b *testing.B) {
	paths, size := benchDocs(b, 1000)
	read := map[string]func(string) (int, error){
		"readDoc": func(p string) (int, error) {
			d, f, err := readDoc(p)
			if f != nil {
				f.Close()
			}
			return len(d), err
		},
		"os.Open": func(p string) (int, error) {
			f, err := os.Open(p)
			if err != nil {
				return 0, err
			}
			defer f.Close()
			fi, err := f.Stat()
			if err != nil {
				return 0, err
			}
			fi, err = f.Stat() // parse's readAll asks again
			if err != nil {
				return 0, err
			}
			buf := bytes.NewBuffer(make([]byte, 0, fi.Size()+bytes.MinRead))
			n, err := buf.ReadFrom(io.LimitReader(f, parse.MaxDocumentBytes+1))
			return int(n), err
		},
	}
	for _, name := range []string{"readDoc", "os.Open"} {
		b.Run(name, func(b *testing.B) {
			b.SetBytes(size)
			b.ReportAllocs()
			cpu0 := testtool.CPU()
			for b.Loop() {
				var total int64
				for _, p := range paths {
					n, err := read[name](p)
					if err != nil {
						b.Fatal(err)
					}
					total += int64(n)
				}
				if total != size {
					b.Fatalf("read %d bytes, want %d", total, size)
				}
			}
			b.ReportMetric(float64((testtool.CPU()-cpu0).Nanoseconds())/1e3/float64(b.N*len(paths)), "cpu-µs/file")
		})
	}
}
