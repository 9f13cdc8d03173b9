package comparecmd

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"time"

	"speedmatrix/analysis"
	"speedmatrix/archive"
	"speedmatrix/internal/archivepath"
	"speedmatrix/internal/cliflag"
	"speedmatrix/plots"
	"speedmatrix/redact"
	"speedmatrix/report"
)

// Exit statuses.
const (
	exitOK    = 0
	exitFail  = 1
	exitUsage = 2
)

// cellFlags collects repeated -cell flags.
type cellFlags []string

// String implements flag.Value.
func (c *cellFlags) String() string { return strings.Join(*c, ",") }

// Set implements flag.Value: each -cell adds one cell.
func (c *cellFlags) Set(v string) error { *c = append(*c, v); return nil }

// options are the parsed flags.
type options struct {
	archive        string
	lockTimeout    time.Duration
	skipDamaged    bool
	format         report.Format
	plotsDir, html string
	minUser        float64
	slo            analysis.SLO
	metrics        []string
	labels         []string
	trend, list    bool
	cells          []analysis.Key
	trendMetric    analysis.Metric
	order          analysis.TrendOrder
	threshold      float64
	tolerance      float64
	table          string
	allContexts    bool
	cost           costFlags
	args           []string
}

// usageError is a bad command line: exit status 2.
type usageError struct{ msg string }

// Error implements error.
func (e usageError) Error() string { return e.msg }

func usagef(format string, a ...any) error { return usageError{fmt.Sprintf(format, a...)} }

func parseFlags(args []string, stdout, stderr io.Writer) (*options, error) {
	fs := flag.NewFlagSet("compare", flag.ContinueOnError)
	fs.SetOutput(stderr)
	o := &options{}
	fs.StringVar(&o.archive, "archive", "", "archive `DIR` to select runs from (default $"+archivepath.EnvVar+", else ./archive when it exists)")
	fs.DurationVar(&o.lockTimeout, "lock-timeout", 0, archive.LockTimeoutUsage)
	fs.BoolVar(&o.skipDamaged, "skip-damaged", false, "go on without the archive's batches holding a damaged or foreign file, naming each on stderr")
	format := fs.String("format", "text", "output `format`: text, markdown, csv or json")
	fs.StringVar(&o.plotsDir, "plots", "", "write each chart as PNG and SVG into `DIR`")
	fs.StringVar(&o.html, "html", "", "write one self-contained HTML report to `FILE`")
	tolerance := fs.String("tolerance", "3%", "a change within this relative `band` reads \"same\" where cells carry no spread")
	fs.StringVar(&o.table, "table", "", "print only the table `NAME` (text, Markdown, CSV): "+report.KnownTables)
	fs.BoolVar(&o.allContexts, "all-contexts", false, "also answer the targets over all contexts together and draw one frontier over them")
	fs.Float64Var(&o.minUser, "min-user-tps", 0, "best throughput with at least `T` tok/s per request (median), per context; serving runs: most requests/s completed with it")
	fs.Float64Var(&o.slo.MaxTTFTMs, "max-ttft", 0, "most concurrency with TTFT ≤ `MS` (median), per context; serving runs: most requests/s completed with TTFT p99 ≤ MS")
	fs.Float64Var(&o.slo.MaxTBTMs, "max-tbt", 0, "most concurrency with TBT ≤ `MS` (median), per context; serving runs: most requests/s completed with TBT p99 ≤ MS")
	metrics := fs.String("metrics", "", "further measurements `columns` to compare, comma-separated (e.g. ttft_p99_ms)")
	lbls := fs.String("labels", "", "comma-separated `names` for the runs, baseline first (default: what tells them apart)")
	fs.BoolVar(&o.trend, "trend", false, "follow cells across archived runs of the same model and GPU")
	fs.BoolVar(&o.list, "list", false, "list the archive's runs, oldest measured first: id, date (started_at, else \"undated\" with the ingest date it sorts by), title, model, GPU, engine, quantization (blank columns filled from metadata or the model's name), cells")
	var cells cellFlags
	fs.Var(&cells, "cell", "trend `cell` phase:context:N, e.g. decode:8K:128 (repeatable)")
	metric := fs.String("metric", "total_tok_s", "measurements `column` a trend follows")
	order := fs.String("order", "version", "trend `order`: version (engine version) or date")
	threshold := fs.String("threshold", "5%", "flag trend changes beyond this relative `change`")
	o.cost.register(fs)
	if err := cliflag.Parse(fs, args, help, stdout); err != nil {
		return nil, err
	}
	o.args = fs.Args() // cliflag.Parse refused a flag after them
	var err error
	if o.format, err = report.ParseFormat(*format); err != nil {
		return nil, usageError{err.Error()}
	}
	for _, v := range []struct {
		name string
		v    float64
	}{{"-min-user-tps", o.minUser}, {"-max-ttft", o.slo.MaxTTFTMs}, {"-max-tbt", o.slo.MaxTBTMs}} {
		if v.v < 0 || math.IsNaN(v.v) || math.IsInf(v.v, 0) {
			return nil, usagef("%s %v: want a positive number", v.name, v.v)
		}
	}
	if *metrics != "" {
		for _, m := range strings.Split(*metrics, ",") {
			if _, err := analysis.MetricByName(strings.TrimSpace(m)); err != nil {
				return nil, usageError{err.Error()}
			}
			o.metrics = append(o.metrics, strings.TrimSpace(m))
		}
	}
	if *lbls != "" {
		o.labels = strings.Split(*lbls, ",")
	}
	for _, c := range cells {
		k, err := analysis.ParseCell(c)
		if err != nil {
			return nil, usageError{err.Error()}
		}
		o.cells = append(o.cells, k)
	}
	if o.trendMetric, err = analysis.MetricByName(*metric); err != nil {
		return nil, usageError{err.Error()}
	}
	switch *order {
	case "version":
		o.order = analysis.ByVersion
	case "date":
		o.order = analysis.ByDate
	default:
		return nil, usagef("-order %q: want version or date", *order)
	}
	if o.threshold, err = analysis.ParsePercent("-threshold", *threshold); err != nil {
		return nil, usageError{err.Error()}
	}
	if o.tolerance, err = analysis.ParsePercent("-tolerance", *tolerance); err != nil {
		return nil, usageError{err.Error()}
	}
	if o.table != "" && !report.TableNameKnown(o.table) {
		return nil, usagef("-table %q: unknown table; the tables are %s", o.table, report.KnownTables)
	}
	switch {
	case o.list && o.trend:
		return nil, usagef("-list and -trend do not go together")
	case !o.list && !o.trend && len(o.args) < 2:
		return nil, usagef("need a BASELINE and at least one OTHER run to compare (got %d)", len(o.args))
	case o.list && (o.plotsDir != "" || o.html != ""):
		return nil, usagef("-list draws no charts: drop -plots and -html")
	case len(o.labels) > 0 && len(o.labels) != len(o.args):
		return nil, usagef("-labels names %d runs, %d given", len(o.labels), len(o.args))
	case o.table != "" && o.format == report.FormatJSON:
		return nil, usagef("-table picks one table of text, Markdown or CSV; JSON holds every section")
	}
	for _, a := range o.args {
		if st, err := os.Stat(a); err == nil && st.IsDir() {
			return nil, usagef("%s is a directory, not a document (to compare archived runs, give -archive %s and selectors)", a, a)
		}
	}
	if err := checkWritable(o); err != nil {
		return nil, err
	}
	if err := o.cost.check(o.list || o.trend); err != nil {
		return nil, err
	}
	return o, nil
}

func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	// Note: what compare prints passes the redactor too: an archive
	// written before issue 22's redaction may hold what it now removes.
	var sc *redact.Scrubber
	stdout, stderr = sc.Writer(stdout), sc.Writer(stderr)
	o, err := parseFlags(args, stdout, stderr)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		var ue usageError
		if errors.As(err, &ue) {
			fmt.Fprintln(stderr, "compare:", ue.msg)
			fmt.Fprintln(stderr, "speedmatrix compare -h prints every flag")
		}
		return exitUsage
	}
	where := archivepath.Resolve(o.archive)
	in := &inputs{dir: where.Path, where: where, lockTimeout: o.lockTimeout, skipDamaged: o.skipDamaged, stdin: stdin, stderr: stderr}
	switch {
	case o.list:
		err = list(ctx, in, o, stdout)
	case o.trend:
		err = trend(ctx, in, o, stdout)
	default:
		err = compare(ctx, in, o, stdout, stderr)
	}
	if err != nil {
		fmt.Fprintln(stderr, "compare:", err)
		if errors.As(err, new(usageError)) || errors.As(err, new(*analysis.UnknownKeyError)) {
			return exitUsage
		}
		return exitFail
	}
	return exitOK
}

// compare is the default mode: BASELINE OTHER... compared cell by cell.
func compare(ctx context.Context, in *inputs, o *options, stdout, stderr io.Writer) error {
	ms, err := in.resolve(ctx, o.args)
	if err != nil {
		return err
	}
	if err := analysis.CheckMetrics(o.metrics, ms); err != nil {
		return err
	}
	for i := 1; i < len(ms); i++ {
		if ms[i].Run.RunID != "" && ms[i].Run.RunID == ms[0].Run.RunID {
			return fmt.Errorf("%s and %s are the same run (%s)", o.args[0], o.args[i], ms[0].Run.RunID)
		}
	}
	lbls := o.labels
	if lbls == nil {
		lbls = report.Labels(ms)
	}
	c, err := analysis.Compare(ms[0], ms[1:], analysis.Options{Metrics: o.metrics, Labels: lbls, SameWithin: o.tolerance})
	if err != nil {
		return err
	}
	pr, err := o.cost.pricing(o.args, lbls, ms)
	if err != nil {
		return err
	}
	r := report.New(c, report.Options{MinUserTokS: o.minUser, SLO: o.slo, AllContexts: o.allContexts, Prices: o.cost.table, Pricing: pr})
	if err := r.Write(stdout, o.format, o.table); err != nil {
		return err
	}
	if o.plotsDir == "" && o.html == "" {
		return nil
	}
	charts, notes := r.Charts()
	for _, n := range notes {
		fmt.Fprintln(stderr, "compare:", n)
	}
	if o.plotsDir != "" {
		if err := plots.WriteAll(o.plotsDir, charts); err != nil {
			return err
		}
	}
	if o.html != "" {
		return writeFile(o.html, func(w io.Writer) error { return r.WriteHTML(w, charts) })
	}
	return nil
}

// cellColumns are the measurement columns that decide which cell a row
// belongs to (analysis.KeyOf): all -list needs to count the cells of a
// run written before the archive kept the count in its runs table
// (context_tokens only orders them).
var cellColumns = []string{"phase", "context_label", "concurrency", "request_rate"}

// writeFile creates path and writes it with write, removing it when
// writing fails.
func writeFile(path string, write func(io.Writer) error) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	var sc *redact.Scrubber // as stdout: see run
	if err := write(sc.Writer(f)); err != nil {
		f.Close()
		os.Remove(path)
		return err
	}
	return f.Close()
}

// checkWritable fails when -html's directory or -plots cannot be written,
// before any work: a typo in a path must not cost the whole comparison.
// It creates and removes a probe file; -plots DIR is created as
// plots.WriteAll would.
func checkWritable(o *options) error {
	probe := func(dir, flagName, path string) error {
		f, err := os.CreateTemp(dir, ".compare-probe-*")
		if err != nil {
			return usagef("%s %s: cannot write there: %v", flagName, path, errors.Unwrap(err))
		}
		name := f.Name()
		f.Close()
		return os.Remove(name)
	}
	if o.html != "" {
		if st, err := os.Stat(o.html); err == nil && st.IsDir() {
			return usagef("-html %s is a directory; give a file name", o.html)
		}
		if err := archivepath.CheckParent(o.html); err != nil {
			return usagef("-html %s: %v", o.html, err)
		}
		if err := probe(filepath.Dir(o.html), "-html", o.html); err != nil {
			return err
		}
	}
	if o.plotsDir != "" {
		st, err := os.Stat(o.plotsDir)
		switch {
		case err == nil && !st.IsDir():
			return usagef("-plots %s is not a directory", o.plotsDir)
		case err == nil:
			return probe(o.plotsDir, "-plots", o.plotsDir)
		}
		// Not there yet: its parent must exist and be writable.
		if err := archivepath.CheckParent(o.plotsDir); err != nil {
			return usagef("-plots %s: %v", o.plotsDir, err)
		}
		if err := probe(filepath.Dir(filepath.Clean(o.plotsDir)), "-plots", o.plotsDir); err != nil {
			return err
		}
	}
	return nil
}
