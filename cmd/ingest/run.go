package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"
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
	// rows, when set, reads the measurements of ms's one matrix in
	// pieces (a document of more than parse's streamRows rows).
	rows *parse.Rows
	err  error
	done chan struct{}
	// queued: the document went to a parse worker (and holds a slot).
	queued bool
}

// gcPercent is the garbage collector's target while ingest runs, unless
// GOGC is set. Parsing allocates much short-lived garbage and little
// that lives (a window of parsed documents and one batch of rows): 400
// quarters the collector's work against the default, and memLimit bounds
// the heap it lets grow.
//
// Note: against 200, 400 took 10% less CPU for 1,000 documents (0.98 →
// 0.89 ms each, 8 interleaved runs) for 10 MB more peak RSS; at 10,000
// the soft limit governs and both give 155 MB.
const gcPercent = 400

// memLimit is the heap size at which the collector works harder, unless
// GOMEMLIMIT is set: a soft bound that keeps the peak RSS of a long
// ingest flat (the live data is one window of documents and one batch of
// rows, tens of MB), where the heap would otherwise grow to gcPercent
// above each peak and the runtime return it to the system only slowly.
const memLimit = 128 << 20

// recycle says whether ingest reads the measurements of its documents
// into memory the archive writer gave back (see parse.Recycler).
var recycle = true // a variable so tests can compare

// window is how many parsed documents may wait for the writer, per
// parse worker: enough to keep the workers busy, and a bound on memory.
const window = 4

func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if _, set := os.LookupEnv("GOGC"); !set {
		defer debug.SetGCPercent(debug.SetGCPercent(gcPercent))
	}
	if _, set := os.LookupEnv("GOMEMLIMIT"); !set {
		defer debug.SetMemoryLimit(debug.SetMemoryLimit(memLimit))
		ownLimit.Store(true)
		defer ownLimit.Store(false)
	}
	fs := flag.NewFlagSet("ingest", flag.ContinueOnError)
	fs.SetOutput(stderr)
	dir := fs.String("archive", "archive", "archive `directory` (created when missing)")
	format := fs.String("format", "", "document `format`: "+strings.Join(parse.Formats, ", ")+" (default: detect from content)")
	asJSON := fs.Bool("json", false, "print the parsed documents as a JSON array instead of writing them")
	compact := fs.Bool("compact", false, "merge the archive's files into one per table afterwards")
	lockTimeout := fs.Duration("lock-timeout", 0, archive.LockTimeoutUsage)
	check := fs.Bool("check", false, "read every file of the archive and report each damaged or foreign one (exit 1 when any)")
	moveDamaged := fs.Bool("move-damaged", false, "with -check: move the batches holding damaged files to DIR/damaged/")
	filesFrom := fs.String("files-from", "", "read more FILE names from this `file`, one per line (for more files than a command line holds)")
	skipDamaged := fs.Bool("skip-damaged", false, "go on without the batches holding a damaged or foreign file, naming each on stderr")
	drop := fs.String("drop", "", "remove the runs with these `ids` (comma-separated) from the archive, with their measurements and samples, and print a line for each")
	reread := fs.Bool("reread", false, "add a run read from a source the archive holds under other run ids (an earlier speedmatrix read it differently) beside the old ones; by default it is named and not added")
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: ingest [-archive DIR] [-format %s] [-json] [-compact] [-lock-timeout D] [-skip-damaged] [-reread] [-files-from LIST] FILE...\n", strings.Join(parse.Formats, "|"))
		fmt.Fprintln(stderr, "       ingest [-archive DIR] -check [-move-damaged]")
		fmt.Fprintln(stderr, "       ingest [-archive DIR] -drop RUN_ID[,RUN_ID…]")
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
	if *filesFrom != "" {
		more, err := readList(*filesFrom)
		if err != nil {
			fmt.Fprintln(stderr, "ingest: -files-from:", err)
			return exitUsage
		}
		files = append(files, more...)
	}
	switch {
	case *check && (len(files) > 0 || *compact || *asJSON || *skipDamaged):
		fmt.Fprintln(stderr, "ingest: -check reads the archive only: no FILEs, -compact, -json or -skip-damaged")
		return exitUsage
	case *drop != "" && (len(files) > 0 || *compact || *asJSON || *check):
		fmt.Fprintln(stderr, "ingest: -drop changes the archive alone: no FILEs, -compact, -json or -check")
		return exitUsage
	case *moveDamaged && !*check:
		fmt.Fprintln(stderr, "ingest: -move-damaged goes with -check")
		return exitUsage
	case len(files) == 0 && !*compact && !*check && *drop == "":
		fs.Usage()
		return exitUsage
	case *asJSON && *compact:
		fmt.Fprintln(stderr, "ingest: -json writes nothing; it does not combine with -compact")
		return exitUsage
	}

	if *asJSON {
		docs := parseAll(ctx, files, *format, stdin, newProgress(stderr))
		failed := report(stderr, docs)
		if err := ctx.Err(); err != nil {
			fmt.Fprintln(stderr, "ingest:", err)
			return exitFail
		}
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
	a.LockTimeout = *lockTimeout
	a.NoticeLockWait(stderr, "ingest")
	a.SkipDamaged = *skipDamaged
	a.OnDamaged = func(d archive.Damage) {
		fmt.Fprintf(stderr, "ingest: skipping batch %s: %s: %v\n", d.Stem, d.Path, d.Err)
	}
	if *check {
		return checkArchive(ctx, a, *moveDamaged, stdout, stderr)
	}
	if *drop != "" {
		ids, err := dropIDs(*drop)
		if err != nil {
			fmt.Fprintln(stderr, "ingest:", err)
			return exitUsage
		}
		return dropRuns(ctx, a, ids, stdout, stderr)
	}
	if len(files) >= hugeHeapFiles {
		adviseHugeHeap() // best effort: without it, only more page faults
	}
	failed, err := ingestFiles(ctx, a, files, *format, *reread, stdin, stdout, stderr)
	if err != nil {
		fmt.Fprintln(stderr, "ingest:", explain(err, *dir))
		return exitFail
	}
	if *compact {
		if err := a.Compact(ctx); err != nil {
			fmt.Fprintln(stderr, "ingest: compact:", explain(err, *dir))
			return exitFail
		}
	}
	return exitCode(failed)
}

// ingestFiles parses the files and streams their runs into one archive
// transaction, then prints a line per run. It reports whether a
// document failed; the error is the archive's.
func ingestFiles(ctx context.Context, a *archive.Archive, files []string, format string, reread bool,
	stdin io.Reader, stdout, stderr io.Writer) (failed bool, err error) {
	if len(files) == 0 {
		return false, nil
	}
	now := time.Now().UTC().Truncate(time.Microsecond)
	var w *archive.Writer
	var bySource map[string][]string
	// out is the report, a line per run, printed once the runs are
	// committed.
	//
	// Note: one buffer, not a slice of lines, holds nothing the collector
	// marks: at 100,000 documents the lines were 6 MB of strings.
	var out runLines
	defer out.close()
	defer func() {
		if w != nil && err != nil {
			w.Abort()
		}
	}()
	// rc holds the memory of the measurements of the documents parsed and
	// not yet written; the writer gives it back as it writes them.
	var rc *parse.Recycler
	if recycle {
		rc = new(parse.Recycler)
	}
	parseStream(ctx, files, format, true, rc, stdin, newProgress(stderr), func(d *doc) error {
		if d.err != nil {
			fmt.Fprintln(stderr, d.err)
			failed = true
			out.appendf("-\t%s\t0 rows\terror\n", d.name)
			return nil
		}
		for _, m := range d.ms {
			if w == nil {
				if w, err = a.NewWriter(ctx); err != nil {
					return err
				}
				w.Written = rc.Release
				// Note: one narrow read of the runs files per call (the
				// listing compare -list makes: 0.5 s at 100,000 runs), so a
				// source read differently before is never stored twice.
				if bySource, err = w.RunsBySource(); err != nil {
					return err
				}
			}
			m.Run.IngestedAt = now
			var it archive.Item
			n := len(m.Measurements)
			if d.rows != nil {
				n = d.rows.Len()
			}
			if old := readBefore(bySource, m); len(old) > 0 && !reread {
				fmt.Fprintf(stderr, "%s: run %s: the archive holds this source as run %s, read differently by an earlier speedmatrix; not added (-reread adds it beside; -drop %s then removes the old reading)\n",
					d.name, m.Run.RunID, strings.Join(old, ", "), strings.Join(old, ","))
				out.appendf("%s\t%s\t%d rows\t%s\n", m.Run.RunID, oneLine(m.Run.Title), n, outcomeReread)
				rc.Release(m)
				continue
			}
			if d.rows != nil {
				it, err = w.AddRows(m, d.rows.Each)
			} else {
				it, err = w.Add(m)
			}
			if err != nil {
				return err
			}
			if it.Outcome == archive.Duplicate {
				rc.Release(m) // the writer did not keep it
			}
			out.appendf("%s\t%s\t%d rows\t%s\n", it.RunID, oneLine(m.Run.Title), n, it.Outcome)
		}
		d.ms, d.rows = nil, nil
		return nil
	}, &err)
	if err != nil {
		return false, err
	}
	if err := ctx.Err(); err != nil {
		return false, err
	}
	if w != nil {
		if _, err = w.Close(); err != nil {
			w = nil // Close released the lock and removed its files
			return false, err
		}
	}
	if err := out.writeTo(stdout); err != nil {
		return false, err
	}
	return failed, nil
}

// readList reads file names, one per line; blank lines are skipped.
func readList(path string) ([]string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, l := range strings.Split(string(b), "\n") {
		if l = strings.TrimSuffix(l, "\r"); l != "" {
			out = append(out, l)
		}
	}
	return out, nil
}

// explain adds what to do to an error naming a damaged file.
func explain(err error, dir string) string {
	var de *archive.DamagedError
	if errors.As(err, &de) {
		return fmt.Sprintf("%v\n(ingest -archive %s -check lists every damaged file and -move-damaged moves them aside; -skip-damaged goes on without them)", err, dir)
	}
	return err.Error()
}

// checkArchive runs -check (and -move-damaged).
func checkArchive(ctx context.Context, a *archive.Archive, move bool, stdout, stderr io.Writer) int {
	ds, err := a.Check(ctx)
	if err != nil {
		fmt.Fprintln(stderr, "ingest: check:", err)
		return exitFail
	}
	var stems []string
	for _, d := range ds {
		fmt.Fprintf(stdout, "damaged\t%s\t%s\t%v\n", d.Stem, d.Path, d.Err)
		if !slices.Contains(stems, d.Stem) {
			stems = append(stems, d.Stem)
		}
	}
	if len(ds) == 0 {
		fmt.Fprintln(stderr, "ingest: check: every file of", a.Dir(), "reads")
		return exitOK
	}
	if !move {
		fmt.Fprintf(stderr, "ingest: check: %d damaged file(s); -move-damaged moves their batches to %s\n", len(ds), filepath.Join(a.Dir(), "damaged"))
		return exitFail
	}
	moved, err := a.MoveAside(ctx, stems)
	for _, p := range moved {
		fmt.Fprintf(stdout, "moved\t%s\n", p)
	}
	if err != nil {
		fmt.Fprintln(stderr, "ingest: move:", err)
	}
	return exitFail
}

// report prints the documents' errors and says whether there was one.
func report(stderr io.Writer, docs []*doc) bool {
	failed := false
	for _, d := range docs {
		if d.err != nil {
			failed = true
			fmt.Fprintln(stderr, d.err)
		}
	}
	return failed
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
