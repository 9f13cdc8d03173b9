package archive

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sync"

	"speedmatrix/archive/internal/pqwrite"
	"speedmatrix/schema"
)

// tempFiles are the files of one transaction, one per table, written
// under hidden temp names until the commit renames them.
type tempFiles struct {
	dir, stem string
	files     [3]*tempFile // measurements, samples, runs: the rename order
}

// renameOrder: the runs file is renamed last, as the commit point.
var renameOrder = [3]string{TableMeasurements, TableSamples, TableRuns}

// tempFile is one table's file of a transaction, open for writing.
type tempFile struct {
	t           *table
	temp, final string
	f           *os.File
	bw          *bufio.Writer
	fw          *fileWriter
}

// write appends rows to the files, each table on its own goroutine
// (encoding is CPU-bound and the files are independent).
func (tf *tempFiles) write(runs []schema.Run, ms []schema.Measurement, samples []schema.Sample) error {
	rows := [3]reflect.Value{reflect.ValueOf(ms), reflect.ValueOf(samples), reflect.ValueOf(runs)}
	errs := make([]error, 3)
	var wg sync.WaitGroup
	for k := range renameOrder {
		if rows[k].Len() == 0 {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[k] = tf.writeTable(k, rows[k])
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		tf.abort()
		return err
	}
	return nil
}

// writeRuns is write for rows that come as runs (see
// fileWriter.writeRuns).
func (tf *tempFiles) writeRuns(runs []schema.Run, ms, samples []pqwrite.Run) error {
	byTable := [2][]pqwrite.Run{ms, samples} // runs: the rows of runs
	errs := make([]error, 3)
	var wg sync.WaitGroup
	for k := range renameOrder {
		if k < 2 && len(byTable[k]) == 0 || len(runs) == 0 {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			f, err := tf.open(k)
			switch {
			case err != nil:
			case k < 2:
				err = f.fw.writeRuns(byTable[k])
			default:
				err = f.fw.writeGroups(reflect.ValueOf(runs))
			}
			errs[k] = err
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		tf.abort()
		return err
	}
	return nil
}

func (tf *tempFiles) writeTable(k int, rows reflect.Value) error {
	f, err := tf.open(k)
	if err != nil {
		return err
	}
	return f.fw.writeGroups(rows)
}

// writeStream writes the rows of table name that fill calls put with as
// one row group (see table.writeStream).
func (tf *tempFiles) writeStream(name string, fill func(put func(reflect.Value) error) error) error {
	k := slices.Index(renameOrder[:], name)
	f, err := tf.open(k)
	if err != nil {
		return err
	}
	return f.fw.writeStream(fill)
}

// open returns the file of table k, created on first use.
func (tf *tempFiles) open(k int) (*tempFile, error) {
	f := tf.files[k]
	if f == nil {
		t := tableByName(renameOrder[k])
		f = &tempFile{t: t,
			temp:  filepath.Join(tf.dir, t.name, tempPrefix+tf.stem+tempExt),
			final: filepath.Join(tf.dir, t.name, tf.stem+dataExt)}
		var err error
		if f.f, err = os.OpenFile(f.temp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644); err != nil {
			return nil, fmt.Errorf("archive: %w", err)
		}
		tf.files[k] = f
		f.bw = bufio.NewWriterSize(f.f, 1<<16)
		if f.fw, err = t.newFileWriter(f.bw); err != nil {
			return nil, err
		}
	}
	return f, nil
}

// close finishes and fsyncs the files.
func (tf *tempFiles) close() error {
	for _, f := range tf.files {
		if f == nil {
			continue
		}
		err := f.fw.Close()
		if err == nil {
			err = f.bw.Flush()
		}
		if err == nil {
			err = fsSync(f.f)
		}
		if cerr := f.f.Close(); err == nil {
			err = cerr
		}
		f.fw = nil
		if err != nil {
			return fmt.Errorf("archive: write %s: %w", f.t.name, err)
		}
	}
	return nil
}

// abort closes and removes the temp files.
func (tf *tempFiles) abort() {
	for k, f := range tf.files {
		if f == nil {
			continue
		}
		if f.fw != nil {
			f.fw.Close()
		}
		f.f.Close()
		os.Remove(f.temp)
		tf.files[k] = nil
	}
}

// commit finishes the files, writes a journal, renames the files (runs
// last, as the commit point), removes the files of the replaced stems
// and the journal, and caches the new runs file's ids. It returns the
// paths written.
func (tf *tempFiles) commit(a *Archive, l *layout, replaces, ids []string) ([]string, error) {
	if err := tf.close(); err != nil {
		tf.abort()
		return nil, err
	}
	stem := tf.stem
	jpath := filepath.Join(a.dir, journalPrefix+stem+journalExt)
	jtemp := filepath.Join(a.dir, TableRuns, tempPrefix+"txn-"+stem+tempExt)
	jb, _ := json.Marshal(journal{Stem: stem, Replaces: replaces})
	if err := writeTemp(jtemp, func(f *os.File) error { _, err := f.Write(jb); return err }); err != nil {
		tf.abort()
		return nil, err
	}
	if err := fsRename(jtemp, jpath); err != nil {
		os.Remove(jtemp)
		tf.abort()
		return nil, fmt.Errorf("archive: journal: %w", err)
	}
	if err := syncDir(a.dir); err != nil {
		return nil, err
	}
	var files []string
	for _, f := range tf.files {
		if f == nil {
			continue
		}
		if err := fsRename(f.temp, f.final); err != nil {
			// Undo what this transaction renamed; the runs file comes
			// last, so nothing of it is committed yet.
			for _, p := range files {
				os.Remove(p)
			}
			tf.abort()
			os.Remove(jpath)
			return nil, fmt.Errorf("archive: commit: %w", err)
		}
		files = append(files, f.final)
	}
	if err := syncDirs(a.dir); err != nil {
		return nil, err
	}
	if len(replaces) > 0 {
		if err := removeStems(a.dir, l, replaces); err != nil {
			return nil, err
		}
		a.mu.Lock()
		for _, s := range replaces {
			delete(a.ids, l.files[TableRuns][s])
		}
		a.mu.Unlock()
	}
	if err := fsRemove(jpath); err != nil {
		return nil, fmt.Errorf("archive: journal: %w", err)
	}
	if err := syncDirs(a.dir); err != nil {
		return nil, err
	}
	a.mu.Lock()
	a.ids[filepath.Join(a.dir, TableRuns, stem+dataExt)] = ids
	a.mu.Unlock()
	return files, nil
}
