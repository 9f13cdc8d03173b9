package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"runtime"
	"slices"
	"sync"

	"speedmatrix/archive"
	"speedmatrix/parse"
	"speedmatrix/schema"
)

// Reading and parsing the input files: one worker per CPU, documents
// handed on in the order of the files, a bounded number ahead.

// parseAll reads and parses every FILE and keeps them all (for -json).
func parseAll(ctx context.Context, files []string, format string, stdin io.Reader, prog *progress) []*doc {
	var err error
	docs := make([]*doc, 0, len(files))
	parseStream(ctx, files, format, false, nil, stdin, prog, func(d *doc) error {
		docs = append(docs, d)
		return nil
	}, &err)
	return docs
}

// parseStream reads and parses every FILE, one worker per CPU, and hands
// each document to consume in the order of files, as soon as it and those
// before it are parsed. At most window documents per worker are parsed
// ahead of consume, and only those exist: a document consume has seen is
// parseStream's no longer, so memory does not grow with the number of
// files. The first error of consume stops the parsing and is stored in
// *errp. Standard input is read once, however often "-" appears. With
// stream set, the measurements are read into rc's memory (see
// parse.Recycler), which consume gives back.
//
// Note: a document is made when it is queued, not all at the start: at
// 100,000 files the documents made at once (with their channels) were
// 16 MB of the collector's live heap until the end, which it marked
// again at every cycle.
func parseStream(ctx context.Context, files []string, format string, stream bool, rc *parse.Recycler, stdin io.Reader, prog *progress,
	consume func(*doc) error, errp *error) {
	var stdinBytes []byte
	var stdinErr error
	if slices.Contains(files, "-") {
		stdinBytes, stdinErr = io.ReadAll(io.LimitReader(stdin, parse.MaxDocumentBytes+1))
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	workers := runtime.GOMAXPROCS(0)
	slots := make(chan struct{}, window*workers)
	// order holds the documents in the order of files, each queued to a
	// worker or failed, for consume; as many as hold a slot, and one more
	// that waits for the feeder's next slot.
	order := make(chan *doc, window*workers+1)
	jobs := make(chan *doc)
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for d := range jobs {
				switch {
				case ctx.Err() != nil:
					d.err = fmt.Errorf("%s: %w", d.name, ctx.Err())
				case d.arg == "-" && stdinErr != nil:
					d.err = fmt.Errorf("%s: read: %w", d.name, stdinErr)
				case d.arg == "-" && stream:
					d.ms, d.rows, d.err = parseStreamed(bytes.NewReader(stdinBytes), nil, d.name, format, rc)
				case d.arg == "-":
					d.ms, d.err = parse.ParseAll(bytes.NewReader(stdinBytes), d.name, format)
				default:
					d.ms, d.rows, d.err = parseFile(d.arg, format, stream, rc)
				}
				close(d.done)
			}
		}()
	}
	go func() {
		defer close(order)
		defer close(jobs)
		for _, f := range files {
			d := &doc{arg: f, name: f, done: make(chan struct{})}
			if f == "-" {
				d.name = stdinName
			}
			select {
			case slots <- struct{}{}:
				d.queued = true
			case <-ctx.Done():
				// Not parsed: say so when consume reaches it.
				d.err = fmt.Errorf("%s: %w", d.name, context.Cause(ctx))
				close(d.done)
			}
			order <- d
			if d.queued {
				jobs <- d
			}
		}
	}()
	i := 0
	for d := range order {
		<-d.done
		if *errp == nil {
			if err := consume(d); err != nil {
				*errp = err
				cancel()
			}
		}
		if d.queued {
			<-slots
		}
		d.done = nil
		i++
		prog.update(i, len(files))
	}
	wg.Wait()
	prog.finish()
}

// parseFile reads and parses the document at path (see readDoc), with
// stream into rc's memory (see parseStreamed).
func parseFile(path, format string, stream bool, rc *parse.Recycler) ([]*schema.Matrix, *parse.Rows, error) {
	b, f, err := readDoc(path)
	if err != nil {
		return nil, nil, err
	}
	if f != nil {
		defer f.Close()
		if stream {
			return parseStreamed(f, nil, path, format, rc)
		}
		ms, err := parse.ParseAll(f, path, format)
		return ms, nil, err
	}
	if stream {
		return parseStreamed(nil, b, path, format, rc)
	}
	// -json: the whole document in memory, read again from b.
	ms, err := parse.ParseAll(bytes.NewReader(b), path, format)
	return ms, nil, err
}

// parseStreamed is rc.ParseAllStream of r, or when r is nil
// rc.ParseAllStreamBytes of b (which becomes the parser's), that
// counts the cells of a document read in pieces while it is checked, so
// that the writer need not count them while it holds the run's Parquet
// pages (27 MB for 540,000 rows). The measurements of a document read
// whole are in rc's memory (see parse.Recycler).
func parseStreamed(r io.Reader, b []byte, name, format string, rc *parse.Recycler) ([]*schema.Matrix, *parse.Rows, error) {
	var cells *archive.CellCounter
	see := func(p []schema.Measurement) {
		if cells == nil {
			cells = archive.NewCellCounter()
		}
		cells.Add(p)
	}
	var ms []*schema.Matrix
	var rows *parse.Rows
	var err error
	if r != nil {
		ms, rows, err = rc.ParseAllStream(r, name, format, see)
	} else {
		ms, rows, err = rc.ParseAllStreamBytes(b, name, format, see)
	}
	if rows != nil && cells != nil {
		n := cells.Count()
		ms[0].Run.Cells = &n
	}
	return ms, rows, err
}
