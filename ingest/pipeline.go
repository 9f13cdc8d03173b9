package ingest

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"runtime"
	"slices"
	"sync"
	"time"

	"speedmatrix/archive"
	"speedmatrix/parse"
	"speedmatrix/schema"
)

// StdinName names standard input (the file "-") in messages and in
// source_path.
const StdinName = "<stdin>"

// window is how many parsed documents may wait for the writer, per
// parse worker: enough to keep the workers busy, and a bound on memory.
const window = 4

// Progress is told how far the reading has come: Update after each
// document handed on, Finish once the last was.
type Progress interface {
	Update(done, total int)
	Finish()
}

// Doc is one input file and what became of it: its runs (one for a
// document; an appended result file of several configurations holds
// more), or an error naming the file.
type Doc struct {
	Arg  string // as given
	Name string // for messages: the path, or StdinName
	Runs []*schema.Matrix
	Err  error
	// rows, when set, reads the measurements of Runs' one matrix in
	// pieces (a document of more than parse's streamRows rows).
	rows *parse.Rows
	done chan struct{}
	// queued: the document went to a parse worker (and holds a slot).
	queued bool
}

// Parse reads and parses every file and keeps them all, in the order of
// files; a document that failed has its Err. Standard input ("-") is
// read from opt.Stdin once, however often it appears.
func Parse(ctx context.Context, files []string, opt Options) []*Doc {
	docs := make([]*Doc, 0, len(files))
	p := pipeline{format: opt.Format, prog: opt.Progress, wait: opt.pipeWait()}
	p.run(ctx, files, opt.Stdin, func(d *Doc) error {
		docs = append(docs, d)
		return nil
	})
	return docs
}

// pipeline is how one ordered parallel parse reads its files.
type pipeline struct {
	format string
	// stream reads the measurements into rc's memory (see
	// parse.Recycler) and a large document's rows in pieces.
	stream bool
	rc     *parse.Recycler
	prog   Progress
	// wait bounds the wait for a named pipe's writer and each read of a
	// pipe or device (see openDoc).
	wait time.Duration
}

// run reads and parses every file, one worker per CPU, and hands each
// document to consume in the order of files, as soon as it and those
// before it are parsed. At most window documents per worker are parsed
// ahead of consume, and only those exist: a document consume has seen is
// run's no longer, so memory does not grow with the number of files. The
// first error of consume stops the parsing and is returned. Standard
// input is read once, however often "-" appears.
//
// Note: a document is made when it is queued, not all at the start: at
// 100,000 files the documents made at once (with their channels) were
// 16 MB of the collector's live heap until the end, which it marked
// again at every cycle.
func (p *pipeline) run(ctx context.Context, files []string, stdin io.Reader, consume func(*Doc) error) error {
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
	order := make(chan *Doc, window*workers+1)
	jobs := make(chan *Doc)
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for d := range jobs {
				switch {
				case ctx.Err() != nil:
					d.Err = fmt.Errorf("%s: %w", d.Name, ctx.Err())
				case d.Arg == "-" && stdinErr != nil:
					d.Err = fmt.Errorf("%s: read: %w", d.Name, stdinErr)
				case d.Arg == "-":
					d.Runs, d.rows, d.Err = p.parse(bytes.NewReader(stdinBytes), nil, d.Name)
				default:
					d.Runs, d.rows, d.Err = p.parseFile(ctx, d.Arg)
				}
				close(d.done)
			}
		})
	}
	go feed(ctx, files, slots, order, jobs)
	var err error
	i := 0
	for d := range order {
		<-d.done
		if err == nil {
			if err = consume(d); err != nil {
				cancel()
			}
		}
		if d.queued {
			<-slots
		}
		d.done = nil
		i++
		if p.prog != nil {
			p.prog.Update(i, len(files))
		}
	}
	wg.Wait()
	if p.prog != nil {
		p.prog.Finish()
	}
	return err
}

// feed makes a document of each file in turn, queues it to the workers
// (jobs) once it has one of the slots, and puts it on order; once ctx is
// done, the rest are put on order failed, unparsed.
func feed(ctx context.Context, files []string, slots chan struct{}, order, jobs chan<- *Doc) {
	defer close(order)
	defer close(jobs)
	for _, f := range files {
		d := &Doc{Arg: f, Name: f, done: make(chan struct{})}
		if f == "-" {
			d.Name = StdinName
		}
		select {
		case slots <- struct{}{}:
			d.queued = true
		case <-ctx.Done():
			// Not parsed: say so when consume reaches it.
			d.Err = fmt.Errorf("%s: %w", d.Name, context.Cause(ctx))
			close(d.done)
		}
		order <- d
		if d.queued {
			jobs <- d
		}
	}
}

// parseFile reads and parses the document at path (see openDoc).
func (p *pipeline) parseFile(ctx context.Context, path string) ([]*schema.Matrix, *parse.Rows, error) {
	wait := p.wait
	if wait <= 0 {
		wait = PipeWait
	}
	b, r, err := openDoc(ctx, path, wait)
	if err != nil {
		return nil, nil, err
	}
	if r != nil {
		defer r.Close()
		return p.parse(r, nil, path)
	}
	return p.parse(nil, b, path)
}

// parse parses r, or when r is nil b (which becomes the parser's). Not
// streaming, the whole document is parsed in memory. Streaming, it is
// rc.ParseAllStream (or ParseAllStreamBytes), counting the cells of a
// document read in pieces while it is checked, so that the writer need
// not count them while it holds the run's Parquet pages (27 MB for
// 540,000 rows); the measurements of a document read whole are in rc's
// memory (see parse.Recycler).
func (p *pipeline) parse(r io.Reader, b []byte, name string) ([]*schema.Matrix, *parse.Rows, error) {
	if !p.stream {
		if r == nil {
			r = bytes.NewReader(b)
		}
		ms, err := parse.ParseAll(r, name, p.format)
		return ms, nil, err
	}
	var cells *archive.CellCounter
	see := func(rows []schema.Measurement) {
		if cells == nil {
			cells = archive.NewCellCounter()
		}
		cells.Add(rows)
	}
	var ms []*schema.Matrix
	var rows *parse.Rows
	var err error
	if r != nil {
		ms, rows, err = p.rc.ParseAllStream(r, name, p.format, see)
	} else {
		ms, rows, err = p.rc.ParseAllStreamBytes(b, name, p.format, see)
	}
	if rows != nil && cells != nil {
		n := cells.Count()
		ms[0].Run.Cells = &n
	}
	return ms, rows, err
}
