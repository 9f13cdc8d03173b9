package ingestcmd

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"speedmatrix/internal/testtool"
)

// TestProgressOnTerminalOnly ingests several files with stderr taken for
// a terminal and not: the progress line (files done of the total,
// redrawn with \r, and erased before a failed file's message) is there
// only on a terminal, and the messages are the same either way.
func TestProgressOnTerminalOnly(t *testing.T) {
	seed := testtool.ReadSeed(t, 0)
	dir := t.TempDir()
	var files []string
	for i := range 6 {
		p := filepath.Join(dir, "doc"+string(rune('a'+i))+".txt")
		if err := os.WriteFile(p, []byte(testtool.SeedVariant(seed, i)), 0o644); err != nil {
			t.Fatal(err)
		}
		files = append(files, p)
	}
	bad := filepath.Join(dir, "bad.txt")
	if err := os.WriteFile(bad, []byte("not a speed test\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	files = append(files, bad)
	saved := stderrIsTerminal
	t.Cleanup(func() { stderrIsTerminal = saved })
	stderrOf := func(terminal bool, args ...string) string {
		stderrIsTerminal = func(io.Writer) bool { return terminal }
		code, _, stderr := runIngest(t, "", args...)
		if code != 1 { // the bad file fails; the others are read
			t.Fatalf("terminal %v: exit %d\n%s", terminal, code, stderr)
		}
		return stderr
	}
	for _, mode := range []string{"archive", "json"} {
		// Each run ingests into an archive of its own (the same runs
		// again would be duplicates); its path is named ARCHIVE below.
		args := func(arch string) []string {
			if mode == "json" {
				return append([]string{"-json"}, files...)
			}
			return append([]string{"-archive", arch}, files...)
		}
		a1, a2 := filepath.Join(t.TempDir(), "a"), filepath.Join(t.TempDir(), "a")
		term := strings.ReplaceAll(stderrOf(true, args(a1)...), a1, "ARCHIVE")
		piped := strings.ReplaceAll(stderrOf(false, args(a2)...), a2, "ARCHIVE")
		if !strings.Contains(term, "\r\033[Kingest: 1/7 files") || !strings.Contains(term, "ingest: 7/7 files") {
			t.Errorf("%v: no progress line on a terminal:\n%q", mode, term)
		}
		if strings.Contains(piped, "\r") || strings.Contains(piped, "files/s") || strings.Contains(piped, "/7 files") {
			t.Errorf("%v: progress when not a terminal:\n%q", mode, piped)
		}
		// Erase every redrawn line: what is left is what the pipe got.
		clean := term
		for {
			i := strings.Index(clean, "\r\033[K")
			if i < 0 {
				break
			}
			start := strings.LastIndex(clean[:i], "\n") + 1
			clean = clean[:start] + clean[i+len("\r\033[K"):]
		}
		if clean != piped {
			t.Errorf("%v: the messages differ on a terminal once the progress is erased:\n%q\nwant\n%q", mode, clean, piped)
		}
		t.Logf("%s, terminal: %q", mode, term)
	}
}
