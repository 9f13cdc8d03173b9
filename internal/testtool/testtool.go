// Package testtool finds the external programs some tests need (Chromium,
// Node.js with DuckDB, Ollama) and decides what a test does when one is missing:
// skip with the reason on a developer's machine, fail when
// SPEEDMATRIX_REQUIRE_TOOLS is set (scripts/test and CI set it, after
// installing the tools).
package testtool

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"

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
