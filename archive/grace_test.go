package archive

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// fakeClock makes the archive's clock (snapshot names, pruning) a value
// the test moves, and returns a function that moves it on.
func fakeClock(t *testing.T) (advance func(time.Duration)) {
	now := time.Now().UTC()
	prev := clock
	clock = func() time.Time { return now }
	t.Cleanup(func() { clock = prev })
	return func(d time.Duration) { now = now.Add(d) }
}

// pin resolves DIR/current as a reader does (its SNAPSHOT file) and
// returns the snapshot's directory and the data files in it.
func pin(t *testing.T, dir string) (string, []string) {
	t.Helper()
	name, err := os.ReadFile(filepath.Join(dir, currentLink, snapshotIDTxt))
	if err != nil {
		t.Fatal(err)
	}
	snap := filepath.Join(dir, snapshotsDir, string(name))
	files, err := filepath.Glob(filepath.Join(snap, "*", "*"+dataExt))
	if err != nil || len(files) == 0 {
		t.Fatalf("pinned %s: files %v (%v)", snap, files, err)
	}
	return snap, files
}

// TestPinnedSnapshotOutlivesSlowPublish: a reader pins the current
// snapshot, and the next write takes longer than SnapshotGrace between
// naming its snapshot and swapping DIR/current to it (links and fsyncs
// on a loaded machine; here the clock is moved on at the swap). The
// snapshot the reader pinned was replaced at the swap, not when its
// successor was named: it must stay on disk for SnapshotGrace after the
// swap. Later writes, once that grace has passed, remove it.
func TestPinnedSnapshotOutlivesSlowPublish(t *testing.T) {
	ctx := context.Background()
	advance := fakeClock(t)
	a := openTest(t)
	for i := 0; i < 4; i += 2 {
		if _, err := a.Append(ctx, testMatrices(i, i+2)); err != nil {
			t.Fatal(err)
		}
		advance(time.Second)
	}
	snap, files := pin(t, a.Dir())

	// The write: its snapshot is named, then the swap comes 2 graces
	// later.
	stepMu.Lock()
	stepHook = func(op, path string) {
		if op == "symlink" && strings.HasPrefix(filepath.Base(path), tempPrefix+currentLink) {
			advance(2 * SnapshotGrace)
		}
	}
	stepMu.Unlock()
	defer func() {
		stepMu.Lock()
		stepHook = nil
		stepMu.Unlock()
	}()
	if _, err := a.Append(ctx, testMatrices(4, 6)); err != nil {
		t.Fatal(err)
	}
	stepMu.Lock()
	stepHook = nil
	stepMu.Unlock()
	if now, _ := pin(t, a.Dir()); now == snap {
		t.Fatal("the write did not publish a new snapshot")
	}
	for _, f := range files {
		if _, err := os.Stat(f); err != nil {
			t.Fatalf("a file of the pinned snapshot, replaced just now, is gone: %v", err)
		}
	}

	// Within the grace after the swap, writes keep it; after, they remove it.
	advance(SnapshotGrace / 2)
	if _, err := a.Append(ctx, testMatrices(6, 8)); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(snap); err != nil {
		t.Fatalf("the pinned snapshot went %v after it was replaced, within the grace %v: %v", SnapshotGrace/2, SnapshotGrace, err)
	}
	for i := 8; i < 12; i += 2 {
		advance(2 * SnapshotGrace)
		if _, err := a.Append(ctx, testMatrices(i, i+2)); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := os.Stat(snap); err == nil {
		t.Errorf("the pinned snapshot is still on disk %v after it was replaced", 4*SnapshotGrace)
	}
}
