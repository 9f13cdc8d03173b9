package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"speedmatrix/internal/testtool"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// call runs the dispatcher as the command line `speedmatrix args...`.
func call(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errs bytes.Buffer
	code = run(context.Background(), args, strings.NewReader(""), &out, &errs)
	return code, out.String(), errs.String()
}

// TestHelpGolden pins what -h prints for the top level and every
// command: a synopsis, an example and the exit codes first.
func TestHelpGolden(t *testing.T) {
	code, out, errs := call(t, "help")
	if code != exitOK || errs != "" {
		t.Fatalf("help: exit %d, stderr %q", code, errs)
	}
	testtool.Golden(t, filepath.Join("testdata", "help", "speedmatrix.golden"), []byte(out), *update)
	for _, c := range all() {
		if c.name == "help" {
			continue
		}
		t.Run(c.name, func(t *testing.T) {
			code, out, errs := call(t, c.name, "-h")
			if code != exitOK || out != "" {
				t.Fatalf("%s -h: exit %d, stdout %q", c.name, code, out)
			}
			for _, want := range []string{"usage: speedmatrix " + c.name, "\nExample:\n  speedmatrix " + c.name, "\nExit status:\n  0 ", "\n  -version\n"} {
				if !strings.Contains(errs, want) {
					t.Errorf("%s -h lacks %q", c.name, want)
				}
			}
			if !strings.HasPrefix(errs, "usage: speedmatrix "+c.name) {
				t.Errorf("%s -h does not start with its synopsis:\n%.300s", c.name, errs)
			}
			testtool.Golden(t, filepath.Join("testdata", "help", c.name+".golden"), []byte(errs), *update)
			// help COMMAND prints the same on stdout.
			code, out, errs2 := call(t, "help", c.name)
			if code != exitOK || out != errs || errs2 != "" {
				t.Errorf("help %s: exit %d, stderr %q, stdout differs from -h: %v", c.name, code, errs2, out != errs)
			}
		})
	}
}

// tree returns every path under dir with its size and modification
// time, or nil when dir does not exist.
func tree(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		out = append(out, fmt.Sprintf("%s %d %d", p, fi.Size(), fi.ModTime().UnixNano()))
		return nil
	})
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestUsageErrorsGolden pins the messages of the mistakes issue 25 saw
// (a typo, a flag after the files, a duration without a unit, an
// unknown command) and checks that each writes nothing: no stdout, no
// archive created, an existing archive unchanged.
func TestUsageErrorsGolden(t *testing.T) {
	root := testtool.RepoRoot(t)
	seeds, err := filepath.Glob(filepath.Join(root, "testdata", "seeds", "*.txt"))
	if err != nil || len(seeds) < 2 {
		t.Fatalf("seeds: %v %v", seeds, err)
	}
	tmp := t.TempDir()
	fresh := filepath.Join(tmp, "fresh")   // must stay absent
	filled := filepath.Join(tmp, "filled") // must stay unchanged
	if code, _, errs := call(t, "ingest", "-archive", filled, seeds[0]); code != exitOK {
		t.Fatalf("ingest: exit %d: %s", code, errs)
	}
	before := tree(t, filled)
	tests := []struct {
		name string
		args []string
	}{
		{"ingest-typo", []string{"ingest", "-archiv", fresh, seeds[1]}},
		{"ingest-flag-after-file", []string{"ingest", "-archive", fresh, seeds[1], "-json"}},
		{"ingest-flag-after-file-filled", []string{"ingest", "-archive", filled, seeds[1], "-json"}},
		{"ingest-unknown-after-file", []string{"ingest", "-archive", fresh, seeds[1], "-jsno"}},
		{"compare-typo", []string{"compare", "-htm", filepath.Join(tmp, "r.html"), seeds[0], seeds[1]}},
		{"compare-flag-after-runs", []string{"compare", "-archive", filled, "gpu=~H200", "gpu=~RTX", "-html", filepath.Join(tmp, "r.html")}},
		{"run-typo", []string{"run", "-simulate", "default", "-duraton", "5s"}},
		{"run-duration-without-unit", []string{"run", "-simulate", "default", "-contexts", "1K", "-duration", "2", "-archive", fresh}},
		{"run-flag-after-argument", []string{"run", "-simulate", "default", "1K", "-archive", fresh}},
		{"serve-typo", []string{"serve", "-archive", filled, "-tokn", "x"}},
		{"unknown-command", []string{"ingets", "-archive", fresh, seeds[1]}},
		{"flag-before-command", []string{"-archive", fresh, "ingest", seeds[1]}},
		{"completion-no-shell", []string{"completion", "fish"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errs := call(t, tt.args...)
			if code != exitUsage {
				t.Errorf("exit %d, want %d", code, exitUsage)
			}
			if out != "" {
				t.Errorf("stdout written: %.300q", out)
			}
			errs = strings.ReplaceAll(errs, tmp, "TMP")
			errs = strings.ReplaceAll(errs, root, "ROOT")
			testtool.Golden(t, filepath.Join("testdata", "errors", tt.name+".golden"), []byte(errs), *update)
			if _, err := os.Stat(fresh); !os.IsNotExist(err) {
				t.Fatalf("%s was created (%v)", fresh, err)
			}
			if after := tree(t, filled); strings.Join(after, "\n") != strings.Join(before, "\n") {
				t.Fatalf("the archive changed:\n%s\nwas:\n%s", strings.Join(after, "\n"), strings.Join(before, "\n"))
			}
			if _, err := os.Stat(filepath.Join(tmp, "r.html")); !os.IsNotExist(err) {
				t.Fatalf("r.html written (%v)", err)
			}
		})
	}
}

// TestDispatch checks the top level: no command, -h, -version, help
// with a wrong name, and that a command's exit status comes through.
func TestDispatch(t *testing.T) {
	code, out, errs := call(t)
	if code != exitUsage || out != "" || !strings.HasPrefix(errs, "usage: speedmatrix COMMAND") {
		t.Errorf("no command: exit %d, stdout %q, stderr %.100q", code, out, errs)
	}
	_, help, _ := call(t, "help")
	for _, h := range []string{"-h", "--help", "-help"} {
		if code, out, errs := call(t, h); code != exitOK || out != help || errs != "" {
			t.Errorf("%s: exit %d, stderr %q, stdout is the help: %v", h, code, errs, out == help)
		}
	}
	for _, name := range names() {
		if !strings.Contains(help, "\n  "+name+" ") {
			t.Errorf("help does not list %s", name)
		}
	}
	code, out, errs = call(t, "help", "comapre")
	if code != exitUsage || out != "" || !strings.Contains(errs, "unknown command \"comapre\"\nusage: speedmatrix COMMAND [flags] [arguments]\ndid you mean compare?\n") {
		t.Errorf("help comapre: exit %d, stdout %q, stderr %q", code, out, errs)
	}
	// A command's own failure is its exit status (1), not the dispatcher's.
	code, _, errs = call(t, "ingest", "-json", filepath.Join(t.TempDir(), "missing.txt"))
	if code != exitFail || !strings.Contains(errs, "missing.txt") {
		t.Errorf("ingest of a missing file: exit %d, stderr %q", code, errs)
	}
}
