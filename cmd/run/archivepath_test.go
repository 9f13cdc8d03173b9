package runcmd

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"speedmatrix/internal/archivepath"
)

// TestArchiveDefault checks run's side of the archive rule: a missing
// parent of -archive or -out is refused before any load and nothing is
// created; $SPEEDMATRIX_ARCHIVE is the archive when -archive is not
// given, created by the first run with `created archive at PATH`, and
// not announced again by the second.
func TestArchiveDefault(t *testing.T) {
	tmp := t.TempDir()
	t.Chdir(tmp)
	t.Setenv(archivepath.EnvVar, "")
	sim := []string{"-simulate", "default", "-rates", "20", "-requests", "2", "-seed", "1", "-input-tokens", "64", "-output-tokens", "4"}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-archive", "/nonexistent/dir/A"}, "run: -archive /nonexistent/dir/A cannot be written: parent directory /nonexistent/dir does not exist\n"},
		{[]string{"-out", "/nonexistent/x.md"}, "run: -out /nonexistent/x.md cannot be written: parent directory /nonexistent does not exist\n"},
	} {
		code, out, errOut := runCmd(t, context.Background(), append(sim, tc.args...)...)
		if code != exitUsage || out != "" || !strings.HasSuffix(errOut, tc.want) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want %d and %q", tc.args, code, out, errOut, exitUsage, tc.want)
		}
	}
	if _, err := os.Stat("/nonexistent"); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("/nonexistent: %v", err)
	}

	env := filepath.Join(tmp, "env-archive")
	t.Setenv(archivepath.EnvVar, env)
	for i, seed := range []string{"1", "2"} {
		args := append(append([]string{}, sim...), "-seed", seed)
		code, out, errOut := runCmd(t, context.Background(), args...)
		if code != exitOK {
			t.Fatalf("run %d: exit %d, stderr %s", i, code, errOut)
		}
		if created := strings.Count(errOut, "created archive at "+env+"\n"); created != 1-i {
			t.Errorf("run %d: %d lines `created archive at %s`, want %d:\n%s", i, created, env, 1-i, errOut)
		}
		if !strings.Contains(out, "archived run ") || !strings.Contains(out, " in "+env+" (added)") {
			t.Errorf("run %d: stdout does not say it archived into %s:\n%s", i, env, out)
		}
	}
}
