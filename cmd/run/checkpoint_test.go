package runcmd

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"speedmatrix/runner"
)

// interruptAfterCheckpoint runs args in the current directory and
// interrupts the run as soon as a checkpoint matching glob appears (a
// cell finished); it returns that checkpoint's path and cell count.
func interruptAfterCheckpoint(t *testing.T, glob string, args ...string) (string, int) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		for ctx.Err() == nil {
			if m, _ := filepath.Glob(glob); len(m) > 0 {
				cancel()
				return
			}
			time.Sleep(5 * time.Millisecond)
		}
	}()
	code, _, stderr := runCmd(t, ctx, args...)
	if code != exitInterrupted || !strings.Contains(stderr, "-resume") {
		t.Fatalf("exit %d, stderr %s", code, stderr)
	}
	m, _ := filepath.Glob(glob)
	if len(m) != 1 {
		t.Fatalf("checkpoints %v after the interrupt", m)
	}
	cp, err := runner.LoadCheckpoint(m[0])
	if err != nil {
		t.Fatal(err)
	}
	if len(cp.Matrix.Measurements) == 0 {
		t.Fatal("the checkpoint holds no cell")
	}
	return m[0], len(cp.Matrix.Measurements)
}

// TestCheckpointBelongsToItsRun: the checkpoint of an interrupted run is
// never overwritten or deleted by another run. Without -out and -archive
// each run's checkpoint is named after its settings, so another run in
// the same directory leaves it alone and the first run still resumes;
// a second run writing the same -out, or the same run again without
// -resume, is refused with a message naming the file and what to do.
// (Before, the second run overwrote the first's
// speedmatrix-run.checkpoint.json and deleted it when it finished.)
func TestCheckpointBelongsToItsRun(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	first := []string{"-simulate", "default", "-contexts", "1K", "-concurrency", "1,2,4", "-duration", "300ms", "-max-tokens", "50"}
	path, cells := interruptAfterCheckpoint(t, "speedmatrix-run*.checkpoint.json", first...)
	before, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}

	// Another run in the same directory finishes and leaves the first's
	// checkpoint as it was.
	other := []string{"-simulate", "default", "-contexts", "1K", "-concurrency", "1", "-duration", "200ms", "-max-tokens", "30"}
	if code, stdout, stderr := runCmd(t, context.Background(), other...); code != exitOK {
		t.Fatalf("another run: exit %d\n%s\n%s", code, stdout, stderr)
	}
	if after, err := os.ReadFile(path); err != nil || string(after) != string(before) {
		t.Fatalf("the first run's checkpoint was changed or removed by another run (%v)", err)
	}

	// The same run again without -resume is refused: it would restart
	// and drop the finished cells.
	code, _, stderr := runCmd(t, context.Background(), first...)
	if code != exitUsage || !strings.Contains(stderr, path) || !strings.Contains(stderr, "-resume") || !strings.Contains(stderr, "delete") {
		t.Fatalf("the same run without -resume: exit %d, stderr %q", code, stderr)
	}

	// The first run resumes from its own checkpoint.
	code, stdout, stderr := runCmd(t, context.Background(), append(first, "-resume")...)
	if code != exitOK || !strings.Contains(stderr, "resuming "+strconv.Itoa(cells)+" finished cells") {
		t.Fatalf("resume: exit %d\n%s\n%s", code, stdout, stderr)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("checkpoint left after the resumed run finished: %v", err)
	}

	// Two runs writing one -out: the second is refused while the first's
	// checkpoint is there, and the checkpoint is kept.
	out := filepath.Join(dir, "run.md")
	path, _ = interruptAfterCheckpoint(t, out+".checkpoint.json", append(first, "-out", out)...)
	before, _ = os.ReadFile(path)
	code, _, stderr = runCmd(t, context.Background(), append(other, "-out", out)...)
	if code != exitUsage || !strings.Contains(stderr, path) || !strings.Contains(stderr, "another run") {
		t.Fatalf("another run with the same -out: exit %d, stderr %q", code, stderr)
	}
	if after, err := os.ReadFile(path); err != nil || string(after) != string(before) {
		t.Fatalf("the first run's checkpoint was changed or removed (%v)", err)
	}
}
