package runcmd

// The end of a run: its document written, its rows archived and its
// checkpoint removed, in the order that neither loses nor doubles it.

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"speedmatrix/archive/store"
	"speedmatrix/parse"
	"speedmatrix/render"
	"speedmatrix/runner"
	"speedmatrix/schema"
)

// failpoint is where a test makes the command fail (as if the process
// were killed) between the steps that end a run; nil outside tests.
var failpoint = func(step string) error { return nil }

// commit turns a finished run into its document and its archived rows,
// in the order that can neither lose nor double it: the document is
// written first (atomically), then the run is appended to the archive,
// and only then is the checkpoint removed. A failure at any step keeps
// the checkpoint, and -resume repeats the steps with the same matrix:
// the document is rewritten to the same bytes and the archive reports
// the run it already holds as a duplicate.
//
// A run whose document does not read back (asDocument) is still written
// and archived, as measured, with the reason in its metadata and on
// stderr: a check of the document must never strand measured cells in a
// checkpoint that -resume cannot finish either.
func commit(o *options, cpPath string, m *schema.Matrix, stdout, stderr io.Writer) error {
	d, err := asDocument(m, o.out)
	if err != nil {
		d = asMeasured(m, o.out, err)
		fmt.Fprintf(stderr, "run: warning: %v; the run is written and archived as measured, with this reason in its metadata\n", err)
	}
	m = d
	if o.out != "" {
		if err := writeDocument(o.out, m); err != nil {
			return fmt.Errorf("%w (the run is kept in %s; -resume writes it)", err, cpPath)
		}
		fmt.Fprintf(stdout, "wrote %s\n", o.out)
	}
	if err := failpoint("out"); err != nil {
		return err
	}
	if o.archive != "" {
		// A directory or a shared table (store.Open: an iceberg+ reference),
		// each call bounded in time for a table.
		ctx := context.Background()
		a, err := store.Open(ctx, o.archive, store.Options{Create: true})
		if err != nil {
			return fmt.Errorf("archive: %w (the run is kept in %s; -resume archives it)", err, cpPath)
		}
		defer a.Close()
		res, err := a.Append(ctx, []*schema.Matrix{m})
		if err != nil {
			return fmt.Errorf("archive: %w (the run is kept in %s; -resume archives it)", err, cpPath)
		}
		fmt.Fprintf(stdout, "archived run %s in %s (%s)\n", m.Run.RunID, a, res.Items[0].Outcome)
	}
	if err := failpoint("archive"); err != nil {
		return err
	}
	if o.out == "" {
		// No document asked for: the figures a person wants, readable.
		if err := render.Summary(stdout, m); err != nil {
			return err
		}
	}
	if err := os.Remove(cpPath); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("the run is written, but its checkpoint stays: %w", err)
	}
	// A run none of whose cells produced a figure is written and archived
	// all the same (it says what failed), then fails, so that the exit
	// status tells the truth (noFigure).
	return noFigure(m)
}

// asDocument returns the matrix as its document reads back: m rendered as
// text and parsed again, with m's per-request samples attached. The
// archive stores that form, so ingesting the run's document later (in any
// of its forms) yields exactly the archived rows and the same run id, and
// is reported as a duplicate. Parsing the rendered document also checks
// it: a run whose document would not read back is not archived.
//
// Note: render prints every figure with the digits it needs to read back
// exactly, so nothing measured is lost on the way.
func asDocument(m *schema.Matrix, out string) (*schema.Matrix, error) {
	var b bytes.Buffer
	if err := render.Text(&b, m); err != nil {
		return nil, err
	}
	name := out
	if name == "" {
		name = "run.txt"
	}
	d, err := parse.ParseBytes(b.Bytes(), name, schema.FormatText)
	if err != nil {
		return nil, fmt.Errorf("the run's document does not read back: %w", err)
	}
	d.Run.SourceFormat = schema.FormatRun
	d.Run.SourcePath = out
	d.Samples = m.Samples
	for i := range d.Samples {
		d.Samples[i].RunID = d.Run.RunID
	}
	return d, nil
}

// NoteNotReadBack is the Run metadata key saying that a run's document
// did not read back when it was written, and why.
const NoteNotReadBack = "Document not read back"

// asMeasured returns m as measured, for a run whose document does not
// read back (err): the reason in its metadata and its ids computed again
// with it, so that the archive keeps every cell and says why the document
// may not ingest to the same rows.
func asMeasured(m *schema.Matrix, out string, err error) *schema.Matrix {
	m.Run.Metadata = append(m.Run.Metadata, schema.Field{Section: "Run", Key: NoteNotReadBack,
		Value: err.Error() + "; written and archived as measured"})
	m.Run.SourcePath = out
	m.Run.RunID = schema.ComputeRunID(&schema.Matrix{Run: m.Run, Measurements: m.Measurements})
	for i := range m.Measurements {
		m.Measurements[i].RunID = m.Run.RunID
	}
	for i := range m.Samples {
		m.Samples[i].RunID = m.Run.RunID
	}
	return m
}

// writeDocument renders m by the file's extension, atomically.
func writeDocument(path string, m *schema.Matrix) error {
	w, err := render.ByExtension(path)
	if err != nil {
		return err
	}
	var b bytes.Buffer
	if err := w(&b, m); err != nil {
		return err
	}
	return runner.WriteAtomic(path, b.Bytes(), 0o644)
}

// checkpointPath is beside -out, else in -archive, else in the current
// directory. Without -out a checkpoint is named after the run's settings
// (its key): several runs may append to one archive or start in one
// directory, and each keeps its own. With -out it is the document's: two
// runs writing one document cannot both go on (checkpointFree).
func checkpointPath(o *options, key string) string {
	switch {
	case o.out != "":
		return o.out + ".checkpoint.json"
	case o.archive != "" && !store.IsTable(o.archive):
		return filepath.Join(o.archive, "run-"+key+".checkpoint.json")
	}
	return "speedmatrix-run-" + key + ".checkpoint.json"
}

// checkpointFree refuses to start a run (without -resume) where a
// checkpoint is kept: it holds measured cells, of this run interrupted or
// of another, that starting over would overwrite and then delete.
func checkpointFree(path, key string) error {
	cp, err := runner.LoadCheckpoint(path)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return nil
	case err != nil:
		return fmt.Errorf("%s is in the way of this run's checkpoint and does not read as one (%v): move or delete it", path, err)
	}
	state := fmt.Sprintf("%d finished cells of an interrupted run", len(cp.Matrix.Measurements))
	if cp.Complete {
		state = fmt.Sprintf("a finished run of %d cells not yet written", len(cp.Matrix.Measurements))
	}
	if cp.Key == key {
		return fmt.Errorf("%s holds %s with these settings: continue it with the same flags and -resume, or delete the file to start again", path, state)
	}
	return fmt.Errorf("%s holds %s of another run (other settings): continue that run with its own flags and -resume, delete the file to discard it, or give this run another -out", path, state)
}

// writable checks, before any load, that what the run will write can be
// written: the document (-out), the archive directory (-archive) and the
// checkpoint's directory. A file created and removed in each directory
// proves it (a read-only file system or a file where a directory goes
// fails), so that no measured cell is lost to a path found wrong at the
// end.
func writable(o *options, cpPath string) error {
	if o.out != "" {
		if st, err := os.Stat(o.out); err == nil && st.IsDir() {
			return fmt.Errorf("-out %s is a directory: name the document's file", o.out)
		}
		if err := tryWrite(filepath.Dir(o.out)); err != nil {
			return fmt.Errorf("-out %s cannot be written: %w", o.out, err)
		}
	}
	if o.archive != "" && !store.IsTable(o.archive) {
		if st, err := os.Stat(o.archive); err == nil && !st.IsDir() {
			return fmt.Errorf("-archive %s is a file: name an archive directory (created when missing)", o.archive)
		}
		if err := tryWrite(o.archive); err != nil {
			return fmt.Errorf("-archive %s cannot be written: %w", o.archive, err)
		}
	}
	if err := tryWrite(filepath.Dir(cpPath)); err != nil {
		return fmt.Errorf("the checkpoint %s cannot be written: %w", cpPath, err)
	}
	return nil
}

// tryWrite creates dir when missing, then creates and removes a file in
// it.
func tryWrite(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, ".speedmatrix-write-check*")
	if err != nil {
		return err
	}
	name := f.Name()
	err = f.Close()
	if rerr := os.Remove(name); err == nil {
		err = rerr
	}
	return err
}

// checkpointKey identifies a run's settings (never the API key).
func checkpointKey(o *options) string {
	url := o.url
	if o.simulate != "" {
		url = "simulate:" + o.simulate // the simulator's port changes
	}
	parts := []string{url, o.model, o.contexts, o.concurrency, o.prefillContexts, o.duration.String(),
		fmt.Sprint(o.maxTokens), o.endpoint, o.prefill}
	if o.serve.rates != "" {
		parts = append(parts, o.serve.key()...)
	}
	s := strings.Join(parts, "\x00")
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:8])
}
