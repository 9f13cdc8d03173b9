package ingest

import (
	"context"
	"io"
	"strings"
	"time"

	"speedmatrix/archive"
	"speedmatrix/internal/hugeheap"
	"speedmatrix/parse"
)

// Options say how Files and Parse read their files.
type Options struct {
	// Format is the documents' format (one of parse.Formats); empty
	// detects it from each document's content.
	Format string
	// Stdin is read for the file "-".
	Stdin io.Reader
	// Reread adds a run whose source the archive holds under other run
	// ids beside them; without it such a run is named (a *RereadError to
	// Warn) and not added.
	Reread bool
	// Progress, when set, is told how many documents were handed on.
	Progress Progress
	// PipeWait bounds the wait for a writer of a named pipe given as a
	// file, and each read of a pipe or device; 0 is PipeWait.
	PipeWait time.Duration
	// Warn, when set, is told each document that failed (an error that
	// names its file, "file:line: message" where the parser knows the
	// line) and each run not added (*RereadError), in the order of the
	// files, as they come.
	Warn func(error)
}

func (o Options) pipeWait() time.Duration {
	if o.PipeWait > 0 {
		return o.PipeWait
	}
	return PipeWait
}

// recycle says whether Files reads the measurements of its documents
// into memory the archive writer gave back (see parse.Recycler).
var recycle = true // a variable so tests can compare

// Files parses the files and streams their runs into one transaction of
// a, in the order of files; the runs are committed and published before
// it returns. The Report holds a line per run for the caller to print
// (and Close). A document that fails is told to opt.Warn and marked in
// the report; the error is the archive's (or ctx's), and then nothing of
// the call is in the archive.
func Files(ctx context.Context, a *archive.Archive, files []string, opt Options) (_ *Report, err error) {
	rep := new(Report)
	if len(files) == 0 {
		return rep, nil
	}
	defer func() {
		if err != nil {
			rep.Close()
		}
	}()
	if len(files) >= hugeHeapFiles {
		hugeheap.Advise() // best effort: without it, only more page faults
	}
	t := &txn{a: a, opt: opt, rep: rep, now: time.Now().UTC().Truncate(time.Microsecond)}
	// t.rc holds the memory of the measurements of the documents parsed
	// and not yet written; the writer gives it back as it writes them.
	if recycle {
		t.rc = new(parse.Recycler)
	}
	defer func() {
		if t.w != nil && err != nil {
			t.w.Abort()
		}
	}()
	p := pipeline{format: opt.Format, stream: true, rc: t.rc, prog: opt.Progress, wait: opt.pipeWait()}
	if err := p.run(ctx, files, opt.Stdin, func(d *Doc) error { return t.add(ctx, d) }); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if t.w != nil {
		if _, err := t.w.Close(); err != nil {
			t.w = nil // Close released the lock and removed its files
			return nil, err
		}
	}
	return rep, nil
}

// txn is what Files holds while documents reach the archive: the writer
// (opened with the first run) and what it read of the archive then.
type txn struct {
	a   *archive.Archive
	opt Options
	rep *Report
	now time.Time // every run's ingested_at
	rc  *parse.Recycler
	w   *archive.Writer
	// bySource holds the archive's run ids by source SHA-256.
	bySource map[string][]string
}

// add hands document d's runs to the writer and its lines to the report.
func (t *txn) add(ctx context.Context, d *Doc) error {
	if d.Err != nil {
		t.warn(d.Err)
		t.rep.Failed = true
		t.rep.lines.appendf("-\t%s\t0 rows\terror\n", d.Name)
		return nil
	}
	for _, m := range d.Runs {
		if t.w == nil {
			if err := t.open(ctx); err != nil {
				return err
			}
		}
		m.Run.IngestedAt = t.now
		n := len(m.Measurements)
		if d.rows != nil {
			n = d.rows.Len()
		}
		if old := readBefore(t.bySource, m); len(old) > 0 && !t.opt.Reread {
			t.warn(&RereadError{Name: d.Name, RunID: m.Run.RunID, Old: old})
			t.rep.lines.appendf("%s\t%s\t%d rows\t%s\n", m.Run.RunID, oneLine(m.Run.Title), n, OutcomeReread)
			t.rc.Release(m)
			continue
		}
		var it archive.Item
		var err error
		if d.rows != nil {
			it, err = t.w.AddRows(m, d.rows.Each)
		} else {
			it, err = t.w.Add(m)
		}
		if err != nil {
			return err
		}
		if it.Outcome == archive.Duplicate {
			t.rc.Release(m) // the writer did not keep it
		}
		t.rep.lines.appendf("%s\t%s\t%d rows\t%s\n", it.RunID, oneLine(m.Run.Title), n, it.Outcome)
	}
	d.Runs, d.rows = nil, nil
	return nil
}

// open starts the archive's transaction.
func (t *txn) open(ctx context.Context) error {
	w, err := t.a.NewWriter(ctx)
	if err != nil {
		return err
	}
	t.w = w
	w.Written = t.rc.Release
	// Note: one narrow read of the runs files per call (the listing
	// compare -list makes: 0.5 s at 100,000 runs), so a source read
	// differently before is never stored twice.
	t.bySource, err = w.RunsBySource()
	return err
}

func (t *txn) warn(err error) {
	if t.opt.Warn != nil {
		t.opt.Warn(err)
	}
}

// oneLine keeps a title from breaking the one-line-per-run report.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}
