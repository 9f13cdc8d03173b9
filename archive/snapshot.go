package archive

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// Snapshots: what outside readers (DuckDB, pandas, Spark) read.
//
// The table directories (DIR/runs, DIR/measurements, DIR/samples) are the
// store: the tool's own reads find the committed files there under the
// lock, and archives merge by copying files into them. A query engine
// that globs them cannot tell a committed file from one half way through
// a commit or a compaction. So every write ends by publishing a snapshot:
//
//	DIR/snapshots/<name>/runs/<stem>.parquet          hard links to the
//	DIR/snapshots/<name>/measurements/<stem>.parquet  committed files
//	DIR/snapshots/<name>/samples/<stem>.parquet
//	DIR/snapshots/<name>/SNAPSHOT                     the name, for readers that pin it
//	DIR/current -> snapshots/<name>                   one symlink, swapped by rename
//
// A snapshot is built under a hidden temp name, fsynced, renamed into
// snapshots/, and published by renaming a new symlink over DIR/current:
// one atomic step. A snapshot never changes after that, and it is kept
// for SnapshotGrace after a newer one replaced it, so a reader that
// resolved DIR/current (or read SNAPSHOT) can finish reading it even when
// a compaction deleted the store's files meanwhile: the hard links keep
// their data. See docs/archive.md for the reader's side.

const (
	snapshotsDir  = "snapshots"
	currentLink   = "current"
	snapshotIDTxt = "SNAPSHOT"
	snapPrefix    = "s-"
)

// SnapshotGrace is how long a snapshot stays on disk after a newer one
// replaced it: the longest read of a pinned snapshot that cannot fail.
//
// Note: readers leave no trace a writer could see (they take no lock),
// so the bound is a time. Old snapshots cost directory entries, and the
// blocks of files a compaction replaced stay allocated until then.
var SnapshotGrace = time.Hour

// clock is the time of snapshot names and of pruning (a variable so
// tests can move it).
var clock = time.Now

// snapshotName returns a new snapshot name that sorts by time.
func snapshotName(now time.Time) string {
	var b [4]byte
	rand.Read(b[:])
	return snapPrefix + now.UTC().Format("20060102T150405.000000Z") + "-" + hex.EncodeToString(b[:])
}

// snapshotTime returns the time in a snapshot's name.
func snapshotTime(name string) (time.Time, bool) {
	s, ok := strings.CutPrefix(name, snapPrefix)
	if !ok || len(s) < len("20060102T150405.000000Z") {
		return time.Time{}, false
	}
	t, err := time.Parse("20060102T150405.000000Z", s[:len("20060102T150405.000000Z")])
	return t, err == nil
}

// Snapshot returns the name of the published snapshot ("" when none is
// published yet) and its directory.
func (a *Archive) Snapshot() (name, dir string, err error) {
	target, err := os.Readlink(filepath.Join(a.dir, currentLink))
	if errors.Is(err, fs.ErrNotExist) {
		return "", "", nil
	}
	if err != nil {
		return "", "", fmt.Errorf("archive: %w", err)
	}
	name = filepath.Base(target)
	return name, filepath.Join(a.dir, snapshotsDir, name), nil
}

// published returns the stems of each table in the current snapshot.
func (a *Archive) published() (map[string][]string, error) {
	name, dir, err := a.Snapshot()
	if err != nil || name == "" {
		return nil, err
	}
	out := map[string][]string{}
	for _, t := range Tables {
		ents, err := os.ReadDir(filepath.Join(dir, t))
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("archive: snapshot: %w", err)
		}
		for _, e := range ents {
			if s, ok := strings.CutSuffix(e.Name(), dataExt); ok {
				out[t] = append(out[t], s)
			}
		}
		slices.Sort(out[t])
	}
	return out, nil
}

// snapshotStems returns the committed stems a snapshot holds: all of
// them, except a stem holding a run id an earlier stem holds too (archives
// merged by copying files that had ingested the same document). Such a
// stem stays out, so no reader sees a run twice, until Compact merges the
// duplicates away; the second result lists them.
func (a *Archive) snapshotStems(ctx context.Context, l *layout) (keep, held []string, err error) {
	stems := l.committed()
	lists, err := a.idLists(ctx, l, stems)
	if err != nil {
		return nil, nil, err
	}
	seen := map[string]bool{}
	for k, s := range stems {
		dup := false
		for _, id := range lists[k] {
			if seen[id] {
				dup = true
				break
			}
		}
		if dup {
			held = append(held, s)
			continue
		}
		for _, id := range lists[k] {
			seen[id] = true
		}
		keep = append(keep, s)
	}
	return keep, held, nil
}

// publish makes the committed files (l) the current snapshot, unless it
// already is, and removes snapshots older than SnapshotGrace. Callers
// hold the exclusive lock.
func (a *Archive) publish(ctx context.Context, l *layout) error {
	stems, _, err := a.snapshotStems(ctx, l)
	if err != nil {
		return err
	}
	want := map[string][]string{}
	for _, t := range Tables {
		for _, s := range stems {
			if _, ok := l.files[t][s]; ok {
				want[t] = append(want[t], s)
			}
		}
	}
	have, err := a.published()
	if err != nil {
		return err
	}
	name, _, err := a.Snapshot()
	if err != nil {
		return err
	}
	same := name != ""
	for _, t := range Tables {
		same = same && slices.Equal(have[t], want[t])
	}
	if !same {
		if name, err = a.writeSnapshot(l, want); err != nil {
			return err
		}
	}
	return a.pruneSnapshots(name, clock())
}

// writeSnapshot builds a snapshot of the files in want (table → stems)
// and publishes it. It returns the snapshot's name.
func (a *Archive) writeSnapshot(l *layout, want map[string][]string) (string, error) {
	root := filepath.Join(a.dir, snapshotsDir)
	if err := os.MkdirAll(root, 0o755); err != nil {
		return "", fmt.Errorf("archive: snapshot: %w", err)
	}
	name := snapshotName(clock())
	tmp := filepath.Join(root, tempPrefix+name)
	if err := fsMkdir(tmp); err != nil {
		return "", fmt.Errorf("archive: snapshot: %w", err)
	}
	for _, t := range Tables {
		d := filepath.Join(tmp, t)
		if err := fsMkdir(d); err != nil {
			return "", fmt.Errorf("archive: snapshot: %w", err)
		}
		for _, s := range want[t] {
			if err := linkOrCopy(l.files[t][s], filepath.Join(d, s+dataExt)); err != nil {
				return "", fmt.Errorf("archive: snapshot: %w", err)
			}
		}
		if err := syncDir(d); err != nil {
			return "", err
		}
	}
	if err := writeTemp(filepath.Join(tmp, snapshotIDTxt), func(f *os.File) error {
		_, err := io.WriteString(f, name)
		return err
	}); err != nil {
		return "", err
	}
	if err := syncDir(tmp); err != nil {
		return "", err
	}
	if err := fsRename(tmp, filepath.Join(root, name)); err != nil {
		return "", fmt.Errorf("archive: snapshot: %w", err)
	}
	if err := syncDir(root); err != nil {
		return "", err
	}
	// The swap: a new symlink under a temp name, renamed over the old.
	link := filepath.Join(a.dir, tempPrefix+currentLink+"-"+name+tempExt)
	if err := fsSymlink(filepath.Join(snapshotsDir, name), link); err != nil {
		return "", fmt.Errorf("archive: snapshot: %w", err)
	}
	if err := fsRename(link, filepath.Join(a.dir, currentLink)); err != nil {
		os.Remove(link)
		return "", fmt.Errorf("archive: snapshot: %w", err)
	}
	return name, syncDir(a.dir)
}

// linkOrCopy hard-links from to to, or copies it on a file system
// without hard links.
func linkOrCopy(from, to string) error {
	err := fsLink(from, to)
	if err == nil || errors.Is(err, fs.ErrNotExist) || errors.Is(err, fs.ErrExist) {
		return err
	}
	src, err := os.Open(from)
	if err != nil {
		return err
	}
	defer src.Close()
	return writeTemp(to, func(f *os.File) error {
		_, err := io.Copy(f, src)
		return err
	})
}

// pruneSnapshots removes leftovers of interrupted snapshot writes, the
// snapshots newer than current (written but never published), and those
// replaced more than SnapshotGrace before now. Callers hold the exclusive
// lock.
//
// A snapshot n was replaced when DIR/current was swapped to the one after
// it, m. The time in m's name is not that moment: m is named before its
// files are linked and fsynced, and that took longer than a short grace
// on a loaded machine, so n went at the very swap that replaced it, under
// a reader that had just pinned it (1 of 405 DuckDB reads failed,
// TestDuckDBPollsDuringCompactions; TestPinnedSnapshotOutlivesSlowPublish
// replays it). The swap to m came before the snapshot after m was named
// (its writer took the lock after m's), so that name's time bounds it
// from above; while m is current, n stays.
func (a *Archive) pruneSnapshots(current string, now time.Time) error {
	root := filepath.Join(a.dir, snapshotsDir)
	ents, err := os.ReadDir(root)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("archive: snapshot: %w", err)
	}
	var names []string
	removed := false
	for _, e := range ents {
		switch n := e.Name(); {
		case strings.HasPrefix(n, tempPrefix):
			if err := removeTree(filepath.Join(root, n)); err != nil {
				return err
			}
			removed = true
		case strings.HasPrefix(n, snapPrefix):
			names = append(names, n)
		}
	}
	slices.Sort(names) // by time
	for i, n := range names {
		if n == current {
			continue
		}
		drop := current == "" || n > current
		if !drop && i+2 < len(names) && names[i+2] <= current {
			after, ok := snapshotTime(names[i+2])
			drop = ok && now.Sub(after) > SnapshotGrace
		}
		if drop {
			// Hide it first, so a crash half way leaves a temp.
			hidden := filepath.Join(root, tempPrefix+n)
			if err := fsRename(filepath.Join(root, n), hidden); err != nil {
				return fmt.Errorf("archive: snapshot: %w", err)
			}
			if err := removeTree(hidden); err != nil {
				return err
			}
			removed = true
		}
	}
	// Leftover temp symlinks of an interrupted swap.
	tops, err := os.ReadDir(a.dir)
	if err != nil {
		return fmt.Errorf("archive: snapshot: %w", err)
	}
	for _, e := range tops {
		if n := e.Name(); strings.HasPrefix(n, tempPrefix+currentLink) {
			if err := fsRemove(filepath.Join(a.dir, n)); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return fmt.Errorf("archive: snapshot: %w", err)
			}
			removed = true
		}
	}
	if removed {
		return syncDir(root)
	}
	return nil
}

// removeTree removes a snapshot directory: links, then directories.
func removeTree(dir string) error {
	var dirs []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			dirs = append(dirs, p)
			return nil
		}
		return fsRemove(p)
	})
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("archive: snapshot: %w", err)
	}
	for i := len(dirs) - 1; i >= 0; i-- {
		if err := fsRemove(dirs[i]); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("archive: snapshot: %w", err)
		}
	}
	return nil
}
