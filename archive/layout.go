package archive

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// File naming. A data file is <table>/<stem>.parquet; the files one
// Append or Compact writes share one stem, and the runs file of a stem is
// its commit marker: measurements and samples files whose stem has no
// runs file are not (yet) part of the archive.
const (
	dataExt       = ".parquet"
	tempPrefix    = ".tmp-" // temp files: hidden and not *.parquet
	tempExt       = ".tmp"
	journalPrefix = ".txn-"
	journalExt    = ".json"
	lockName      = ".lock"
)

// newStem returns a file stem no other writer can pick:
// part-<UTC time, µs>-<host>-<pid>-<64 random bits>. It sorts by time.
func newStem(now time.Time) string {
	host, _ := os.Hostname()
	host = safeName(host)
	var b [8]byte
	rand.Read(b[:]) // never fails (crypto/rand, Go ≥ 1.24)
	return fmt.Sprintf("part-%s-%s-%d-%s", now.UTC().Format("20060102T150405.000000Z"),
		host, os.Getpid(), hex.EncodeToString(b[:]))
}

// journal records a transaction before its first rename, so that a crash
// between renames is finished (or undone) by the next writer: when the
// runs file of Stem exists the transaction committed and the files of
// Replaces are deleted; otherwise the files of Stem are removed.
type journal struct {
	path     string
	Stem     string   `json:"stem"`
	Replaces []string `json:"replaces,omitempty"`
}

// layout is what one directory scan found.
type layout struct {
	files    map[string]map[string]string // table → stem → path
	journals []journal
	temps    []string
	replaced map[string]bool // stems a committed transaction replaces
	damaged  map[string]bool // stems with a damaged file (SkipDamaged)
}

// scan lists the archive's files. It reads journals but changes nothing.
func scan(dir string) (*layout, error) {
	l := &layout{files: map[string]map[string]string{}, replaced: map[string]bool{}, damaged: map[string]bool{}}
	for _, t := range Tables {
		l.files[t] = map[string]string{}
		root := filepath.Join(dir, t)
		err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				if p == root && errors.Is(err, fs.ErrNotExist) {
					return nil
				}
				return err
			}
			if d.IsDir() {
				return nil
			}
			name := d.Name()
			switch {
			case strings.HasPrefix(name, tempPrefix) && strings.HasSuffix(name, tempExt):
				l.temps = append(l.temps, p)
			case !strings.HasPrefix(name, ".") && strings.HasSuffix(name, dataExt):
				stem := strings.TrimSuffix(name, dataExt)
				if prev, ok := l.files[t][stem]; ok {
					return fmt.Errorf("archive: %s and %s have the same name", prev, p)
				}
				l.files[t][stem] = p
			}
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("archive: scan: %w", err)
		}
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("archive: scan: %w", err)
	}
	for _, e := range ents {
		name := e.Name()
		if !strings.HasPrefix(name, journalPrefix) || !strings.HasSuffix(name, journalExt) {
			continue
		}
		p := filepath.Join(dir, name)
		b, err := os.ReadFile(p)
		if err != nil {
			return nil, fmt.Errorf("archive: scan: %w", err)
		}
		j := journal{path: p}
		if err := json.Unmarshal(b, &j); err != nil || j.Stem == "" {
			// A journal is written to a temp name and renamed, so a
			// torn one means someone else's file: refuse to guess.
			return nil, fmt.Errorf("archive: %s: unreadable journal", p)
		}
		l.journals = append(l.journals, j)
		if _, ok := l.files[TableRuns][j.Stem]; ok {
			for _, s := range j.Replaces {
				l.replaced[s] = true
			}
		}
	}
	return l, nil
}

// committed returns the stems whose runs file exists, that no committed
// transaction replaces and that hold no damaged file (when screened),
// sorted.
func (l *layout) committed() []string {
	var out []string
	for s := range l.files[TableRuns] {
		if !l.replaced[s] && !l.damaged[s] {
			out = append(out, s)
		}
	}
	sort.Strings(out)
	return out
}

// recover finishes or undoes interrupted transactions and removes stale
// temp files. It must run under the exclusive lock (no other writer can
// own a journal or a temp file then).
func recoverLayout(dir string, l *layout) error {
	for _, p := range l.temps {
		if err := fsRemove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("archive: recover: %w", err)
		}
	}
	for _, j := range l.journals {
		var err error
		if _, ok := l.files[TableRuns][j.Stem]; ok {
			err = removeStems(dir, l, j.Replaces)
		} else {
			err = removeStems(dir, l, []string{j.Stem})
		}
		if err != nil {
			return err
		}
		if err := fsRemove(j.path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("archive: recover: %w", err)
		}
	}
	if len(l.journals) > 0 || len(l.temps) > 0 {
		return syncDirs(dir)
	}
	return nil
}

// removeStems deletes every file of stems, the runs files first, so that
// a crash halfway leaves uncommitted leftovers rather than duplicate runs.
func removeStems(dir string, l *layout, stems []string) error {
	order := []string{TableRuns, TableMeasurements, TableSamples}
	for _, t := range order {
		for _, s := range stems {
			p, ok := l.files[t][s]
			if !ok {
				continue
			}
			if err := fsRemove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return fmt.Errorf("archive: remove: %w", err)
			}
		}
	}
	return nil
}

// syncDirs fsyncs the archive directory and its table directories, making
// renames and removals durable.
func syncDirs(dir string) error {
	for _, d := range append([]string{dir}, tableDirs(dir)...) {
		if err := syncDir(d); err != nil {
			return err
		}
	}
	return nil
}

func tableDirs(dir string) []string {
	var out []string
	for _, t := range Tables {
		out = append(out, filepath.Join(dir, t))
	}
	return out
}

func syncDir(d string) error {
	f, err := os.Open(d)
	if err != nil {
		return fmt.Errorf("archive: sync %s: %w", d, err)
	}
	defer f.Close()
	if err := fsSync(f); err != nil {
		return fmt.Errorf("archive: sync %s: %w", d, err)
	}
	return nil
}
