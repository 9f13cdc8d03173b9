package testtool

import (
	"os"
	"path/filepath"
	"testing"
)

func TestRepoRoot(t *testing.T) {
	root := RepoRoot(t)
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("RepoRoot %s holds no go.mod: %v", root, err)
	}
}

// TestMissingTool checks the two behaviours of a missing tool: a skip on a
// developer's machine, a failure when RequireEnv is set.
func TestMissingTool(t *testing.T) {
	for _, require := range []bool{false, true} {
		ft := &fakeTB{}
		func() {
			defer func() { recover() }() // Skipf/Fatalf stop the goroutine in real tests
			if require {
				t.Setenv(RequireEnv, "1")
			} else {
				t.Setenv(RequireEnv, "")
			}
			missing(ft, "frobnicator")
		}()
		if require && !ft.failed || !require && !ft.skipped {
			t.Errorf("require=%v: failed=%v skipped=%v", require, ft.failed, ft.skipped)
		}
	}
}

// fakeTB records Fatalf and Skipf instead of stopping the test.
type fakeTB struct {
	testing.TB
	failed, skipped bool
}

func (f *fakeTB) Helper()               {}
func (f *fakeTB) Fatalf(string, ...any) { f.failed = true; panic("fatal") }
func (f *fakeTB) Skipf(string, ...any)  { f.skipped = true; panic("skip") }
func (f *fakeTB) Fatal(...any)          { f.failed = true; panic("fatal") }

// TestOllamaFound checks that Ollama is found where go install puts it
// when it is not on PATH.
func TestOllamaFound(t *testing.T) {
	gobin := t.TempDir()
	bin := filepath.Join(gobin, "ollama")
	if err := os.WriteFile(bin, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", t.TempDir())
	t.Setenv("GOBIN", gobin)
	if got := Ollama(t); got != bin {
		t.Errorf("Ollama = %q, want %q", got, bin)
	}
}
