package comparecmd

import (
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"

	"speedmatrix/analysis"
	"speedmatrix/prices"
	"speedmatrix/schema"
)

// costFlags are the inputs of the answers per dollar: -prices FILE,
// repeated -price GPU=USD and repeated -gpus RUN=N.
type costFlags struct {
	file   string
	price  listFlag
	gpus   listFlag
	table  *prices.Table // the file and the -price entries, nil without either
	counts []gpuCount
}

// gpuCount is one -gpus: run (a label or an argument as given; "" for
// every run without a recorded count) ran on n GPUs.
type gpuCount struct {
	run string
	n   int32
}

// listFlag collects a repeated flag.
type listFlag []string

// String implements flag.Value.
func (l *listFlag) String() string { return strings.Join(*l, ", ") }

// Set implements flag.Value.
func (l *listFlag) Set(v string) error { *l = append(*l, v); return nil }

func (cf *costFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&cf.file, "prices", "", "answer per dollar with the GPU prices of `FILE` (TOML: as_of and a [gpu] table of \"GPU model\" = USD per GPU-hour; docs/prices.md)")
	fs.Var(&cf.price, "price", "a GPU's price, `GPU=USD` per GPU-hour (repeatable; replaces the file's entry of that GPU)")
	fs.Var(&cf.gpus, "gpus", "the GPU count of a run that does not record one, `RUN=N` (RUN: a run's label or argument; N alone: every such run; repeatable)")
}

// check reads the price file and the entries before any work: a bad one
// is a usage error, as is any of them with -list or -trend (listOrTrend),
// which answer nothing per dollar.
func (cf *costFlags) check(listOrTrend bool) error {
	if listOrTrend && (cf.file != "" || len(cf.price) > 0 || len(cf.gpus) > 0) {
		return usagef("-prices, -price and -gpus price a comparison: drop them with -list and -trend")
	}
	if cf.file != "" {
		data, err := os.ReadFile(cf.file)
		if err != nil {
			return usagef("-prices: %v", err)
		}
		if cf.table, err = prices.Parse(data, cf.file); err != nil {
			return usagef("-prices: %v", err)
		}
	}
	for _, p := range cf.price {
		e, err := prices.ParseEntry(p)
		if err != nil {
			return usageError{err.Error()}
		}
		if cf.table == nil {
			cf.table = &prices.Table{}
		}
		cf.table.Set(e)
	}
	for _, g := range cf.gpus {
		run, num, ok := strings.Cut(g, "=")
		if i := strings.LastIndex(g, "="); i >= 0 {
			run, num, ok = g[:i], g[i+1:], true
		}
		if !ok {
			run, num = "", g
		}
		n, err := strconv.Atoi(strings.TrimSpace(num))
		if err != nil || n < 1 || n > 1<<20 {
			return usagef("-gpus %q: want RUN=N or N, N a whole number of GPUs ≥ 1", g)
		}
		cf.counts = append(cf.counts, gpuCount{run: strings.TrimSpace(run), n: int32(n)})
	}
	return nil
}

// pricing prices the runs ms (args as given, labels as printed); nil
// when no price and no count was given.
func (cf *costFlags) pricing(args, labels []string, ms []*schema.Matrix) ([]analysis.Pricing, error) {
	if cf.table == nil && len(cf.counts) == 0 {
		return nil, nil
	}
	gpus := make([]int32, len(ms))
	for _, g := range cf.counts {
		found := false
		for i := range ms {
			if g.run == "" || g.run == labels[i] || g.run == args[i] {
				found = true
				if g.run == "" && ms[i].Run.GPUCount != nil {
					continue // N alone is for the runs that record none
				}
				gpus[i] = g.n
			}
		}
		if !found {
			return nil, usagef("-gpus %s=%d: no run is labelled or given as %q (the runs: %s)", g.run, g.n, g.run, strings.Join(labels, ", "))
		}
	}
	runs := make([]*schema.Run, len(ms))
	for i := range ms {
		runs[i] = &ms[i].Run
	}
	pr, err := analysis.PriceRuns(runs, cf.table, gpus)
	if err != nil {
		return nil, fmt.Errorf("-prices: %w", err)
	}
	return pr, nil
}
