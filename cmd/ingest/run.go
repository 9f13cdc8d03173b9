package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"time"

	"golang.org/x/term"

	"speedmatrix/archive"
	"speedmatrix/parse"
	"speedmatrix/schema"
)

// Exit statuses.
const (
	exitOK    = 0
	exitFail  = 1 // some documents (or the archive) failed
	exitUsage = 2
)

// stdinName names standard input in messages and in source_path.
const stdinName = "<stdin>"

// doc is one FILE argument and what became of it: its runs (one for a
// document; an appended result file of several configurations holds
// more), or an error.
type doc struct {
	arg  string // as given
	name string // for messages: the path, or stdinName
	ms   []*schema.Matrix
	err  error
}

// gcPercent is the garbage collector's target while ingest runs, unless
// GOGC is set. A batch allocates parsed documents that all stay live
// until Append has written them, then Arrow builders and Parquet pages:
// at the default 100 the collector runs many cycles over that growing
// live heap (about a sixth of the CPU time of a 1,000-document call).
// 400 lets the heap grow to five times the live data between cycles,
// trading memory (tens of MB for 1,000 documents) for CPU.
const gcPercent = 400

func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if _, set := os.LookupEnv("GOGC"); !set {
		defer debug.SetGCPercent(debug.SetGCPercent(gcPercent))
	}
	fs := flag.NewFlagSet("ingest", flag.ContinueOnError)
	fs.SetOutput(stderr)
	dir := fs.String("archive", "archive", "archive `directory` (created when missing)")
	format := fs.String("format", "", "document `format`: "+strings.Join(parse.Formats, ", ")+" (default: detect from content)")
	asJSON := fs.Bool("json", false, "print the parsed documents as a JSON array instead of writing them")
	compact := fs.Bool("compact", false, "merge the archive's files into one per table afterwards")
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: ingest [-archive DIR] [-format %s] [-json] [-compact] FILE...\n", strings.Join(parse.Formats, "|"))
		fmt.Fprintln(stderr, "FILE - reads standard input. One line per run on stdout (a file of several configurations holds several): run_id, title, rows, added|duplicate|error.")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		return exitUsage
	}
	if *format != "" && !slices.Contains(parse.Formats, *format) {
		fmt.Fprintf(stderr, "ingest: -format %q: want one of %s\n", *format, strings.Join(parse.Formats, ", "))
		return exitUsage
	}
	files := fs.Args()
	if len(files) == 0 && !*compact {
		fs.Usage()
		return exitUsage
	}
	if *asJSON && *compact {
		fmt.Fprintln(stderr, "ingest: -json writes nothing; it does not combine with -compact")
		return exitUsage
	}

	docs := parseAll(ctx, files, *format, stdin, newProgress(stderr))
	failed := false
	for _, d := range docs {
		if d.err != nil {
			failed = true
			fmt.Fprintln(stderr, d.err)
		}
	}
	if err := ctx.Err(); err != nil {
		fmt.Fprintln(stderr, "ingest:", err)
		return exitFail
	}
	if *asJSON {
		if err := writeJSON(stdout, stderr, docs); err != nil {
			fmt.Fprintln(stderr, "ingest:", err)
			return exitFail
		}
		return exitCode(failed)
	}

	a, err := archive.Open(*dir)
	if err != nil {
		fmt.Fprintln(stderr, "ingest:", err)
		return exitFail
	}
	var good []*schema.Matrix
	now := time.Now().UTC().Truncate(time.Microsecond)
	for _, d := range docs {
		for _, m := range d.ms {
			m.Run.IngestedAt = now
			good = append(good, m)
		}
	}
	var res archive.Result
	if len(good) > 0 {
		res, err = a.Append(ctx, good)
		if err != nil {
			fmt.Fprintln(stderr, "ingest:", err)
			return exitFail
		}
	}
	k := 0
	for _, d := range docs {
		if d.err != nil {
			fmt.Fprintf(stdout, "-\t%s\t0 rows\terror\n", d.name)
			continue
		}
		for _, m := range d.ms {
			it := res.Items[k]
			k++
			fmt.Fprintf(stdout, "%s\t%s\t%d rows\t%s\n", it.RunID, oneLine(m.Run.Title), len(m.Measurements), it.Outcome)
		}
	}
	if *compact {
		if err := a.Compact(ctx); err != nil {
			fmt.Fprintln(stderr, "ingest: compact:", err)
			return exitFail
		}
	}
	return exitCode(failed)
}

func exitCode(failed bool) int {
	if failed {
		return exitFail
	}
	return exitOK
}

// oneLine keeps a title from breaking the one-line-per-document output.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// parseAll reads and parses every FILE, one worker per CPU, keeping the
// order of files. Standard input is read once, however often "-" appears.
func parseAll(ctx context.Context, files []string, format string, stdin io.Reader, prog *progress) []*doc {
	docs := make([]*doc, len(files))
	var stdinBytes []byte
	var stdinErr error
	for i, f := range files {
		docs[i] = &doc{arg: f, name: f}
		if f == "-" {
			docs[i].name = stdinName
			if stdinBytes == nil && stdinErr == nil {
				stdinBytes, stdinErr = io.ReadAll(io.LimitReader(stdin, parse.MaxDocumentBytes+1))
				if stdinBytes == nil {
					stdinBytes = []byte{}
				}
			}
		}
	}
	jobs := make(chan *doc)
	var wg sync.WaitGroup
	var mu sync.Mutex
	done := 0
	for w := 0; w < runtime.GOMAXPROCS(0); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for d := range jobs {
				switch {
				case ctx.Err() != nil:
					d.err = fmt.Errorf("%s: %w", d.name, ctx.Err())
				case d.arg == "-" && stdinErr != nil:
					d.err = fmt.Errorf("%s: read: %w", d.name, stdinErr)
				case d.arg == "-":
					d.ms, d.err = parse.ParseAll(bytes.NewReader(stdinBytes), d.name, format)
				default:
					d.ms, d.err = parseFile(d.arg, format)
				}
				mu.Lock()
				done++
				prog.update(done, len(docs))
				mu.Unlock()
			}
		}()
	}
	for _, d := range docs {
		jobs <- d
	}
	close(jobs)
	wg.Wait()
	prog.finish()
	return docs
}

func parseFile(path, format string) ([]*schema.Matrix, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err // *PathError reads "open FILE: reason"
	}
	defer f.Close()
	return parse.ParseAll(f, path, format)
}

// progress shows "parsed i/n" on stderr when it is a terminal, and
// nothing otherwise (machine output goes to stdout).
type progress struct {
	w    io.Writer
	last time.Time
	on   bool
}

func newProgress(stderr io.Writer) *progress {
	f, ok := stderr.(*os.File)
	return &progress{w: stderr, on: ok && term.IsTerminal(int(f.Fd()))}
}

func (p *progress) update(done, total int) {
	if !p.on || (done < total && time.Since(p.last) < 100*time.Millisecond) {
		return
	}
	p.last = time.Now()
	fmt.Fprintf(p.w, "\rparsed %d/%d", done, total)
}

func (p *progress) finish() {
	if p.on && !p.last.IsZero() {
		fmt.Fprint(p.w, "\r\033[K")
	}
}

// writeJSON prints the parsed matrices as one JSON array.
func writeJSON(stdout, stderr io.Writer, docs []*doc) error {
	out := []*schema.Matrix{}
	for _, d := range docs {
		for _, m := range d.ms {
			out = append(out, jsonSafe(m, func(field string, v float64) {
				fmt.Fprintf(stderr, "%s: %s is %v, which JSON cannot hold: written as null\n", d.name, field, v)
			}))
		}
	}
	enc := json.NewEncoder(stdout)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}
