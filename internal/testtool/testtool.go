// Package testtool finds the external programs some tests need (Chromium,
// Node.js with DuckDB, Ollama) and decides what a test does when one is missing:
// skip with the reason on a developer's machine, fail when
// SPEEDMATRIX_REQUIRE_TOOLS is set (scripts/test and CI set it, after
// installing the tools).
package testtool

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"speedmatrix/internal/tinyllama"
)

// RequireEnv is the environment variable that makes a missing tool a
// test failure instead of a skip.
const RequireEnv = "SPEEDMATRIX_REQUIRE_TOOLS"

// missing skips or fails t, depending on RequireEnv.
func missing(t testing.TB, what string) {
	t.Helper()
	if os.Getenv(RequireEnv) != "" {
		t.Fatalf("%s is missing and %s is set: run scripts/test, which installs it", what, RequireEnv)
	}
	t.Skipf("%s is missing: run scripts/test to install it and run this test", what)
}

// RepoRoot returns the repository root (the directory holding go.mod).
func RepoRoot(t testing.TB) string {
	t.Helper()
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		t.Fatal("testtool: cannot locate source file")
	}
	return filepath.Clean(filepath.Join(filepath.Dir(file), "..", ".."))
}

// Chromium returns the path of a headless-capable Chromium binary.
func Chromium(t testing.TB) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	missing(t, "chromium (Debian package chromium)")
	return ""
}

// DuckDBQuery returns the node binary and the path of
// interop/duckdb/query.mjs, which runs one SQL statement with DuckDB and
// prints the rows as a JSON array.
func DuckDBQuery(t testing.TB) (node, script string) {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		missing(t, "node (Node.js)")
		return "", ""
	}
	dir := filepath.Join(RepoRoot(t), "interop", "duckdb")
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "@duckdb", "node-api")); err != nil {
		missing(t, "@duckdb/node-api (npm install in interop/duckdb)")
		return "", ""
	}
	return node, filepath.Join(dir, "query.mjs")
}

// OllamaVersion is the Ollama release scripts/test installs with
// `go install github.com/ollama/ollama@OllamaVersion` (later releases no
// longer build with plain go install).
const OllamaVersion = "v0.6.5"

// Ollama returns the path of the ollama binary (tinyllama.FindOllama: on
// PATH, else where go install puts it).
func Ollama(t testing.TB) string {
	t.Helper()
	p, err := tinyllama.FindOllama()
	if err != nil {
		missing(t, "ollama (go install github.com/ollama/ollama@"+OllamaVersion+")")
	}
	return p
}

// DumpDOM opens the HTML file page in headless Chromium and returns the
// DOM after load (--dump-dom); it skips or fails t when Chromium is
// missing (see RequireEnv) and fails it when Chromium does.
func DumpDOM(t testing.TB, page string) string {
	t.Helper()
	chromium := Chromium(t)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, chromium, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--user-data-dir="+t.TempDir(), "--dump-dom", "file://"+page)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("chromium: %v\n%s", err, stderr.String())
	}
	return string(out)
}

// Golden compares got with the golden file path, first rewriting the
// file when update is set (a test's -update flag); a difference fails t
// naming the first line that differs.
func Golden(t testing.TB, path string, got []byte, update bool) {
	t.Helper()
	if update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run the test with -update to create it)", err)
	}
	if bytes.Equal(got, want) {
		return
	}
	gl, wl := strings.Split(string(got), "\n"), strings.Split(string(want), "\n")
	for i := range min(len(gl), len(wl)) {
		if gl[i] != wl[i] {
			t.Fatalf("%s differs at line %d (rerun with -update after checking):\nwant: %s\ngot:  %s", path, i+1, wl[i], gl[i])
		}
	}
	t.Fatalf("%s differs in length: %d lines, want %d", path, len(gl), len(wl))
}
