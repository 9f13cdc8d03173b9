package archive

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sync"
)

// damagedDir is where MoveAside puts the files of a damaged batch: out
// of the store and of every snapshot, kept for a person to look at.
const damagedDir = "damaged"

// DamagedError is a data file the archive cannot use: truncated,
// corrupt, or not a file of its table (another program's Parquet, a
// runs file among measurements, not Parquet at all).
type DamagedError struct {
	Path string
	Err  error
}

func (e *DamagedError) Error() string {
	return fmt.Sprintf("archive: %s: damaged or foreign file: %v", e.Path, e.Err)
}

func (e *DamagedError) Unwrap() error { return e.Err }

// damaged wraps a read error of the file at path as a DamagedError
// (a file that vanished is not damage).
func damaged(path string, err error) error {
	if err == nil || errors.Is(err, fs.ErrNotExist) {
		return err
	}
	var de *DamagedError
	if errors.As(err, &de) {
		return err
	}
	return &DamagedError{Path: path, Err: err}
}

// Damage is one damaged file, found by Check or skipped by a read with
// SkipDamaged: the table and batch (stem) it belongs to.
type Damage struct {
	Table, Stem, Path string
	Err               error
}

// checkFile opens a data file of table and checks that it is a Parquet
// file written for that table (the speedmatrix.table key/value metadata)
// with a utf8 run_id column; full also decodes every row.
func checkFile(table, path string, full bool) (err error) {
	defer recoverCorrupt(path, &err)
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	t := tableByName(table)
	fr, err := t.openParquet(f, path)
	if err != nil {
		return err
	}
	md := fr.ParquetReader().MetaData()
	if md.KeyValueMetadata().FindValue(MetaTable) == nil {
		return fmt.Errorf("not written by speedmatrix (no %s metadata)", MetaTable)
	}
	if md.Schema.ColumnIndexByName("run_id") < 0 {
		return errors.New("no run_id column")
	}
	if !full {
		return nil
	}
	if _, err := f.Seek(0, 0); err != nil {
		return err
	}
	return t.read(f, path, nil, nil, &discard{typ: t.typ})
}

// discard is a rowSink that reuses one slice of rows: Check decodes
// every row to find damage, and keeps none.
type discard struct {
	typ  reflect.Type
	rows reflect.Value
}

func (d *discard) reserve(int) {}

func (d *discard) grow(n int) reflect.Value {
	if !d.rows.IsValid() || d.rows.Len() < n {
		d.rows = reflect.MakeSlice(reflect.SliceOf(d.typ), n, n)
	}
	z := d.rows.Slice(0, n)
	for i := 0; i < n; i++ {
		z.Index(i).SetZero()
	}
	return z
}

// Check reads every data file of the store in full (committed or not)
// and returns those it cannot use, sorted by path. It changes nothing.
func (a *Archive) Check(ctx context.Context) ([]Damage, error) {
	unlock, err := a.lock(ctx, false)
	if err != nil {
		return nil, err
	}
	defer unlock()
	l, err := scan(a.dir)
	if err != nil {
		return nil, err
	}
	type file struct{ table, stem, path string }
	var files []file
	for _, t := range Tables {
		for s, p := range l.files[t] {
			files = append(files, file{t, s, p})
		}
	}
	var mu sync.Mutex
	var out []Damage
	err = parallel(ctx, len(files), func(k int) error {
		f := files[k]
		if err := checkFile(f.table, f.path, true); err != nil {
			mu.Lock()
			out = append(out, Damage{Table: f.table, Stem: f.stem, Path: f.path, Err: err})
			mu.Unlock()
		}
		return nil
	})
	slices.SortFunc(out, func(x, y Damage) int { return cmp.Compare(x.Path, y.Path) })
	return out, err
}

// screen, when SkipDamaged is set, opens each file of every committed
// stem (footer and metadata, as checkFile without full) and marks the
// stems holding a damaged one, which committed() then leaves out; each
// damaged file is reported to OnDamaged once per Archive.
//
// Note: only the footer is read, so a file damaged in its middle still
// fails the read that reaches the damage (naming it); ingest -check
// finds those too.
func (a *Archive) screen(ctx context.Context, l *layout) error {
	if !a.SkipDamaged {
		return nil
	}
	type file struct{ table, stem, path string }
	var files []file
	for _, s := range l.committed() {
		for _, t := range Tables {
			if p, ok := l.files[t][s]; ok {
				files = append(files, file{t, s, p})
			}
		}
	}
	errs := make([]error, len(files))
	if err := parallel(ctx, len(files), func(k int) error {
		errs[k] = checkFile(files[k].table, files[k].path, false)
		return nil
	}); err != nil {
		return err
	}
	for k, f := range files {
		if errs[k] == nil {
			continue
		}
		l.damaged[f.stem] = true
		a.mu.Lock()
		seen := a.warned[f.path]
		a.warned[f.path] = true
		a.mu.Unlock()
		if !seen && a.OnDamaged != nil {
			a.OnDamaged(Damage{Table: f.table, Stem: f.stem, Path: f.path, Err: errs[k]})
		}
	}
	return nil
}

// MoveAside moves every file of the given batches (stems, as Damage
// reports them) from the store to DIR/damaged/<table>/, where no read
// and no snapshot finds them, and publishes the archive without them.
// It returns the new paths.
func (a *Archive) MoveAside(ctx context.Context, stems []string) (moved []string, err error) {
	err = a.underWriteLock(ctx, func(l *layout) error {
		moved, err = a.moveAside(ctx, l, stems)
		return err
	})
	return moved, err
}

// moveAside is MoveAside under the write lock, on store l.
func (a *Archive) moveAside(ctx context.Context, l *layout, stems []string) ([]string, error) {
	var moved []string
	for _, t := range Tables {
		for _, s := range stems {
			p, ok := l.files[t][s]
			if !ok {
				continue
			}
			d := filepath.Join(a.dir, damagedDir, t)
			if err := os.MkdirAll(d, 0o755); err != nil {
				return moved, fmt.Errorf("archive: move aside: %w", err)
			}
			to := filepath.Join(d, filepath.Base(p))
			if err := fsRename(p, to); err != nil {
				return moved, fmt.Errorf("archive: move aside: %w", err)
			}
			a.mu.Lock()
			delete(a.ids, p)
			a.mu.Unlock()
			moved = append(moved, to)
		}
	}
	if err := syncDirs(a.dir); err != nil {
		return moved, err
	}
	return moved, a.republish(ctx)
}
