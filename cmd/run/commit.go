package main

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

	"speedmatrix/archive"
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
func commit(o *options, cpPath string, m *schema.Matrix, stdout io.Writer) error {
	m, err := asDocument(m, o.out)
	if err != nil {
		return fmt.Errorf("%w (the run is kept in %s)", err, cpPath)
	}
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
		a, err := archive.Open(o.archive)
		if err != nil {
			return fmt.Errorf("archive: %w (the run is kept in %s; -resume archives it)", err, cpPath)
		}
		res, err := a.Append(context.Background(), []*schema.Matrix{m})
		if err != nil {
			return fmt.Errorf("archive: %w (the run is kept in %s; -resume archives it)", err, cpPath)
		}
		fmt.Fprintf(stdout, "archived run %s in %s (%s)\n", m.Run.RunID, o.archive, res.Items[0].Outcome)
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
// directory.
func checkpointPath(o *options) string {
	switch {
	case o.out != "":
		return o.out + ".checkpoint.json"
	case o.archive != "":
		return filepath.Join(o.archive, "run.checkpoint.json")
	}
	return "speedmatrix-run.checkpoint.json"
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
