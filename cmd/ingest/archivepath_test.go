package ingestcmd

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"speedmatrix/internal/archivepath"
	"speedmatrix/internal/testtool"
)

// TestArchiveDefault checks the archive rule of every command as ingest
// follows it: `created archive at PATH` on the write that creates it and
// never again, a missing parent refused with nothing created,
// $SPEEDMATRIX_ARCHIVE and ./archive as defaults, and a read (-check) of
// a missing archive naming what it tried.
func TestArchiveDefault(t *testing.T) {
	seeds := testtool.SeedPaths(t)
	tmp := t.TempDir()
	t.Chdir(tmp)
	t.Setenv(archivepath.EnvVar, "")

	// -check reads: nothing to read, and it says where it looked.
	code, _, errOut := runIngest(t, "", "-check")
	if want := "ingest: no archive: tried -archive (not given), $SPEEDMATRIX_ARCHIVE (not set), ./archive (does not exist); give -archive DIR (or set SPEEDMATRIX_ARCHIVE)\n"; code != exitFail || errOut != want {
		t.Fatalf("-check without an archive: exit %d, stderr %q, want %q", code, errOut, want)
	}

	// A missing parent is refused, and nothing is created.
	code, out, errOut := runIngest(t, "", "-archive", "/nonexistent/dir/A", seeds[0])
	if want := "ingest: -archive /nonexistent/dir/A cannot be written: parent directory /nonexistent/dir does not exist\n"; code != exitFail || out != "" || errOut != want {
		t.Fatalf("missing parent: exit %d, stdout %q, stderr %q, want %q", code, out, errOut, want)
	}
	if _, err := os.Stat("/nonexistent/dir"); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("/nonexistent/dir: %v", err)
	}

	// The default, ./archive: created once.
	for i, want := range []string{"created archive at archive\n", ""} {
		code, _, errOut := runIngest(t, "", seeds[i])
		if code != exitOK || errOut != want {
			t.Fatalf("ingest %d into ./archive: exit %d, stderr %q, want %q", i, code, errOut, want)
		}
	}

	// $SPEEDMATRIX_ARCHIVE over ./archive, created once too.
	env := filepath.Join(tmp, "env-archive")
	t.Setenv(archivepath.EnvVar, env)
	for i, want := range []string{"created archive at " + env + "\n", ""} {
		code, _, errOut := runIngest(t, "", seeds[i])
		if code != exitOK || errOut != want {
			t.Fatalf("ingest %d into $%s: exit %d, stderr %q, want %q", i, archivepath.EnvVar, code, errOut, want)
		}
	}
	if code, _, errOut := runIngest(t, "", "-check"); code != exitOK {
		t.Fatalf("-check of $%s: exit %d, stderr %q", archivepath.EnvVar, code, errOut)
	}
	for _, dir := range []string{"archive", env} {
		if _, err := os.Stat(filepath.Join(dir, "runs")); err != nil {
			t.Errorf("%s: %v", dir, err)
		}
	}
}
