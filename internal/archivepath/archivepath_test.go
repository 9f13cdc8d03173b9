package archivepath

import (
	"os"
	"path/filepath"
	"testing"

	"speedmatrix/archive/iceberg"
)

func TestRefPrefix(t *testing.T) {
	if refPrefix != iceberg.Prefix {
		t.Fatalf("refPrefix %q, iceberg.Prefix %q", refPrefix, iceberg.Prefix)
	}
}

// TestResolve checks the order -archive, $SPEEDMATRIX_ARCHIVE,
// ./archive, and what a read and a write make of each.
func TestResolve(t *testing.T) {
	const ref = "iceberg+sqlite:///nonexistent/catalog.db#speedmatrix"
	tests := []struct {
		name           string
		flag, env      string
		haveDefault    bool
		wantPath, from string
		readErr        string
		writePath      string
		writeNew       bool
		writeErr       string
	}{
		{name: "nothing", from: FromDefault,
			readErr:   "no archive: tried -archive (not given), $SPEEDMATRIX_ARCHIVE (not set), ./archive (does not exist); give -archive DIR (or set SPEEDMATRIX_ARCHIVE)",
			writePath: "archive", writeNew: true},
		{name: "default exists", haveDefault: true, wantPath: "archive", from: FromDefault, writePath: "archive"},
		{name: "env over default", env: "E", haveDefault: true, wantPath: "E", from: FromEnv,
			readErr: "no archive at E: tried -archive (not given), $SPEEDMATRIX_ARCHIVE E (does not exist)", writePath: "E", writeNew: true},
		{name: "flag over env", flag: "F", env: "E", wantPath: "F", from: FromFlag,
			readErr: "no archive at F: tried -archive F (does not exist)", writePath: "F", writeNew: true},
		{name: "missing parent", flag: "/nonexistent/dir/A", wantPath: "/nonexistent/dir/A", from: FromFlag,
			readErr:   "no archive at /nonexistent/dir/A: tried -archive /nonexistent/dir/A (does not exist)",
			writePath: "/nonexistent/dir/A",
			writeErr:  "-archive /nonexistent/dir/A cannot be written: parent directory /nonexistent/dir does not exist"},
		{name: "file", flag: "afile", wantPath: "afile", from: FromFlag,
			readErr: "-archive afile is not a directory", writePath: "afile",
			writeErr: "-archive afile is a file, not an archive directory"},
		{name: "reference untouched", env: ref, wantPath: ref, from: FromEnv, writePath: ref},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Chdir(t.TempDir())
			t.Setenv(EnvVar, tt.env)
			if tt.haveDefault {
				if err := os.Mkdir(DefaultDir, 0o755); err != nil {
					t.Fatal(err)
				}
			}
			if err := os.WriteFile("afile", nil, 0o644); err != nil {
				t.Fatal(err)
			}
			c := Resolve(tt.flag)
			if c.Path != tt.wantPath || c.From != tt.from {
				t.Fatalf("Resolve = %q from %s, want %q from %s", c.Path, c.From, tt.wantPath, tt.from)
			}
			if got := errText(c.ForRead()); got != tt.readErr {
				t.Errorf("ForRead:\n got %q\nwant %q", got, tt.readErr)
			}
			isNew, err := c.ForWrite()
			if got := errText(err); got != tt.writeErr {
				t.Errorf("ForWrite:\n got %q\nwant %q", got, tt.writeErr)
			}
			if c.Path != tt.writePath || isNew != tt.writeNew {
				t.Errorf("ForWrite: %q new=%v, want %q new=%v", c.Path, isNew, tt.writePath, tt.writeNew)
			}
			// Nothing checked creates anything.
			if _, err := os.Stat(filepath.Join("archive")); err == nil != tt.haveDefault {
				t.Errorf("./archive exists = %v after the checks", err == nil)
			}
		})
	}
}

func TestCheckParent(t *testing.T) {
	dir := t.TempDir()
	for _, tt := range []struct{ path, want string }{
		{filepath.Join(dir, "x.md"), ""},
		{"x.md", ""},
		{"/nonexistent/x.md", "parent directory /nonexistent does not exist"},
		{filepath.Join(dir, "no", "x.md"), "parent directory " + filepath.Join(dir, "no") + " does not exist"},
	} {
		if got := errText(CheckParent(tt.path)); got != tt.want {
			t.Errorf("CheckParent(%q) = %q, want %q", tt.path, got, tt.want)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "no")); err == nil {
		t.Error("CheckParent created a directory")
	}
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
