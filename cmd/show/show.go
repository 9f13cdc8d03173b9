package showcmd

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"speedmatrix/internal/cliflag"
	"strings"

	"speedmatrix/analysis"
	"speedmatrix/archive/store"
	"speedmatrix/internal/archivepath"
	"speedmatrix/parse"
	"speedmatrix/redact"
	"speedmatrix/report"
	"speedmatrix/schema"
)

// Exit statuses.
const (
	exitOK    = 0
	exitFail  = 1
	exitUsage = 2
)

// options are the parsed flags.
type options struct {
	archive string
	format  report.Format
	run     string
}

// errUsage is a bad command line, already reported.
var errUsage = errors.New("usage")

// Main runs `show` with args (the words after "show") and returns its
// exit status.
func Main(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	// Note: what show prints passes the redactor, as compare's output
	// does: an archive written before redaction may hold a secret.
	var sc *redact.Scrubber
	stdout, stderr = sc.Writer(stdout), sc.Writer(stderr)
	o, err := parseFlags(args, stdout, stderr)
	switch {
	case errors.Is(err, flag.ErrHelp):
		return exitOK
	case err != nil:
		return exitUsage
	}
	m, err := load(ctx, o, stdin, stderr)
	if err == nil {
		err = report.WriteRun(stdout, m, o.format)
	}
	if err != nil {
		fmt.Fprintln(stderr, "show:", err)
		if errors.As(err, new(*analysis.UnknownKeyError)) {
			return exitUsage
		}
		return exitFail
	}
	return exitOK
}

func parseFlags(args []string, stdout, stderr io.Writer) (*options, error) {
	fs := flag.NewFlagSet("show", flag.ContinueOnError)
	fs.SetOutput(stderr)
	o := &options{format: report.FormatText}
	fs.StringVar(&o.archive, "archive", "", "archive `DIR` to select the run from (default $"+archivepath.EnvVar+", else ./archive when it exists)")
	md := fs.Bool("md", false, "print Markdown")
	asJSON := fs.Bool("json", false, "print one JSON object: the summary, the run's columns and every measurement")
	if err := cliflag.Parse(fs, args, help, stdout); err != nil {
		return nil, err
	}
	usage := func(format string, a ...any) error {
		fmt.Fprintf(stderr, "show: "+format+"\n", a...)
		fmt.Fprintln(stderr, "speedmatrix show -h prints every flag")
		return errUsage
	}
	switch {
	case *md && *asJSON:
		return nil, usage("-md and -json do not go together")
	case *md:
		o.format = report.FormatMarkdown
	case *asJSON:
		o.format = report.FormatJSON
	}
	rest := fs.Args()
	for _, a := range rest {
		if len(a) > 1 && strings.HasPrefix(a, "-") {
			return nil, usage("%s after the run: flags go before RUN", a)
		}
	}
	if len(rest) != 1 {
		return nil, usage("want one RUN, got %d", len(rest))
	}
	o.run = rest[0]
	return o, nil
}

// load returns the run o.run names: a document (or standard input)
// parsed, else the archived run it selects.
func load(ctx context.Context, o *options, stdin io.Reader, stderr io.Writer) (*schema.Matrix, error) {
	if o.run == "-" {
		return parse.Parse(stdin, "<stdin>", "")
	}
	if st, err := os.Stat(o.run); err == nil && !st.IsDir() {
		f, err := os.Open(o.run)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		return parse.Parse(f, o.run, "")
	}
	where := archivepath.Resolve(o.archive)
	if err := where.ForRead(); err != nil {
		return nil, fmt.Errorf("%s: no such file, and no archive to select it from: %w", o.run, err)
	}
	a, err := store.Open(ctx, where.Path, store.Options{})
	if err != nil {
		return nil, err
	}
	defer a.Close()
	if d := store.Dir(a); d != nil {
		d.NoticeLockWait(stderr, "show")
	}
	// A whole run id the archive holds loads without listing every run
	// (1 of 100,000 runs: 827 MB peak RSS through the listing).
	if schema.IsRunID(o.run) {
		if ms, err := a.Load(ctx, o.run); err == nil && len(ms) == 1 {
			return ms[0], nil
		}
	}
	runs, err := a.Runs(ctx)
	if err != nil {
		return nil, fmt.Errorf("archive %s: %w", where.Path, err)
	}
	if sel, err := analysis.ParseSelector(o.run); err == nil {
		if err := analysis.CheckSelector(sel, runs); err != nil {
			return nil, err
		}
	}
	r, err := analysis.Select(runs, o.run)
	if err != nil {
		return nil, err
	}
	ms, err := a.Load(ctx, r.RunID)
	if err != nil {
		return nil, fmt.Errorf("archive %s: %w", where.Path, err)
	}
	return ms[0], nil
}
