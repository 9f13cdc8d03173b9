package ingest

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
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
	seed := testtool.ReadSeed(t, 0)
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
		{"larger than the bound", big, nil, 0, true},
		{"directory", dir, nil, 0, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			fi, _ := os.Stat(tc.path)
			b, f, err := readDoc(tc.path, fi)
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

// TestParseFileSameAsReader parses the seeds and other tools' result
// files through readDoc and through an *os.File, in both of parseFile's
// modes: the same matrices.
func TestParseFileSameAsReader(t *testing.T) {
	for _, p := range append(testtool.SeedPaths(t), peerPaths(t)...) {
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
