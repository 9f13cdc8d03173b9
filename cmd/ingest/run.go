package ingestcmd

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"

	"speedmatrix/archive"
	"speedmatrix/archive/store"
	"speedmatrix/ingest"
	"speedmatrix/internal/archivepath"
	"speedmatrix/internal/cliflag"
	"speedmatrix/parse"
	"speedmatrix/schema"
)

// Exit statuses.
const (
	exitOK    = 0
	exitFail  = 1 // some documents (or the archive) failed
	exitUsage = 2
)

func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	defer ingest.TuneMemory()()
	fs := flag.NewFlagSet("ingest", flag.ContinueOnError)
	fs.SetOutput(stderr)
	dir := fs.String("archive", "", "archive `directory` (default $"+archivepath.EnvVar+", else ./archive; created when missing, never its parent)")
	format := fs.String("format", "", "document `format`: "+strings.Join(parse.Formats, ", ")+" (default: detect from content)")
	asJSON := fs.Bool("json", false, "print the parsed documents as a JSON array instead of writing them")
	compact := fs.Bool("compact", false, "merge the archive's files into one per table afterwards")
	lockTimeout := fs.Duration("lock-timeout", 0, archive.LockTimeoutUsage)
	check := fs.Bool("check", false, "read every file of the archive and report each damaged or foreign one (exit 1 when any)")
	moveDamaged := fs.Bool("move-damaged", false, "with -check: move the batches holding damaged files to DIR/damaged/")
	filesFrom := fs.String("files-from", "", "read more FILE names from this `file`, one per line (for more files than a command line holds)")
	skipDamaged := fs.Bool("skip-damaged", false, "go on without the batches holding a damaged or foreign file, naming each on stderr")
	drop := fs.String("drop", "", "remove the runs with these `ids` (comma-separated) from the archive, with their measurements and samples, and print a line for each")
	shared := addSharedFlags(fs)
	reread := fs.Bool("reread", false, "add a run read from a source the archive holds under other run ids (an earlier speedmatrix read it differently) beside the old ones; by default it is named and not added")
	if err := cliflag.Parse(fs, args, help, stdout); err != nil {
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
		more, err := ingest.ReadList(ctx, *filesFrom, 0)
		if err != nil {
			fmt.Fprintln(stderr, "ingest: -files-from:", err)
			return exitUsage
		}
		files = append(files, more...)
	}
	if shared.wanted() {
		return shared.run(ctx, archivepath.Resolve(*dir).Path, len(files) > 0 || *compact || *asJSON || *check || *drop != "", stdout, stderr)
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
		docs := ingest.Parse(ctx, files, ingest.Options{Format: *format, Stdin: stdin, Progress: newProgress(stderr)})
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

	// A table reference (-archive or $SPEEDMATRIX_ARCHIVE) goes to the
	// shared table; anything else is a directory archive.
	if ref := archivepath.Resolve(*dir).Path; store.IsTable(ref) {
		*dir = ref
		return ingestTable(ctx, *dir, files, tableOptions{check: *check, compact: *compact, skipDamaged: *skipDamaged,
			moveDamaged: *moveDamaged, drop: *drop, opt: ingest.Options{Format: *format, Stdin: stdin, Reread: *reread,
				Progress: newProgress(stderr), Warn: func(err error) { warn(stderr, err) }}}, stdout, stderr)
	}
	a, err := openArchive(dir, *check || *drop != "", stderr)
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
		return dropRuns(ctx, store.Wrap(a), ids, stdout, stderr)
	}
	pl := newProgress(stderr)
	rep, err := ingest.Files(ctx, a, files, ingest.Options{
		Format: *format, Stdin: stdin, Reread: *reread, Progress: pl,
		Warn: func(err error) { pl.Clear(); warn(stderr, err) },
	})
	if err == nil {
		_, err = rep.WriteTo(stdout)
		rep.Close()
	}
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
	return exitCode(rep.Failed)
}

// warn prints what ingest.Files says of a document that failed or a run
// it did not add, with what the flags can do about the latter.
func warn(stderr io.Writer, err error) {
	var re *ingest.RereadError
	if errors.As(err, &re) {
		fmt.Fprintf(stderr, "%v (-reread adds it beside; -drop %s then removes the old reading)\n", err, strings.Join(re.Old, ","))
		return
	}
	fmt.Fprintln(stderr, err)
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
func report(stderr io.Writer, docs []*ingest.Doc) bool {
	failed := false
	for _, d := range docs {
		if d.Err != nil {
			failed = true
			fmt.Fprintln(stderr, d.Err)
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

// writeJSON prints the parsed matrices as one JSON array.
func writeJSON(stdout, stderr io.Writer, docs []*ingest.Doc) error {
	out := []*schema.Matrix{}
	for _, d := range docs {
		for _, m := range d.Runs {
			out = append(out, jsonSafe(m, func(field string, v float64) {
				fmt.Fprintf(stderr, "%s: %s is %v, which JSON cannot hold: written as null\n", d.Name, field, v)
			}))
		}
	}
	enc := json.NewEncoder(stdout)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}
