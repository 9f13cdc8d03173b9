package comparecmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"speedmatrix/analysis"
	"speedmatrix/archive"
	"speedmatrix/archive/store"
	"speedmatrix/internal/archivepath"
	"speedmatrix/parse"
	"speedmatrix/schema"
)

// inputs resolves command-line arguments into runs: document files
// (parsed), "-" (standard input, parsed) or, with an archive, selectors
// of archived runs (loaded).
type inputs struct {
	dir         string // the archive resolved (archivepath: -archive, $SPEEDMATRIX_ARCHIVE, ./archive), or ""
	where       archivepath.Choice
	lockTimeout time.Duration
	skipDamaged bool // -skip-damaged: go on without a damaged batch, naming it
	stdin       io.Reader
	stderr      io.Writer // hears who holds the archive's lock while compare waits

	arc       store.Store
	runs      []schema.Run
	stdinUsed bool
}

// archive opens the archive once (store.Open: a directory or a table
// reference), refusing a directory that does not exist (archive.Open
// would create it, and an empty archive is a typo): the error names the
// paths tried.
func (in *inputs) archive(ctx context.Context) (store.Store, error) {
	if in.arc != nil {
		return in.arc, nil
	}
	if err := in.where.ForRead(); err != nil {
		return nil, err
	}
	s, err := store.Open(ctx, in.dir, store.Options{})
	if err != nil {
		return nil, err
	}
	if a := store.Dir(s); a != nil {
		a.LockTimeout = in.lockTimeout
		a.SkipDamaged = in.skipDamaged
		if in.stderr != nil {
			a.NoticeLockWait(in.stderr, "compare")
			a.OnDamaged = func(d archive.Damage) {
				fmt.Fprintf(in.stderr, "compare: skipping batch %s: %s: %v\n", d.Stem, d.Path, d.Err)
			}
		}
	}
	in.arc = s
	return s, nil
}

// archivedRuns lists the archive's runs once.
func (in *inputs) archivedRuns(ctx context.Context) ([]schema.Run, error) {
	if in.runs != nil {
		return in.runs, nil
	}
	a, err := in.archive(ctx)
	if err != nil {
		return nil, err
	}
	runs, err := a.Runs(ctx)
	if err != nil {
		return nil, fmt.Errorf("archive %s: %w", in.dir, err)
	}
	if runs == nil {
		runs = []schema.Run{}
	}
	in.runs = runs
	return runs, nil
}

// load returns the archived runs with the given ids, in that order.
func (in *inputs) load(ctx context.Context, ids []string) ([]*schema.Matrix, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	a, err := in.archive(ctx)
	if err != nil {
		return nil, err
	}
	ms, err := a.Load(ctx, ids...)
	if err != nil {
		return nil, fmt.Errorf("archive %s: %w", in.dir, err)
	}
	return ms, nil
}

// loadColumns is load reading only the named measurement and sample
// columns (archive.LoadColumns).
func (in *inputs) loadColumns(ctx context.Context, columns, ids []string) ([]*schema.Matrix, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	a, err := in.archive(ctx)
	if err != nil {
		return nil, err
	}
	ms, err := a.LoadColumns(ctx, columns, ids...)
	if err != nil {
		return nil, fmt.Errorf("archive %s: %w", in.dir, err)
	}
	return ms, nil
}

// isFile reports whether arg names a readable file (not a directory).
func isFile(arg string) bool {
	st, err := os.Stat(arg)
	return err == nil && !st.IsDir()
}

// parseFile reads one document.
func (in *inputs) parseFile(arg string) (*schema.Matrix, error) {
	if arg == "-" {
		if in.stdinUsed {
			return nil, errors.New("standard input (-) given twice")
		}
		in.stdinUsed = true
		return parse.Parse(in.stdin, "<stdin>", "")
	}
	f, err := os.Open(arg)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return parse.Parse(f, arg, "")
}

// resolve turns each argument into exactly one run, in argument order.
func (in *inputs) resolve(ctx context.Context, args []string) ([]*schema.Matrix, error) {
	if ms, ok := in.byFullIDs(ctx, args); ok {
		return ms, nil
	}
	out := make([]*schema.Matrix, len(args))
	var ids []string
	var at []int
	for i, arg := range args {
		if arg == "-" || isFile(arg) {
			m, err := in.parseFile(arg)
			if err != nil {
				return nil, err
			}
			out[i] = m
			continue
		}
		if err := in.where.ForRead(); err != nil {
			return nil, fmt.Errorf("%s: no such file, and no archive to select it from: %w", arg, err)
		}
		runs, err := in.archivedRuns(ctx)
		if err != nil {
			return nil, err
		}
		if sel, err := analysis.ParseSelector(arg); err == nil {
			if err := analysis.CheckSelector(sel, runs); err != nil {
				return nil, err
			}
		}
		r, err := analysis.Select(runs, arg)
		if err != nil {
			return nil, err
		}
		ids = append(ids, r.RunID)
		at = append(at, i)
	}
	ms, err := in.load(ctx, ids)
	if err != nil {
		return nil, err
	}
	for j, m := range ms {
		out[at[j]] = m
	}
	return out, nil
}

// byFullIDs loads args when every one is a whole run id the archive
// holds, without listing the archive's runs; ok is false otherwise (a
// file, a selector, an id prefix, an id not held: resolve's own path
// then says what it says).
//
// Note: listing every run (all columns) to pick two by id cost a
// two-run compare of a 100,000-run table 1.16 GB of peak RSS and 13
// CPU-s (BenchmarkTableScale, docs/iceberg.md).
func (in *inputs) byFullIDs(ctx context.Context, args []string) ([]*schema.Matrix, bool) {
	for _, arg := range args {
		if !schema.IsRunID(arg) || isFile(arg) {
			return nil, false
		}
	}
	if len(args) == 0 || in.where.ForRead() != nil {
		return nil, false
	}
	ms, err := in.load(ctx, args)
	if err != nil {
		return nil, false
	}
	return ms, true
}

// resolveMany is resolve for -trend and -list: a selector may match any
// number of runs (all of them are taken); files give one run each.
// With no arguments every archived run is taken.
func (in *inputs) resolveMany(ctx context.Context, args []string) (files []*schema.Matrix, archived []schema.Run, err error) {
	if len(args) == 0 {
		runs, err := in.archivedRuns(ctx)
		return nil, runs, err
	}
	seen := map[string]bool{}
	for _, arg := range args {
		if arg == "-" || isFile(arg) {
			m, err := in.parseFile(arg)
			if err != nil {
				return nil, nil, err
			}
			files = append(files, m)
			continue
		}
		runs, err := in.archivedRuns(ctx)
		if err != nil {
			return nil, nil, err
		}
		sel, err := analysis.ParseSelector(arg)
		if err != nil {
			return nil, nil, err
		}
		if err := analysis.CheckSelector(sel, runs); err != nil {
			return nil, nil, err
		}
		hits := analysis.FilterRuns(runs, sel)
		if len(hits) == 0 {
			return nil, nil, analysis.NoMatch(sel, arg, runs)
		}
		for _, r := range hits {
			if !seen[r.RunID] {
				seen[r.RunID] = true
				archived = append(archived, r)
			}
		}
	}
	return files, archived, nil
}
